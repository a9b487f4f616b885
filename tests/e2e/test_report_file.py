"""The full report as a file when no public URL links to it (issue 19 item 6): the weekly post to a
Slack channel and a Feishu chat through the real slack_sdk / Feishu Open API clients against the fake
servers; the file goes in part 1's thread once, part 1 says so, and a failed upload leaves the post."""

from __future__ import annotations

import json
import logging

from chatbot.i18n import tr
from chatbot.weeks import IsoWeek
from prhub.bot import create_bot
from prhub.config import load_settings, parse_config
from prhub.web import create_deliveries
from scheduler.config import LoadedConfig
from scheduler.delivery import REPORT
from scheduler.metrics import Metrics
from tests.e2e.bot_support import EXAMPLE_REPO, example_config, example_week_dir, platform_env
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.slack_server import FakeSlack
from tests.scheduler.conftest import db_url, store  # noqa: F401  (fixtures)

WEEK = IsoWeek.parse("2026-W20")
ATTACHED_EN = tr("en", "card.report.attached")
ATTACHED_ZH = tr("zh", "card.report.attached")


def _loaded(tmp_path):
    edir = example_week_dir(tmp_path, ["2026-W19", "2026-W20"])
    text = example_config(edir, '{weekly: "mon 09:30", timezone: Asia/Shanghai}')  # Slack C_EX en, Feishu oc_ex zh
    return LoadedConfig(config=parse_config(text, "e2e.yaml"), base_dir=tmp_path)


def _run(loaded, store, slack, feishu, metrics=None):
    settings = load_settings(**{k.lower(): v for k, v in platform_env(slack, feishu).items()})
    bot = create_bot(loaded, store, create_deliveries(settings), sleep=lambda s: None, metrics=metrics or Metrics(),
                     chart=None)
    return bot.job.run(EXAMPLE_REPO, week=WEEK)


def _texts(card) -> str:
    return json.dumps(card, ensure_ascii=False)


def test_without_a_public_url_the_report_follows_part_1_as_a_pdf_on_slack_and_feishu(store, tmp_path, monkeypatch):
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    loaded = _loaded(tmp_path)
    with FakeSlack() as slack, FakeFeishu() as feishu:
        metrics = Metrics()
        report = _run(loaded, store, slack, feishu, metrics)
        assert report.status == "ok" and report.problems == []
        # Slack: part 1 says where the report is, the PDF is shared into part 1's thread after every part
        posts = slack.posts_to("C_EX")
        assert ATTACHED_EN in _texts(posts[0]["blocks"]) and "open_report" not in _texts(posts[0]["blocks"])
        assert all(ATTACHED_EN not in _texts(p["blocks"]) for p in posts[1:])
        [f] = slack.files_in("C_EX")
        assert (f["filename"], f["title"], f["thread_ts"]) == (
            "example-org-example-repo-2026-W20-en.pdf", "example-org/example-repo 2026-W20 full report", posts[0]["ts"])
        assert f["data"].startswith(b"%PDF-") and len(f["data"]) > 10_000
        assert [c[0] for c in slack.calls][-3:] == ["files.getUploadURLExternal", "upload", "files.completeUploadExternal"]
        # Feishu (zh): part 1 in the chat, the file message a reply to it, the report in Chinese
        msgs = [m for m in feishu.messages if m["target"] == "oc_ex" or m["reply_to"]]
        part1 = msgs[0]
        assert part1["reply_to"] is None and ATTACHED_ZH in _texts(part1["card"])
        [fm] = feishu.file_messages()
        assert (fm["reply_to"], fm["file"]["file_type"], fm["file"]["file_name"]) == (
            part1["message_id"], "pdf", "example-org-example-repo-2026-W20-zh.pdf")
        assert fm["file"]["data"].startswith(b"%PDF-") and len(fm["file"]["data"]) > 10_000
        assert fm is not None and msgs[-1]["message_id"] == fm["message_id"]  # after every part
        rows = {r.key.platform: r for r in store.deliveries_of(EXAMPLE_REPO, str(WEEK), REPORT)}
        assert {p: (r.status, r.message_id) for p, r in rows.items()} == {
            "slack": ("sent", f["id"]), "feishu": ("sent", fm["message_id"])}
        assert metrics.value("prhub_report_files_total", platform="slack", outcome="sent") == 1
        assert metrics.value("prhub_report_files_total", platform="feishu", outcome="sent") == 1
        # a second run (a restart, a catch-up) posts and uploads nothing again
        seen = (len(slack.posts), len(slack.files), len(feishu.messages), len(feishu.files))
        again = _run(loaded, store, slack, feishu)
        assert [(o.destination.platform, o.status, o.already) for o in again.files] == [
            ("slack", "sent", True), ("feishu", "sent", True)]
        assert (len(slack.posts), len(slack.files), len(feishu.messages), len(feishu.files)) == seen


def test_with_a_public_url_nothing_is_uploaded_and_part_1_has_the_button(store, tmp_path, monkeypatch):
    monkeypatch.setenv("PRHUB_PUBLIC_URL", "https://prhub.example.com")
    with FakeSlack() as slack, FakeFeishu() as feishu:
        report = _run(_loaded(tmp_path), store, slack, feishu)
        assert report.status == "ok" and report.files == []
        assert slack.files == [] and feishu.files == {} and feishu.file_messages() == []
        first = _texts(slack.posts_to("C_EX")[0]["blocks"])
        assert "https://prhub.example.com/reports/example-org/example-repo/2026-W20" in first
        assert ATTACHED_EN not in first
        assert ATTACHED_ZH not in _texts(feishu.messages[0]["card"])


def test_a_failed_upload_leaves_the_post_logs_one_line_and_a_later_run_posts_the_file(store, tmp_path, monkeypatch,
                                                                                        caplog):
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    loaded = _loaded(tmp_path)
    with FakeSlack() as slack, FakeFeishu() as feishu:
        slack.fail("files.getUploadURLExternal")  # HTTP 500 at the first step of files_upload_v2
        feishu.fail_files()  # HTTP 500 from im/v1/files
        with caplog.at_level(logging.INFO):
            report = _run(loaded, store, slack, feishu)
        assert report.status == "ok" and report.problems == []
        assert [(o.destination.platform, o.status) for o in report.digests] == [("slack", "sent"), ("feishu", "sent")]
        assert all(p.status == "sent" for o in report.digests for p in o.parts)
        assert [(o.destination.platform, o.status) for o in report.files] == [("slack", "failed"), ("feishu", "failed")]
        assert slack.files == [] and feishu.file_messages() == []
        failed = [r.getMessage() for r in caplog.records if "upload failed" in r.getMessage()]
        assert len(failed) == 2 and all(len(line.splitlines()) == 1 for line in failed), failed
        secrets = (slack.token, feishu.app_secret)
        assert not any(s in r.getMessage() for r in caplog.records for s in secrets)
        # the next run posts the two files (the digest itself is not posted again)
        posts = len(slack.posts)
        again = _run(loaded, store, slack, feishu)
        assert [(o.destination.platform, o.status, o.already) for o in again.files] == [
            ("slack", "sent", False), ("feishu", "sent", False)]
        assert len(slack.posts) == posts and len(slack.files_in("C_EX")) == 1 and len(feishu.file_messages()) == 1

