"""An exception in any request handler is a JSON 5xx and one log line, never an HTML page or a
traceback (issue 20, item 1), route by route, on the real app (bolt, lark-oapi, Flask) served on
127.0.0.1: the chat endpoints with an event log that raises, the report pages with a store that
raises, ``/healthz`` and ``/metrics`` of ``prhub serve`` with a store and metrics that raise."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request

import pytest
from werkzeug.test import Client

from tests.fakes.feishu_server import event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, Server, post, slack_event, slack_form, slack_headers


def _broken(*_a, **_k):
    raise RuntimeError("the store went away")


def _no_traceback(caplog) -> None:
    assert not any(r.exc_info or "Traceback" in r.getMessage() for r in caplog.records)


def _slack_event():
    body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": "1718000000.000100",
                        "text": "<@U_BOT> risks"}, event_id="Ev1")
    return "/slack/events", body, slack_headers(body)


def _slack_command():
    form = slack_form({"command": "/prhub", "text": "risks", "team_id": "T_TEST", "user_id": "U_ALICE",
                       "channel_id": "C_DIGEST", "trigger_id": "trig1"})
    return "/slack/commands", form, slack_headers(form, content_type="application/x-www-form-urlencoded")


def _feishu_message():
    ev = message_event(token=FEISHU_TOKEN, chat_type="p2p", chat_id="oc_P2P", text="risks", mentions=[])
    return ("/feishu/events", *event_request(ev, encrypt_key=FEISHU_KEY))


@pytest.mark.parametrize("request_of", [_slack_event, _slack_command, _feishu_message],
                         ids=["slack-events", "slack-commands", "feishu-events"])
def test_a_chat_endpoint_whose_event_log_raises_answers_a_json_500(chat_bot, slack, feishu, caplog, request_of):
    bot = chat_bot(slack=slack, feishu=feishu)
    bot.app.chat.events.claim_event = _broken
    path, body, headers = request_of()
    with caplog.at_level(logging.INFO):
        r = post(bot.server.url + path, body, headers)
        bot.settle()
    assert r.status == 500 and json.loads(r.body)["error"].lower() in ("internal error", "internal server error"), \
        (r.status, r.body)
    errors = [rec.getMessage() for rec in caplog.records if rec.levelno >= logging.ERROR]
    assert len(errors) == 1 and "the store went away" in errors[0], errors
    _no_traceback(caplog)
    assert slack.posts == [] and feishu.messages == []


def test_a_report_page_whose_store_raises_answers_a_json_500(tmp_path, caplog):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from prhub.report import create_reports_app
    from prhub.web import ChatApp

    with SqlStore.open(f"sqlite:///{tmp_path / 'r.db'}", clock=SYSTEM_CLOCK) as store:
        store.newest_merged_at = _broken  # type: ignore[method-assign]  # the page's first read
        server = Server(ChatApp(fallback=create_reports_app(store)))
        try:
            with caplog.at_level(logging.INFO):
                try:
                    urllib.request.urlopen(server.url + "/reports/vllm-project/vllm/2026-W20", timeout=10)
                    status, body, ctype = 200, b"", ""
                except urllib.error.HTTPError as e:
                    status, body, ctype = e.code, e.read(), e.headers["Content-Type"]
        finally:
            server.stop()
    assert (status, json.loads(body), ctype) == (500, {"error": "internal error"}, "application/json")
    errors = [rec.getMessage() for rec in caplog.records if rec.levelno >= logging.ERROR]
    assert errors == ["GET /reports/vllm-project/vllm/2026-W20: RuntimeError: the store went away"]
    _no_traceback(caplog)


def test_healthz_and_metrics_whose_parts_raise_answer_json(tmp_path, caplog):
    from pathlib import Path

    from adapters.storage import SqlStore
    from prhub.bot import create_bot, create_web_app
    from prhub.clock import SYSTEM_CLOCK
    from prhub.config import parse_config
    from scheduler.config import LoadedConfig
    from scheduler.metrics import Metrics
    from tests.scheduler.harness import BR10

    with SqlStore.open(f"sqlite:///{tmp_path / 'h.db'}", clock=SYSTEM_CLOCK) as store:
        bot = create_bot(LoadedConfig(config=parse_config(BR10, "t.yaml"), base_dir=Path(".")), store, {}, chart=None,
                         metrics=Metrics())  # its own: the process-wide METRICS must not stay broken
        store.probe = _broken  # type: ignore[method-assign]
        bot.metrics.render = _broken  # type: ignore[method-assign]
        client = Client(create_web_app(bot))
        with caplog.at_level(logging.INFO):
            health = client.get("/healthz")
            metrics = client.get("/metrics")
    assert health.status_code == 503 and health.get_json()["store"] == "error: RuntimeError"
    assert (metrics.status_code, metrics.get_json()) == (500, {"error": "internal error"})
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == [
        "GET /metrics: RuntimeError: the store went away"]
    _no_traceback(caplog)
