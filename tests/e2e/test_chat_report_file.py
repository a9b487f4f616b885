"""Asking the chat for the full report (issue 19 item 6): "full report" / "完整报告" through signed
Slack events and encrypted Feishu messages, the bot built by ``prhub.web.create_app`` against the fake
servers. Without a public URL the answer is a short card saying what a link needs, then the report
as a PDF in the same conversation; with one, the link and no file."""

from __future__ import annotations

import json
import logging

from adapters.export.ghjson import load_exports
from chatbot.i18n import tr
from tests.conftest import FIXTURES
from tests.fakes.feishu_server import event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, post, slack_event, slack_form, slack_headers

EXAMPLE = "example-org/example-repo"
TS = "1718000001.000100"


def _ask_slack(bot, text: str, ts: str = TS, channel: str = "C_DIGEST") -> None:
    body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": channel, "ts": ts,
                        "text": f"<@U_BOT> {text}"}, event_id=f"Ev{ts}")
    assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200


def _ask_feishu(bot, text: str, message_id: str = "om_Q1") -> None:
    payload = message_event(token=FEISHU_TOKEN, event_id=f"ev_{message_id}", message_id=message_id, chat_type="p2p",
                            chat_id="oc_P2P", text=text, mentions=[])
    fb, fh = event_request(payload, encrypt_key=FEISHU_KEY)
    assert post(bot.server.url + "/feishu/events", fb, fh).status == 200


def _example_bot(chat_bot, slack, feishu):
    """The example repository answered from the store (its week 2026-W20 stored), no public URL."""
    bot = chat_bot(slack=slack, feishu=feishu, digest_provider=None, prhub_public_url=None,
                   prhub_default_repo=EXAMPLE)
    bot.store.upsert_prs(EXAMPLE, load_exports([str(FIXTURES / "example-repo-week.json")]).prs)
    return bot


def _text(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def test_full_report_without_a_public_url_is_a_card_then_the_pdf_on_slack_and_feishu(chat_bot, slack, feishu):
    bot = _example_bot(chat_bot, slack, feishu)
    _ask_slack(bot, "full report")
    _ask_feishu(bot, "完整报告")
    assert slack.wait_for(lambda: len(slack.files_in("C_DIGEST")) >= 1, timeout=60)
    assert feishu.wait_for(lambda: len(feishu.file_messages()) >= 1, timeout=60)
    bot.settle()
    # Slack: the answer in the question's thread, then the PDF in the same thread
    [answer] = [p for p in slack.posts if p["thread_ts"] == TS]
    assert tr("en", "card.report.header", repo=EXAMPLE, week="2026-W20") in answer["text"]
    assert tr("en", "card.report.file", week="2026-W20") in _text(answer["blocks"]) and "PRHUB_PUBLIC_URL" in answer["text"] + _text(answer["blocks"])
    [f] = slack.files_in("C_DIGEST")
    assert (f["filename"], f["thread_ts"]) == ("example-org-example-repo-2026-W20-en.pdf", TS)
    assert f["data"].startswith(b"%PDF-") and len(f["data"]) > 10_000
    # Feishu: the answer a reply to the question, then the file message, a reply to it too, in Chinese
    replies = feishu.replies_to("om_Q1")
    assert [m["msg_type"] for m in replies] == ["interactive", "file"]
    assert tr("zh", "card.report.file", week="2026-W20") in _text(replies[0]["card"])
    [fm] = feishu.file_messages()
    assert (fm["reply_to"], fm["file"]["file_type"], fm["file"]["file_name"]) == (
        "om_Q1", "pdf", "example-org-example-repo-2026-W20-zh.pdf")
    assert fm["file"]["data"].startswith(b"%PDF-") and len(fm["file"]["data"]) > 10_000


def test_full_report_with_a_public_url_is_the_link_and_no_file(chat_bot, slack, feishu):
    bot = chat_bot(slack=slack, feishu=feishu)  # the real vLLM week, PRHUB_PUBLIC_URL set
    _ask_slack(bot, "report")
    _ask_feishu(bot, "本周完整报告")
    assert slack.wait_for(lambda: any(p["thread_ts"] == TS for p in slack.posts))
    assert feishu.wait_for(lambda: len(feishu.replies_to("om_Q1")) >= 1)
    bot.settle()
    [answer] = [p for p in slack.posts if p["thread_ts"] == TS]
    assert "https://prhub.example.com/reports/vllm-project/vllm/2026-W20" in _text(answer["blocks"])
    [reply] = feishu.replies_to("om_Q1")
    assert "https://prhub.example.com/reports/vllm-project/vllm/2026-W20" in _text(reply["card"])
    assert slack.files == [] and feishu.file_messages() == []


def test_a_failed_file_upload_keeps_the_answer_and_logs_one_line(chat_bot, slack, feishu, caplog):
    bot = _example_bot(chat_bot, slack, feishu)
    slack.fail("files.getUploadURLExternal")  # HTTP 500 at the first step of files_upload_v2
    feishu.fail_files()  # HTTP 500 from im/v1/files
    with caplog.at_level(logging.INFO):
        _ask_slack(bot, "full report")
        _ask_feishu(bot, "完整报告")
        assert slack.wait_for(lambda: any(p["thread_ts"] == TS for p in slack.posts), timeout=30)
        assert feishu.wait_for(lambda: len(feishu.replies_to("om_Q1")) >= 1, timeout=30)
        bot.settle()
    assert slack.files == [] and feishu.file_messages() == []
    assert [m["msg_type"] for m in feishu.replies_to("om_Q1")] == ["interactive"]
    lines = [r.getMessage() for r in caplog.records if "file of example-org/example-repo 2026-W20 was not posted" in r.getMessage()]
    assert len(lines) == 2 and all("\n" not in line for line in lines), lines
    assert not any(s in r.getMessage() for r in caplog.records for s in (slack.token, feishu.app_secret))


def test_the_slash_command_answers_privately_and_sends_the_pdf_to_the_askers_dm(chat_bot, slack, feishu):
    bot = _example_bot(chat_bot, slack, feishu)
    body = slack_form({"command": "/prhub", "text": "full report", "user_id": "U_ALICE", "channel_id": "C_DIGEST",
                       "team_id": "T_TEST", "trigger_id": "trig1", "response_url": slack.response_url("cmd1")})
    r = post(bot.server.url + "/slack/commands", body, slack_headers(body, content_type="application/x-www-form-urlencoded"))
    assert r.status == 200
    assert slack.wait_for(lambda: len(slack.files) >= 1, timeout=60)
    bot.settle()
    [answer] = slack.responses
    assert answer["response_type"] == "ephemeral" and "PRHUB_PUBLIC_URL" in _text(answer["blocks"])
    assert slack.files_in("C_DIGEST") == []  # not shown to the channel
    [f] = slack.files_in("D_ALICE")
    assert (f["filename"], f["thread_ts"]) == ("example-org-example-repo-2026-W20-en.pdf", None)
    assert f["data"].startswith(b"%PDF-")
