"""Issue 9, failure 1: ``prhub serve`` killed (kill -9) or stopped (SIGTERM) while a part waits out a
429 ``Retry-After`` loses nothing; two replicas with a short lease and a longer ``Retry-After`` post
once. Real processes against the fake Slack and Feishu; lease, heartbeat and ``Retry-After`` are
short or injected so no test waits out a real lease."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone

import pytest

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from chatbot.deliveries import RELEASED
from scheduler.config import cron_trigger
from scheduler.jobs import week_for
from scheduler.service import previous_fire_time
from tests.e2e.bot_support import REPORT_LINK, example_config, example_week_dir, free_port, subprocess_env
from tests.e2e.test_bot_processes import REPO, _check_once, _serve, _stop, _stop_all, _wait_http
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.slack_server import FakeSlack
from tests.scheduler.harness import posted_before
from tests.adapters.storage.conftest import PG_ENV, pg_schema


@pytest.fixture
def one_db(request, tmp_path):
    """One database per test (process tests are slow): ``request.param`` ``sqlite``, or
    ``postgresql`` (a fresh schema; SQLite when PRHUB_TEST_DATABASE_URL is not set)."""
    base = os.environ.get(PG_ENV)
    if getattr(request, "param", "postgresql") == "sqlite" or not base:
        yield f"sqlite:///{tmp_path / 'prhub.db'}"
        return
    with pg_schema(base) as url:
        yield url


def _missed_config(tmp_path, delivery: str) -> tuple[str, str]:
    """A config whose last firing (Monday 09:00 UTC) was missed, so ``prhub serve`` catches it up at
    start (on a store where the repository posted before)."""
    last = previous_fire_time(cron_trigger("0 9 * * 1", "UTC"), datetime.now(timezone.utc))
    week = str(week_for(last, "UTC"))
    edir = example_week_dir(tmp_path, [week])
    path = tmp_path / "prhub.yaml"
    path.write_text(example_config(edir, '{cron: "0 9 * * 1", timezone: UTC}',
                                   rest=f"delivery: {delivery}\nserver: {{host: 127.0.0.1, port: 0, threads: 4}}\n"))
    return str(path), week


def _slack_429_answered(slack: FakeSlack) -> bool:
    with slack._lock:
        return not slack._limits.get("chat.postMessage")


def _all_sent(store, week):
    rows = store.deliveries_of(REPO, week, "digest")
    return len(rows) >= 4 and all(r.status == "sent" for r in rows) and {r.key.platform for r in rows} == {"slack", "feishu"}


@pytest.mark.parametrize("how, one_db", [("kill -9", "sqlite"), ("SIGTERM", "postgresql")], indirect=["one_db"])
def test_stopped_during_a_retry_after_wait_then_restarted_posts_every_part_once(one_db, tmp_path, how):
    db_url = one_db
    config, week = _missed_config(tmp_path, "{lease_seconds: 600}")
    with FakeSlack() as slack, FakeFeishu() as feishu, SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        posted_before(store, REPO)  # a bot that ran before (a new install catches nothing up)
        slack.rate_limit("chat.postMessage", 120)  # part 1 to Slack waits out a 120 s Retry-After
        env = subprocess_env(slack, feishu, db_url, REPORT_LINK)
        port = free_port()
        first = _serve(config, env, port)
        try:
            _wait_http(port, first)
            assert slack.wait_for(lambda: _slack_429_answered(slack), timeout=60)
            time.sleep(0.5)  # the part now waits
        finally:
            if how == "kill -9":
                first.kill()
                first.communicate(timeout=30)
                err = ""
            else:
                rc, err = _stop(first)
                assert rc == 0, err[-2000:]
        [pending] = [r for r in store.deliveries_of(REPO, week, "digest") if r.status == "sending"]
        assert (pending.key.platform, pending.key.part) == ("slack", 1) and slack.posts_to("C_EX") == []
        if how == "SIGTERM":
            assert pending.owner == RELEASED and "handed back" in err
        else:
            assert pending.owner and pending.owner.split(":")[1] == str(first.pid)
        restarted = time.monotonic()
        second = _serve(config, env, free_port())
        try:
            assert slack.wait_for(lambda: _all_sent(store, week), timeout=60), store.deliveries_of(REPO, week, "digest")
            took = time.monotonic() - restarted
        finally:
            rc, err = _stop(second)
        parts = _check_once(slack, feishu, store.deliveries_of(REPO, week, "digest"))
    assert rc == 0, err[-2000:]
    assert took < 60  # well inside the 600 s lease: the dead or handed-back owner is recognised at once
    assert parts >= 2 and len(slack.posts_to("C_EX")) == parts
    assert "taking over a sending row" in err


def test_two_replicas_short_lease_long_retry_after_post_once(one_db, tmp_path):
    """Lease 3 s, Retry-After 9 s, reconciliation every 1 s: only the heartbeat keeps replica B from
    taking over the part A is waiting to send (the issue's 20 s lease and 77 s wait, scaled down)."""
    db_url = one_db
    config, week = _missed_config(tmp_path, "{lease_seconds: 3, reconcile_seconds: 1}")
    with FakeSlack() as slack, FakeFeishu() as feishu, SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        posted_before(store, REPO)  # a bot that ran before (a new install catches nothing up)
        slack.rate_limit("chat.postMessage", 9)
        env = subprocess_env(slack, feishu, db_url, REPORT_LINK)
        pa, pb = free_port(), free_port()
        a = _serve(config, env, pa)
        b = None
        try:
            _wait_http(pa, a)
            assert slack.wait_for(lambda: _slack_429_answered(slack), timeout=60)
            b = _serve(config, env, pb)
            _wait_http(pb, b)
            assert slack.wait_for(lambda: _all_sent(store, week), timeout=60), store.deliveries_of(REPO, week, "digest")
            time.sleep(1.5)  # B's reconciliation runs again: nothing is left to send
        finally:
            (ra, ea), (rb, eb) = _stop_all([a, b]) if b is not None else [_stop(a), (0, "")]
        parts = _check_once(slack, feishu, store.deliveries_of(REPO, week, "digest"))
    assert (ra, rb) == (0, 0), (ea[-2000:], eb[-2000:])
    assert len(slack.posts_to("C_EX")) == parts
    assert "taking over" not in ea + eb
