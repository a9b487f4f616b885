"""The weekly chart: uploaded at most once per (repo, week, destination) through the delivery log,
before part 1 and shown in it (Feishu-like) or after part 1 in its thread (Slack-like); best effort."""

from __future__ import annotations

from datetime import datetime, timezone

from chatbot.cards import Image
from chatbot.deliveries import DeliveryKey
from chatbot.digest import build_digest
from chatbot.errors import DeliveryError
from chatbot.render.html import ChartImage
from chatbot.rules import default_rules_for
from chatbot.weeks import IsoWeek
from prhub.config import parse_config
from scheduler.delivery import CHART, Deliverer
from scheduler.jobs import DigestJob
from scheduler.metrics import Metrics
from tests.scheduler.doubles import ClockSleeper, RecordingDelivery, TestClock, UploadingDelivery
from tests.scheduler.harness import example_prs

REPO = "example-org/example-repo"
WEEK = IsoWeek.parse("2026-W20")
PNG = b"\x89PNG\r\n\x1a\nchart"
CONFIG = f"""
repositories:
  - repo: {REPO}
    source: github
    schedule: {{cron: "0 9 * * 1", timezone: Asia/Shanghai}}
    destinations: [{{slack: C_DIGEST}}, {{feishu: oc_chat, lang: zh}}]
"""


class Charts:
    """A chart renderer double: counts calls, or raises / returns None on demand."""

    def __init__(self, *, fail: bool = False, none: bool = False):
        self.calls: list[str] = []
        self.fail = fail
        self.none = none

    def __call__(self, digest):
        self.calls.append(digest.lang)
        if self.fail:
            raise RuntimeError("no font")
        return None if self.none else ChartImage("labels", f"labels ({digest.lang})", PNG)


def _job(store, chart, *, slack=None, feishu=None, prs=None):
    clock = TestClock(datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc))
    slack = slack if slack is not None else UploadingDelivery(platform="slack", clock=clock)
    feishu = feishu if feishu is not None else UploadingDelivery(platform="feishu", clock=clock, images_in_cards=True,
                                                                 dedup_by_key=True)
    rows = example_prs() if prs is None else prs
    metrics = Metrics()

    def build(cfg, week, langs):
        return build_digest(rows, repo=cfg.repo, week=week, rules=default_rules_for(cfg.repo), tz=cfg.week_tz)

    deliverer = Deliverer(store, {"slack": slack, "feishu": feishu}, clock=clock, sleep=ClockSleeper(clock),
                          metrics=metrics)
    job = DigestJob(parse_config(CONFIG, "t.yaml"), build=build, deliverer=deliverer, clock=clock, chart=chart,
                    metrics=metrics)
    return job, slack, feishu, metrics


def _chart_rows(store):
    return {r.key.platform: r for r in store.deliveries_of(REPO, str(WEEK), CHART)}


def test_slack_gets_the_chart_in_part_1_thread_and_feishu_in_part_1(store):
    chart = Charts()
    job, slack, feishu, metrics = _job(store, chart)
    report = job.run(REPO, week=WEEK)
    assert report.status == "ok"
    assert sorted(chart.calls) == ["en", "zh"]
    # Slack: every part first, then the chart shared into part 1's thread
    part1 = slack.posts[0].message_id
    assert slack.events[-1] == "upload" and slack.events.count("upload") == 1
    assert slack.uploads == [("C_DIGEST", PNG, "labels (en)", part1, "img_1")]
    assert all(not any(isinstance(b, Image) for b in p.card.blocks) for p in slack.posts)
    # Feishu: the upload first, its key shown in part 1 only
    assert feishu.events[0] == "upload" and feishu.uploads[0][3] is None
    images = [[b for b in p.card.blocks if isinstance(b, Image)] for p in feishu.posts]
    assert images[0] == [Image(key="img_1", alt="labels (zh)")] and not any(images[1:])
    rows = _chart_rows(store)
    assert {p: (r.status, r.message_id, r.key.part) for p, r in rows.items()} == {
        "slack": ("sent", "img_1", 1), "feishu": ("sent", "img_1", 1)}
    assert rows["slack"].thread_id == part1
    assert [c.status for c in report.charts] == ["sent", "sent"]
    assert metrics.total("prhub_charts_total") == 2


def test_a_restarted_job_does_not_upload_again_and_feishu_reuses_the_key(store):
    chart = Charts()
    job, slack, feishu, _ = _job(store, chart)
    job.run(REPO, week=WEEK)
    # a new process: everything is in the log; nothing is drawn, uploaded or posted again
    job2, slack2, feishu2, _ = _job(store, chart)
    again = job2.run(REPO, week=WEEK)
    assert again.status == "ok"
    # Slack finds its chart in the log; Feishu's part 1 is already out, so its chart is not considered
    assert [(c.destination.platform, c.status, c.already) for c in again.charts] == [("slack", "sent", True)]
    assert slack2.uploads == [] and feishu2.uploads == [] and slack2.posts == [] and feishu2.posts == []
    assert len(chart.calls) == 2


def test_feishu_upload_done_but_part_1_not_yet_sent_reuses_the_uploaded_key(store):
    clock = TestClock(datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc))
    store.claim_delivery(DeliveryKey(REPO, str(WEEK), "feishu", "oc_chat", CHART, 1), clock.now())
    store.mark_delivery_sent(DeliveryKey(REPO, str(WEEK), "feishu", "oc_chat", CHART, 1), "img_old", None, clock.now())
    chart = Charts()
    job, _, feishu, _ = _job(store, chart)
    job.run(REPO, week=WEEK)
    assert feishu.uploads == [] and chart.calls == ["en"]  # only Slack's chart was drawn
    first = feishu.posts[0].card
    assert [b.key for b in first.blocks if isinstance(b, Image)] == ["img_old"]


def test_failing_uploads_still_deliver_every_part_and_a_later_run_retries_what_still_helps(store):
    chart = Charts()
    clock = TestClock(datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc))
    slack = UploadingDelivery(platform="slack", clock=clock,
                              upload_errors=[DeliveryError("Slack files_upload_v2 failed: internal_error", reason="internal_error")])
    feishu = UploadingDelivery(platform="feishu", clock=clock, images_in_cards=True, dedup_by_key=True,
                               upload_errors=[DeliveryError("Feishu im.v1.image.create failed: 99991000", reason="99991000")])
    job, slack, feishu, metrics = _job(store, chart, slack=slack, feishu=feishu)
    report = job.run(REPO, week=WEEK)
    assert report.status == "ok" and report.problems == []
    assert all(o.status == "sent" for o in report.digests)
    parts = len(slack.posts)
    assert parts >= 2 and len(feishu.posts) == parts
    assert not any(isinstance(b, Image) for p in feishu.posts for b in p.card.blocks)
    assert {p: (r.status, r.reason) for p, r in _chart_rows(store).items()} == {
        "slack": ("failed", "internal_error"), "feishu": ("failed", "99991000")}
    assert metrics.value("prhub_charts_total", platform="slack", outcome="failed") == 1
    # the next run: Slack's thread still takes the chart; Feishu's part 1 is out, so no upload
    job2, slack2, feishu2, _ = _job(store, chart)
    job2.run(REPO, week=WEEK)
    assert [(u[0], u[3]) for u in slack2.uploads] == [("C_DIGEST", slack.posts[0].message_id)]
    assert feishu2.uploads == [] and slack2.posts == [] and feishu2.posts == []
    rows = _chart_rows(store)
    assert rows["slack"].status == "sent" and rows["feishu"].status == "failed"


def test_a_chart_that_cannot_be_drawn_or_is_empty_is_skipped_without_a_log_row(store):
    for chart in (Charts(fail=True), Charts(none=True)):
        job, slack, feishu, _ = _job(store, chart)
        report = job.run(REPO, week=IsoWeek.parse("2026-W21") if chart.none else WEEK)
        assert report.status == "ok" and all(o.status == "sent" for o in report.digests)
        assert slack.uploads == [] and feishu.uploads == []
        assert [c.status for c in report.charts] == (["skipped", "skipped"] if chart.none else ["failed", "failed"])
    assert store.deliveries_of(REPO, str(WEEK), CHART) == [] and store.deliveries_of(REPO, "2026-W21", CHART) == []


def test_an_interrupted_upload_is_not_repeated(store):
    clock = TestClock(datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc))
    for platform, target in (("slack", "C_DIGEST"), ("feishu", "oc_chat")):
        store.claim_delivery(DeliveryKey(REPO, str(WEEK), platform, target, CHART, 1), clock.now())  # left 'sending'
    job, slack, feishu, _ = _job(store, Charts())
    report = job.run(REPO, week=WEEK)
    assert report.status == "ok" and slack.uploads == [] and feishu.uploads == []
    assert [c.status for c in report.charts] == ["skipped", "skipped"]


def test_deliveries_without_upload_image_post_no_chart(store):
    clock = TestClock(datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc))
    chart = Charts()
    job, _, _, _ = _job(store, chart, slack=RecordingDelivery(platform="slack", clock=clock),
                        feishu=RecordingDelivery(platform="feishu", clock=clock))
    report = job.run(REPO, week=WEEK)
    assert report.status == "ok" and report.charts == [] and chart.calls == []
