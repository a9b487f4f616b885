"""The weekly job through a real BackgroundScheduler and CronTrigger, time moved with time-machine
(BR-10 A-D, BR-15's scheduling part, BR-05's "the job ends without an exception")."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import time_machine

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from chatbot.errors import RateLimitedError
from tests.scheduler.doubles import RecordingDelivery, ratelimited
from tests.scheduler.harness import BR10, example_prs, harness, posted_before
from prhub.config import parse_config

SH = ZoneInfo("Asia/Shanghai")
REPO = "example-org/example-repo"
W24 = "2024-W24"  # the week 2024-06-10 .. 06-16, digested at Mon 2024-06-17 09:00 Shanghai


def _sent(store, week=W24):
    return [r for r in store.deliveries_of(REPO, week, "digest") if r.status == "sent"]


def test_br10_a_two_schedulers_one_digest(store, db_url):
    slack = RecordingDelivery()
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as other, time_machine.travel(datetime(2024, 6, 17, 8, 59, 59, 300000, tzinfo=SH), tick=True):
        a = harness(store, slack=slack)
        b = harness(other, slack=slack)
        a.sched.start(catch_up=False)
        b.sched.start(catch_up=False)
        try:
            a.wait_runs()
            b.wait_runs()
        finally:
            a.sched.shutdown()
            b.sched.shutdown()
    assert len(slack.to("C_DIGEST")) == 1
    assert len(_sent(store)) == 1
    assert a.errors == b.errors == []
    skipped = a.metrics.total("prhub_deliveries_skipped_total") + b.metrics.total("prhub_deliveries_skipped_total")
    assert skipped == 1  # the loser logged "already sent" / "being sent"


def test_br10_b_down_0855_to_0940_posts_once_at_start(store, caplog):
    slack = RecordingDelivery()
    posted_before(store, REPO)
    with time_machine.travel(datetime(2024, 6, 17, 9, 40, tzinfo=SH), tick=True):
        h = harness(store, slack=slack)
        h.sched.start()
        try:
            h.wait_runs()
            jobs = h.sched.jobs()
        finally:
            h.sched.shutdown()
    assert h.runs == [f"catchup:{REPO}"]
    assert len(slack.posts) == 1 and _sent(store)[0].key.week == W24
    assert jobs[0].next_run.isoformat() == "2024-06-24T09:00:00+08:00"
    assert "missed run" in caplog.text


def test_br10_c_down_sunday_to_tuesday_one_catch_up_then_none(store):
    slack = RecordingDelivery()
    posted_before(store, REPO)
    with time_machine.travel(datetime(2024, 6, 18, 10, 0, tzinfo=SH), tick=True):
        h = harness(store, slack=slack)
        h.sched.start()
        h.wait_runs()
        h.sched.shutdown()
        again = harness(store, slack=slack)  # restarted once more: nothing left to catch up
        assert again.sched.catch_up() == []
    assert len(slack.posts) == 1 and len(_sent(store)) == 1


def test_several_missed_firings_give_one_run_for_the_last_week(store):
    slack = RecordingDelivery()
    posted_before(store, REPO)
    with time_machine.travel(datetime(2024, 7, 2, 10, 0, tzinfo=SH), tick=True):  # down for three Mondays
        h = harness(store, slack=slack)
        h.sched.start()
        h.wait_runs()
        h.sched.shutdown()
    assert len(slack.posts) == 1
    assert [r.key.week for r in _sent(store, "2024-W26")] == ["2024-W26"]
    assert _sent(store, W24) == []


def test_a_new_install_posts_no_missed_run_and_says_so(store, caplog):
    """The first start on a store with no post of the repository, 40 minutes after its Monday
    firing: nothing is posted (the firing was before the bot ran), the log says why, and the next
    firing is the first post."""
    slack = RecordingDelivery()
    with time_machine.travel(datetime(2024, 6, 17, 9, 40, tzinfo=SH), tick=True):
        h = harness(store, slack=slack)
        with caplog.at_level("INFO", logger="scheduler.service"):
            assert h.sched.catch_up() == []
    assert slack.posts == [] and store.deliveries_of(REPO, W24) == []
    assert ("job example-org/example-repo: no post of it is recorded in this store (a new install): the firing of "
            "2024-06-17T09:00:00+08:00 for 2024-W24 is not caught up; the first post is the next firing, "
            "2024-06-24T09:00:00+08:00") in caplog.text
    assert "missed run" not in caplog.text
    posted_before(store, REPO)  # the same start on a store that ran before: one catch-up run
    with time_machine.travel(datetime(2024, 6, 17, 9, 40, tzinfo=SH), tick=True):
        assert [(r, str(w)) for r, w in harness(store, slack=slack).sched.catch_up()] == [(REPO, W24)]


def test_catch_up_grace_can_be_shortened(store, caplog):
    posted_before(store, REPO)
    cfg = parse_config(BR10.replace("timezone: Asia/Shanghai}", "timezone: Asia/Shanghai, catch_up_grace_seconds: 3600}"), "t")
    with time_machine.travel(datetime(2024, 6, 18, 10, 0, tzinfo=SH), tick=True):
        h = harness(store, config=cfg)
        assert h.sched.catch_up() == []
    assert "past its catch-up grace" in caplog.text


def test_br10_d_restart_after_posting_does_not_post_again(store):
    slack = RecordingDelivery()
    with time_machine.travel(datetime(2024, 6, 17, 8, 59, 59, 500000, tzinfo=SH), tick=True) as t:
        h = harness(store, slack=slack)
        h.sched.start(catch_up=False)
        h.wait_runs()
        h.sched.shutdown()
        t.move_to(datetime(2024, 6, 17, 9, 5, tzinfo=SH))
        again = harness(store, slack=slack)
        again.sched.start()
        assert again.sched.scheduler.get_job(f"catchup:{REPO}") is None
        again.sched.shutdown()
    assert len(slack.posts) == 1


def test_the_job_digests_the_week_that_ended_before_the_firing_even_when_late(store):
    slack = RecordingDelivery()
    with time_machine.travel(datetime(2024, 6, 17, 8, 59, 59, 500000, tzinfo=SH), tick=True) as t:
        h = harness(store, slack=slack)
        h.sched.start(catch_up=False)
        h.wait_runs()
        t.move_to(datetime(2024, 6, 24, 9, 59, 59, 500000, tzinfo=SH))  # 59 min late, within misfire grace
        h.sched.wakeup()
        h.wait_runs()
        h.sched.shutdown()
    assert [r.key.week for r in store.deliveries_of(REPO, "2024-W25")] == ["2024-W25"]
    assert len(slack.posts) == 2


def test_br15_rate_limit_reschedules_once_after_the_reset(store):
    calls = []
    reset = datetime(2024, 6, 17, 2, 0, tzinfo=timezone.utc)  # 10:00 Shanghai

    def build(cfg, week, langs):
        calls.append(datetime.now(timezone.utc))
        if len(calls) == 1:
            raise RateLimitedError("GitHub rate-limited until 02:00 UTC", reset_at=reset)
        from chatbot.digest import build_digest
        from chatbot.rules import default_rules_for
        return build_digest([], repo=cfg.repo, week=week, rules=default_rules_for(cfg.repo), tz=cfg.week_tz)

    slack = RecordingDelivery()
    with time_machine.travel(datetime(2024, 6, 17, 8, 59, 59, 500000, tzinfo=SH), tick=True) as t:
        h = harness(store, slack=slack, build=build)
        h.sched.start(catch_up=False)
        h.wait_runs()
        retry = h.sched.scheduler.get_job(f"retry:{REPO}")
        assert retry is not None and retry.next_run_time == reset + timedelta(seconds=30)
        assert slack.to("C_DIGEST") == [] and len(slack.to("U_ADMIN")) == 1  # admins told: delayed
        t.move_to(reset + timedelta(seconds=29.5))
        h.sched.wakeup()
        h.wait_runs()
        h.sched.shutdown()
    assert len(calls) == 2 and calls[1] >= reset
    assert len(slack.to("C_DIGEST")) == 1 and _sent(store)[0].key.week == W24
    assert h.errors == []


def test_br15_a_second_rate_limit_is_not_retried_again(store):
    def build(cfg, week, langs):
        raise RateLimitedError("GitHub rate-limited", reset_at=datetime.now(timezone.utc) + timedelta(hours=1))

    with time_machine.travel(datetime(2024, 6, 17, 8, 59, 59, 500000, tzinfo=SH), tick=True):
        h = harness(store, build=build)
        report = h.sched.job.run(REPO, week=None, retry=True)
        assert report.status == "rate_limited" and h.sched.scheduler.get_job(f"retry:{REPO}") is None


def test_br05_variant_through_the_scheduler_ends_without_an_exception(store):
    slack = RecordingDelivery()
    slack.fail("C_DIGEST", 2, *[ratelimited(2) for _ in range(5)])
    with time_machine.travel(datetime(2026, 5, 18, 8, 59, 59, 500000, tzinfo=SH), tick=True):
        h = harness(store, slack=slack, prs=example_prs())
        h.sched.start(catch_up=False)
        h.wait_runs()
        h.sched.shutdown()
    assert h.errors == []
    rows = {r.key.part: r for r in store.deliveries_of(REPO, "2026-W20", "digest")}
    assert rows[1].status == "sent" and rows[2].status == "failed" and rows[2].reason == "ratelimited"
    assert all(p > 2 for p in rows) is False and max(rows) == 2
    assert sum(1 for c in slack.calls if c.target == "C_DIGEST" and c.part == 2) == 4
    assert len(slack.to("U_ADMIN")) == 1  # the failure reported to the admins
    assert h.metrics.total("prhub_deliveries_failed_total") == 1


def test_a_crashing_builder_never_raises_into_apscheduler(store):
    def build(cfg, week, langs):
        raise RuntimeError("bug")

    with time_machine.travel(datetime(2024, 6, 17, 8, 59, 59, 500000, tzinfo=SH), tick=True):
        h = harness(store, build=build)
        h.sched.start(catch_up=False)
        h.wait_runs()
        h.sched.shutdown()
    assert h.errors == [] and h.metrics.value("prhub_jobs_total", repo=REPO, outcome="failed") == 1
