"""The Feishu/Lark long connection (lark-oapi's ws.Client in a daemon thread) against the fake
long-connection server speaking lark's protobuf frames: events answered once (also split in parts
and redelivered), card callbacks answered with a toast in the ack frame, a dropped connection
reconnected with injected backoffs, refused credentials, and a clean stop."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from adapters.feishu.long_connection import Backoff, FeishuLongConnection
from chatbot.queries import DigestCache
from prhub.connections import open_connections
from tests.conftest import week_prs
from tests.fakes.feishu_server import message_event
from tests.fakes.feishu_ws import FakeFeishuWs
from tests.fakes.inbound import MovableClock

FAST = Backoff(interval_seconds=0.05, jitter_seconds=0.0, ping_seconds=0.2)


@pytest.fixture(scope="module")
def provider(vllm_rules):
    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@pytest.fixture
def feishu():
    with FakeFeishuWs(app_id="cli_app_test", ack_timeout=0.5) as fake:
        yield fake


@pytest.fixture
def bot(tmp_path, feishu, provider):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from prhub.config import load_settings
    from prhub.web import create_app

    settings = load_settings(feishu_app_id=feishu.app_id, feishu_app_secret=feishu.app_secret,
                             feishu_api_url=feishu.url, prhub_default_repo="vllm-project/vllm")
    store = SqlStore.open(f"sqlite:///{tmp_path / 'bot.db'}", clock=SYSTEM_CLOCK)
    pool = ThreadPoolExecutor(max_workers=4)
    clock = MovableClock(max(p.merged_at for p in week_prs("2026-W20")))
    app = create_app(settings, store, clock=clock, digest_provider=provider, executors={"feishu": pool})
    conns = open_connections(settings, app, timings={"feishu": FAST})
    feishu.wait_connections(1)
    assert feishu.wait_for(lambda: conns.describe()[0]["connected"])  # the client has taken the socket
    yield type("Bot", (), {"app": app, "store": store, "pool": pool, "connections": conns})
    conns.stop()
    app.close()  # the reply outbox's worker and the platform probes
    pool.shutdown(wait=True)
    store.close()


def texts(feishu):
    return [json.dumps(m["card"], ensure_ascii=False) for m in feishu.messages]


def test_group_mention_is_acked_in_the_frame_and_answered_once(bot, feishu):
    assert bot.app.endpoints("feishu") is None  # no verification token: no HTTP callbacks, the long connection only
    assert bot.connections.describe() == [{"platform": "feishu", "mode": "long", "connected": True}]
    ev = message_event(token="", event_id="ev_L1", message_id="om_L1", text="@_user_1 风险 2026-W20")
    mid = feishu.deliver(ev)
    assert feishu.wait_for(lambda: any(a["code"] == 200 for a in feishu.acks_of(mid)))
    assert feishu.wait_for(lambda: len(feishu.replies_to("om_L1")) >= 1)
    bot.pool.shutdown(wait=True)
    replies = feishu.replies_to("om_L1")
    assert len(replies) >= 1 and all(r["in_thread"] for r in replies)
    assert "风险" in texts(feishu)[0]


def test_an_event_split_in_frames_and_redelivered_is_answered_once(bot, feishu):
    ev = message_event(token="", event_id="ev_L2", message_id="om_L2", text="@_user_1 PR #42202")
    feishu.deliver(ev, parts=3)
    feishu.deliver(ev)  # Feishu pushes it again (same message_id, maybe a new event id)
    feishu.deliver(dict(ev, header=dict(ev["header"], event_id="ev_L2b")))
    assert feishu.wait_for(lambda: len(feishu.ws_acks) >= 3)
    bot.pool.shutdown(wait=True)
    assert len(feishu.replies_to("om_L2")) == 1
    assert "42202" in texts(feishu)[0]


def test_card_callback_answers_a_toast_in_the_ack_then_replies(bot, feishu):
    ev = {"schema": "2.0", "header": {"event_id": "ev_card1", "event_type": "card.action.trigger", "token": "",
                                      "create_time": "1718000000000", "tenant_key": "tenant_T", "app_id": feishu.app_id},
          "event": {"operator": {"open_id": "ou_ALICE", "tenant_key": "tenant_T"},
                    "action": {"tag": "button", "value": {"action": "risks", "value": '{"week":"2026-W20"}'}},
                    "context": {"open_message_id": "om_CARD", "open_chat_id": "oc_GROUP"}}}
    mid = feishu.deliver(ev)
    assert feishu.wait_for(lambda: feishu.acks_of(mid))
    ack = feishu.acks_of(mid)[0]
    assert ack["code"] == 200 and ack["data"]["toast"]["type"] == "info"
    assert feishu.wait_for(lambda: len(feishu.replies_to("om_CARD")) >= 1)


def test_dropped_connection_reconnects_with_the_injected_backoff(bot, feishu):
    (old,) = feishu.connections()
    feishu.drop(old)
    assert feishu.wait_for(lambda: feishu.connections() and feishu.connections() != [old], timeout=5)
    assert feishu.endpoint_calls == 2  # a fresh endpoint (and ticket) for the new connection
    ev = message_event(token="", event_id="ev_L3", message_id="om_L3", chat_type="p2p", mentions=[],
                       text="top PRs 2026-W20")
    feishu.deliver(ev)
    assert feishu.wait_for(lambda: len(feishu.replies_to("om_L3")) >= 1)


def test_unacked_frame_is_redelivered_to_the_live_connection(bot, feishu):
    """The fake sends to a connection that is gone; without an answer it pushes again."""
    ev = message_event(token="", event_id="ev_L4", message_id="om_L4", text="@_user_1 contributors 2026-W20")
    mid = feishu.deliver(ev, to=999)  # no such connection: lost
    assert feishu.wait_for(lambda: any(a["code"] == 200 for a in feishu.acks_of(mid)), timeout=5)
    assert [f["attempt"] for f in feishu.frames_sent if f["message_id"] == mid][:2] == [0, 1]
    assert feishu.wait_for(lambda: len(feishu.replies_to("om_L4")) == 1)


def test_pings_use_the_injected_interval(bot, feishu):
    assert feishu.wait_for(lambda: feishu.pings >= 2, timeout=3)


def test_wrong_secret_ends_the_connection_with_the_error(feishu):
    import lark_oapi as lark

    lc = FeishuLongConnection(lark.EventDispatcherHandler.builder("", "").build(), app_id=feishu.app_id,
                              app_secret="wrong", domain=feishu.url, backoff=FAST)
    lc.start()
    lc._thread.join(5)
    assert not lc._thread.is_alive() and "app secret invalid" in str(lc.error)
    assert feishu.connections() == []


def test_one_long_connection_per_process_and_a_clean_stop(bot, feishu):
    import lark_oapi as lark

    other = FeishuLongConnection(lark.EventDispatcherHandler.builder("", "").build(), app_id=feishu.app_id,
                                 app_secret=feishu.app_secret, domain=feishu.url, backoff=FAST)
    with pytest.raises(RuntimeError, match="already runs"):
        other.start()
    bot.connections.stop()
    assert feishu.wait_for(lambda: feishu.connections() == [], timeout=5)
