"""The scheduled bot end to end: real BackgroundScheduler and CronTrigger, the real Slack and Feishu
deliveries against the fake servers, the real store; time moved with time-machine."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED

from chatbot.subscriptions import Subscription
from chatbot.weeks import IsoWeek
from prhub.bot import create_bot
from prhub.config import load_settings
from prhub.web import create_deliveries
from prhub.config import parse_config
from scheduler.config import LoadedConfig
from scheduler.metrics import Metrics
from tests.e2e.bot_support import example_week_dir, platform_env, vllm_dir
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.slack_server import FakeSlack
from tests.scheduler.conftest import db_url, store  # noqa: F401  (fixtures)

SH = ZoneInfo("Asia/Shanghai")


def _config(vllm: str, example: str) -> str:
    return f"""
repositories:
  - repo: vllm-project/vllm
    source: file
    path: {vllm}/{{week}}.json
    schedule: {{cron: "0 9 * * 1", timezone: Asia/Shanghai}}
    destinations:
      - {{slack: C_VLLM}}
      - {{slack: C_ALL, lang: zh}}
      - {{feishu: oc_vllm, lang: zh}}
  - repo: example-org/example-repo
    rules: generic
    source: file
    path: {example}/{{week}}.json
    schedule: {{weekly: "mon 09:30", timezone: Asia/Shanghai}}
    destinations:
      - {{slack: C_EX}}
      - {{feishu: oc_ex}}
      - {{feishu: oc_all, lang: zh}}
admins: {{slack: [T_TEST:U_ADMIN]}}
subscriptions: {{when_empty: skip}}
"""


class _Sleeps:
    def __init__(self):
        self.waits = []

    def __call__(self, seconds):
        self.waits.append(seconds)


def test_two_repositories_three_destinations_across_a_week_boundary(store, tmp_path, monkeypatch):
    vdir = vllm_dir()
    if vdir is None:
        pytest.skip("needs ../shared/data/vllm")
    edir = example_week_dir(tmp_path, ["2026-W19", "2026-W20"])
    loaded = LoadedConfig(config=parse_config(_config(str(vdir), str(edir)), "e2e.yaml"), base_dir=tmp_path)
    monkeypatch.delenv("PRHUB_CONFIG", raising=False)
    monkeypatch.setenv("PRHUB_PUBLIC_URL", "https://prhub.example.com")
    # subscribers: a Slack user following two vLLM modules, a Feishu group following one example module,
    # and a Slack user whose module had no PRs (skipped)
    for module in ("core", "attention", "v1"):
        store.subscribe(Subscription(platform="slack", workspace="T_TEST", kind="user", subscriber="U_ALICE",
                                     repo="vllm-project/vllm", module=module))
    for module in ("source", "tests"):  # PRs 103 and 106 touch both
        store.subscribe(Subscription(platform="feishu", workspace="", kind="channel", subscriber="oc_sub",
                                     repo="example-org/example-repo", module=module))
    store.subscribe(Subscription(platform="slack", workspace="T_TEST", kind="user", subscriber="U_BOB",
                                 repo="example-org/example-repo", module="no-such-module"))
    with FakeSlack() as slack, FakeFeishu() as feishu:
        settings = load_settings(**{k.lower(): v for k, v in platform_env(slack, feishu).items()})
        metrics = Metrics()
        sleeps = _Sleeps()
        bot = create_bot(loaded, store, create_deliveries(settings), sleep=sleeps, metrics=metrics)
        done, errors = [], []
        bot.scheduler.scheduler.add_listener(
            lambda e: e.job_id == "reconcile" or (done.append(e.job_id),
                                                  errors.append(e.exception) if e.code == EVENT_JOB_ERROR else None),
            EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        with time_machine.travel(datetime(2026, 5, 17, 23, 59, 58, tzinfo=SH), tick=True) as t:  # Sunday night
            bot.scheduler.start(catch_up=False)
            try:
                t.move_to(datetime(2026, 5, 18, 8, 59, 59, 600000, tzinfo=SH))  # past the week boundary
                bot.scheduler.wakeup()
                assert slack.wait_for(lambda: len(done) >= 1, timeout=60)
                t.move_to(datetime(2026, 5, 18, 9, 29, 59, 600000, tzinfo=SH))
                bot.scheduler.wakeup()
                assert slack.wait_for(lambda: len(done) >= 2, timeout=60)
                jobs = bot.scheduler.jobs()
            finally:
                bot.scheduler.shutdown()
        # a restarted process runs both jobs again: nothing is posted or uploaded twice
        seen = (len(slack.posts), len(slack.files), len(feishu.messages), len(feishu.images))
        again = create_bot(loaded, store, create_deliveries(settings), sleep=sleeps, metrics=Metrics())
        for repo in ("vllm-project/vllm", "example-org/example-repo"):
            rerun = again.job.run(repo, week=IsoWeek.parse("2026-W20"))
            assert rerun.status == "ok" and all(c.already for c in rerun.charts), rerun
        assert (len(slack.posts), len(slack.files), len(feishu.messages), len(feishu.images)) == seen
    assert errors == [] and sorted(done) == ["digest:example-org/example-repo", "digest:vllm-project/vllm"]
    assert [j.next_run.isoformat() for j in jobs] == ["2026-05-25T09:00:00+08:00", "2026-05-25T09:30:00+08:00"]

    digests = {}
    for repo in ("vllm-project/vllm", "example-org/example-repo"):
        for r in store.deliveries_of(repo, "2026-W20", "digest"):
            digests.setdefault((repo, r.key.platform, r.key.destination), []).append(r)
    assert len(digests) == 6  # 2 repositories x 3 destinations, one week
    for key, rows in digests.items():
        assert [r.key.part for r in rows] == list(range(1, len(rows) + 1))
        assert all(r.status == "sent" and r.message_id for r in rows), key
        assert all(r.thread_id == rows[0].message_id for r in rows), key  # every part in part 1's thread
    assert len(digests[("vllm-project/vllm", "slack", "C_VLLM")]) >= 3

    # Slack: part 1 top level, every other message of the digest in its thread, each part once
    for channel, repo in (("C_VLLM", "vllm-project/vllm"), ("C_ALL", "vllm-project/vllm"), ("C_EX", "example-org/example-repo")):
        posts = slack.posts_to(channel)
        first = posts[0]
        assert first["thread_ts"] is None
        assert all(p["thread_ts"] == first["ts"] for p in posts[1:])
        keys = [p["metadata"]["event_payload"]["key"] for p in posts]
        assert len(keys) == len(set(keys))
        parts = digests[(repo, "slack", channel)]
        assert first["ts"] == parts[0].message_id
    # Feishu: part 1 created in the chat, the others replies to it
    for chat in ("oc_vllm", "oc_ex", "oc_all"):
        msgs = [m for m in feishu.messages if m["target"] == chat]
        assert msgs[0]["reply_to"] is None and all(m["reply_to"] == msgs[0]["message_id"] for m in msgs[1:])
        assert len({m["uuid"] for m in msgs}) == len(msgs)

    # slices: one per subscriber with matches, none for U_BOB
    slices = store.deliveries_of("vllm-project/vllm", "2026-W20", "slice") + \
        store.deliveries_of("example-org/example-repo", "2026-W20", "slice")
    assert sorted((r.key.platform, r.key.destination, r.status) for r in slices) == [
        ("feishu", "oc_sub", "sent"), ("slack", "U_ALICE", "sent")]
    dm = slack.posts_to("D_ALICE")
    assert len(dm) == 1 and dm[0]["thread_ts"] is None
    assert "Your modules" in dm[0]["text"]
    assert slack.posts_to("D_BOB") == []
    [sub] = [m for m in feishu.messages if m["target"] == "oc_sub"]
    listed = [int(n) for n in __import__("re").findall(r"pull/(\d+)\)", sub["content"])]
    assert sorted(set(listed)) == [101, 103, 106, 107]
    # the main chart: uploaded once per destination, recorded in the delivery log as kind "chart"
    charts = {(r.key.repo, r.key.platform, r.key.destination): r
              for repo in ("vllm-project/vllm", "example-org/example-repo")
              for r in store.deliveries_of(repo, "2026-W20", "chart")}
    assert sorted(charts) == sorted(digests)
    assert all(r.status == "sent" and r.key.part == 1 and r.message_id for r in charts.values())
    for channel, repo in (("C_VLLM", "vllm-project/vllm"), ("C_ALL", "vllm-project/vllm"), ("C_EX", "example-org/example-repo")):
        [f] = slack.files_in(channel)  # one file, shared in part 1's thread
        assert f["thread_ts"] == digests[(repo, "slack", channel)][0].message_id
        assert f["data"].startswith(b"\x89PNG") and f["id"] == charts[(repo, "slack", channel)].message_id
    assert slack.files_in("C_ALL")[0]["title"] == "标签分布（PR 数）"
    assert len(slack.files) == 3 and len(feishu.images) == 3
    for chat, repo in (("oc_vllm", "vllm-project/vllm"), ("oc_ex", "example-org/example-repo"), ("oc_all", "example-org/example-repo")):
        msgs = [m for m in feishu.messages if m["target"] == chat]
        first = [e for e in msgs[0]["card"]["body"]["elements"] if e["tag"] == "img"]
        assert [e["img_key"] for e in first] == [charts[(repo, "feishu", chat)].message_id]
        assert feishu.images[first[0]["img_key"]]["data"].startswith(b"\x89PNG")
        assert all('"img_key"' not in m["content"] for m in msgs[1:])
    assert all("img_key" not in m["content"] for m in feishu.messages if m["target"] == "oc_sub")
    assert metrics.value("prhub_charts_total", platform="slack", outcome="sent") == 3
    assert metrics.value("prhub_charts_total", platform="feishu", outcome="sent") == 3
    assert metrics.total("prhub_digests_built_total") == 2  # one digest per repository-week, whatever the languages
    assert metrics.total("prhub_deliveries_failed_total") == 0 and sleeps.waits == []


def test_failing_chart_uploads_through_the_fakes_still_deliver_every_part(store, tmp_path, monkeypatch):
    edir = example_week_dir(tmp_path, ["2026-W20"])
    config = f"""
repositories:
  - repo: example-org/example-repo
    rules: generic
    source: file
    path: {edir}/{{week}}.json
    schedule: {{weekly: "mon 09:30", timezone: Asia/Shanghai}}
    destinations: [{{slack: C_EX}}, {{feishu: oc_ex}}]
admins: {{slack: [T_TEST:U_ADMIN]}}
"""
    loaded = LoadedConfig(config=parse_config(config, "e2e.yaml"), base_dir=tmp_path)
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    week = IsoWeek.parse("2026-W20")
    with FakeSlack() as slack, FakeFeishu() as feishu:
        settings = load_settings(**{k.lower(): v for k, v in platform_env(slack, feishu).items()})
        slack.fail("files.completeUploadExternal")  # HTTP 500 at the last step of files_upload_v2
        feishu.fail_images()  # HTTP 500 from im.v1.image.create
        sleeps = _Sleeps()
        report = create_bot(loaded, store, create_deliveries(settings), sleep=sleeps, metrics=Metrics(),
                            report_files=None).job.run("example-org/example-repo", week=week)  # charts only
        assert report.status == "ok" and report.problems == [] and sleeps.waits == []
        assert [(o.destination.platform, o.status) for o in report.digests] == [("slack", "sent"), ("feishu", "sent")]
        parts = len(report.digests[0].parts)
        assert parts >= 2 and len(slack.posts_to("C_EX")) == parts
        assert len([m for m in feishu.messages if m["target"] == "oc_ex"]) == len(report.digests[1].parts)
        assert slack.files == [] and feishu.images == {}
        assert all('"img_key"' not in m["content"] for m in feishu.messages)
        rows = {r.key.platform: r for r in store.deliveries_of("example-org/example-repo", "2026-W20", "chart")}
        assert {p: (r.status, r.reason) for p, r in rows.items()} == {
            "slack": ("failed", "internal_error"), "feishu": ("failed", "99991000")}

        # restarted: nothing is re-posted; Slack's thread gets its chart now, Feishu's part 1 is already out
        again = create_bot(loaded, store, create_deliveries(settings), sleep=sleeps, metrics=Metrics(),
                           report_files=None).job.run("example-org/example-repo", week=week)
        assert again.status == "ok"
        assert len(slack.posts_to("C_EX")) == parts and feishu.images == {}
        [f] = slack.files_in("C_EX")
        assert f["thread_ts"] == slack.posts_to("C_EX")[0]["ts"] and f["title"] == "Label distribution (PRs)"
