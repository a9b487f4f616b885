"""Issue 9, failures 5 and 6, over HTTP against the real apps and the fakes: a full reply queue
answers "busy" at once; an event that cannot be recorded (database down) is answered so that the
platform retries (Slack 503, Feishu 503), the retry is answered once the database is back, and
/prhub says "temporarily unavailable". SQLite runs in WAL mode with synchronous=NORMAL."""

from __future__ import annotations

import json
import logging
import threading

import pytest
from sqlalchemy import text

from adapters.storage.errors import StoreError
from chatbot.queries import DigestCache
from tests.adapters.test_http_hardening import MENTION, w20_bot
from tests.conftest import week_prs
from tests.fakes.feishu_server import event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, post, slack_event, slack_form, slack_headers


@pytest.fixture(scope="module")
def provider(vllm_rules):
    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@pytest.fixture
def bot(tmp_path, provider):
    with w20_bot(tmp_path, provider, reply_queue=1) as b:
        yield b


def test_sqlite_runs_in_wal_mode_with_synchronous_normal(bot):
    with bot.store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL


def test_a_full_reply_queue_answers_busy_at_once(bot):
    slack = bot.extra["slack"]
    hold = threading.Event()
    bot.app.reply_executors["slack"].submit(hold.wait, 30)  # the one slot is taken by a slow reply
    try:
        body = slack_event(MENTION, event_id="Ev_busy")
        r = post(bot.server.url + "/slack/events", body, slack_headers(body))
        assert r.status == 200 and r.seconds < 3.0
        assert slack.wait_for(lambda: len(slack.posts) == 1, timeout=5)
        assert "busy" in json.dumps(slack.posts[0]["blocks"]) and "2026-W20" not in json.dumps(slack.posts[0]["blocks"])
    finally:
        hold.set()
    bot.settle()


def _down(store, calls: list[int], times: int):
    real = store.claim_event

    def claim(platform, key, now, **kw):
        calls.append(1)
        if len(calls) <= times:
            raise StoreError("database postgresql://x: recording an event failed: OperationalError (check the database)")
        return real(platform, key, now, **kw)

    store.claim_event = claim


def test_database_down_slack_gets_503_and_its_retry_is_answered_once(bot):
    slack = bot.extra["slack"]
    calls: list[int] = []
    _down(bot.store, calls, 1)
    body = slack_event(MENTION, event_id="Ev_db")
    assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 503
    assert slack.posts == []
    for retry in (1, 2):  # Slack retries; the second retry is a duplicate
        assert post(bot.server.url + "/slack/events", body, slack_headers(body, retry=retry)).status == 200
    bot.settle()
    assert len(slack.posts) == 1 and "2026-W20" in json.dumps(slack.posts[0]["blocks"])


def test_database_down_slash_command_says_temporarily_unavailable(bot):
    slack = bot.extra["slack"]
    _down(bot.store, [], 1)
    body = slack_form({"command": "/prhub", "text": "risks this week", "user_id": "U_ALICE", "channel_id": "C_DIGEST",
                       "team_id": "T_TEST", "trigger_id": "trig1", "response_url": slack.response_url("cmd1")})
    r = post(bot.server.url + "/slack/commands", body, slack_headers(body, content_type="application/x-www-form-urlencoded"))
    assert r.status == 200 and b"temporarily unavailable" in r.body
    bot.settle()
    assert slack.responses == []


def test_database_down_feishu_gets_503_and_the_repush_is_answered(bot):
    feishu = bot.extra["feishu"]
    _down(bot.store, [], 1)
    ev = message_event(token=FEISHU_TOKEN, event_id="ev_db", message_id="om_DB")
    body, headers = event_request(ev, encrypt_key=FEISHU_KEY)
    assert post(bot.server.url + "/feishu/events", body, headers).status == 503
    body, headers = event_request(ev, encrypt_key=FEISHU_KEY)
    assert post(bot.server.url + "/feishu/events", body, headers).status == 200
    bot.settle()
    assert len(feishu.messages) == 1


def test_as_many_senders_as_the_reply_queue_are_all_answered_and_waitress_warns_once(tmp_path, provider, caplog):
    """The 32-sender hang: waitress wrote "Task queue depth is N" from its accept loop for every
    request queued behind busy threads; once the log pipe filled, nothing was answered and SIGTERM
    never ran. Through waitress as ``prhub serve`` runs it (2 threads, so requests queue)."""
    from waitress.server import create_server

    caplog.set_level(logging.WARNING, logger="waitress.queue")
    with w20_bot(tmp_path, provider) as b:  # reply queue 32 (the default of 4 x 8 threads)
        slack = b.extra["slack"]
        server = create_server(b.app, host="127.0.0.1", port=0, threads=2)
        runner = threading.Thread(target=server.run, daemon=True)
        runner.start()
        url = f"http://127.0.0.1:{server.effective_port}/slack/events"
        statuses: list[int] = []

        def sender(i: int) -> None:
            for j in range(2):
                ev = {**MENTION, "ts": f"1718000000.{i:03d}{j:03d}"}
                body = slack_event(ev, event_id=f"Ev_load_{i}_{j}")
                statuses.append(post(url, body, slack_headers(body)).status)

        senders = [threading.Thread(target=sender, args=(i,)) for i in range(32)]
        for t in senders:
            t.start()
        for t in senders:
            t.join(30)
        assert statuses == [200] * 64
        assert slack.wait_for(lambda: len(slack.posts) >= 64, timeout=20)
        b.settle()
        threads = sorted(p["thread_ts"] for p in slack.posts)
        assert threads == sorted(f"1718000000.{i:03d}{j:03d}" for i in range(32) for j in range(2))  # one answer each
        queue_lines = [r.getMessage() for r in caplog.records if r.name == "waitress.queue"]
        assert len(queue_lines) == 1, queue_lines[:3]  # requests did queue; one line says so
        server.close()
        runner.join(10)
        assert not runner.is_alive()


def test_ten_answers_are_posted_over_one_kept_alive_connection(bot):
    """bolt hands each listener a new plain WebClient (urllib: a TCP connection per chat.postMessage);
    answers go through the app's one keep-alive client instead."""
    slack = bot.extra["slack"]
    for i in range(10):
        body = slack_event({**MENTION, "ts": f"1718000000.{i:06d}"}, event_id=f"Ev_ka{i}")
        assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200
        assert slack.wait_for(lambda: len(slack.posts) == i + 1, timeout=10)
    posting = slack.tcp_connections - 1  # bolt's own auth.test (once, for the bot's ids) uses its per-request client
    # the fake records a post before it answers, so the next post may start while the previous
    # one still reads its answer: two pooled connections at most (one per post before)
    assert 1 <= posting <= 2, slack.tcp_connections


def test_the_reply_workers_and_the_slack_pool_are_sized_together(tmp_path, provider):
    """Issue 20, crowds: 8 reply workers queued 15-18% of a 20-50-sender crowd into "busy", and the
    Slack Web API pool kept 8 connections for 8 workers plus the HTTP threads that post "busy"
    answers: urllib3 discarded connections ("Connection pool is full"). Both come from one setting."""
    from prhub.web import create_app
    from tests.fakes.slack_server import FakeSlack

    with w20_bot(tmp_path, provider) as b, FakeSlack() as slack:
        from prhub.config import load_settings

        cfg = load_settings(prhub_default_repo="vllm-project/vllm", slack_bot_token=slack.token,
                            slack_signing_secret="s", slack_api_url=slack.base_url)
        app = create_app(cfg, b.store, digest_provider=provider, reply_workers=5, server_threads=3, reply_queue=20)
        try:
            assert app.handle("slack").client._pool.connection_pool_kw["maxsize"] == 8  # 5 workers + 3 threads
            assert app.reply_executors["slack"].inner._max_workers == 5
            assert list(app.reply_executors) == ["slack"]  # a pool per mounted platform only (feishu: not configured)
            assert app.reply_executors["slack"].capacity == 20
        finally:
            app.close()
            for ex in app.reply_executors.values():
                ex.shutdown()
