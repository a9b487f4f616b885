"""The Feishu endpoints (lark-oapi dispatcher) against the fake Feishu, with encrypted and signed
callbacks: BR-06 (re-deliveries over hours and a restart), BR-07 (mentions), URL verification,
bad tokens and signatures, card callbacks."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from adapters.storage.schema import PROCESSED_EVENTS
from tests.fakes.feishu_server import event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, build_bot, post


@pytest.fixture
def bot(chat_bot, feishu):
    return chat_bot(feishu=feishu, prhub_feishu_admins="tenant_T:ou_ADMIN")


def send(bot, payload, path="/feishu/events", **kw):
    body, headers = event_request(payload, encrypt_key=kw.pop("encrypt_key", FEISHU_KEY), **kw)
    return post(bot.server.url + path, body, headers)


def reply_texts(feishu):
    return [json.dumps(m["card"], ensure_ascii=False) for m in feishu.messages]


def test_br06_one_reply_across_hours_and_a_restart(tmp_path, feishu, clock, provider):
    db = f"sqlite:///{tmp_path / 'bot.db'}"
    ev = message_event(token=FEISHU_TOKEN, event_id="ev_A")
    t0 = clock.now()

    def deliver(bot, offset, event_id):
        clock.t = t0 + offset
        r = send(bot, dict(ev, header=dict(ev["header"], event_id=event_id)))
        assert r.status == 200 and r.seconds < 3.0

    bot = build_bot(db, clock=clock, digest_provider=provider, feishu=feishu)
    try:
        deliver(bot, timedelta(0), "ev_A")
        deliver(bot, timedelta(seconds=15), "ev_A")
        deliver(bot, timedelta(minutes=5), "ev_B")
    finally:
        bot.close()
    bot = build_bot(db, clock=clock, digest_provider=provider, feishu=feishu)  # the process restarted
    try:
        deliver(bot, timedelta(hours=1), "ev_C")
        deliver(bot, timedelta(hours=6), "ev_D")
        bot.settle()
        replies = feishu.replies_to("om_TEST1")
        assert len(replies) == 1 and len(feishu.messages) == 1
        assert replies[0]["in_thread"] is True
        assert "2026-W20" in replies[0]["card"]["header"]["title"]["content"]
        with bot.store.engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(PROCESSED_EVENTS)).scalar_one() == 1
    finally:
        bot.close()


MENTIONS_BOT = [{"key": "@_user_1", "id": {"open_id": "ou_BOT"}, "name": "DigestBot"}]


@pytest.mark.parametrize("case,kw,expect", [
    (1, dict(text="@_user_1 risks this week"), "risks"),
    (2, dict(text="@_user_2 @_user_1 subscribe attention",
             mentions=MENTIONS_BOT + [{"key": "@_user_2", "id": {"open_id": "ou_BOB"}, "name": "Bob"}]), "subscribe"),
    (3, dict(text="risks this week", mentions=[]), None),
    (4, dict(chat_type="p2p", chat_id="oc_P2P", text="PR #1234", mentions=[]), "pr"),
    (5, dict(message_type="post", text=None, content=json.dumps({"title": "", "content": [[
        {"tag": "at", "user_id": "@_user_1", "user_name": "DigestBot"}, {"tag": "text", "text": " PR #1234"}]]})), "pr"),
])
def test_br07_mentions_and_formats(bot, feishu, case, kw, expect):
    payload = message_event(token=FEISHU_TOKEN, event_id=f"ev_{case}", message_id=f"om_CASE{case}", **kw)
    r = send(bot, payload)
    assert r.status == 200
    bot.settle()
    texts = reply_texts(feishu)
    assert all("@_user_" not in t for t in texts)
    if expect is None:
        assert texts == []
        return
    assert len(texts) == 1
    if expect == "risks":
        assert "2026-W20" in texts[0]
    elif expect == "subscribe":
        subs = bot.store.subscriptions_of("feishu", "tenant_T", "user", "ou_ALICE", "vllm-project/vllm")
        assert [s.module for s in subs] == ["attention"]
        assert bot.store.subscriptions_of("feishu", "tenant_T", "user", "ou_BOB", "vllm-project/vllm") == []
    else:
        assert "PR #1234" in texts[0]


def test_url_verification_challenge_encrypted_and_plain(bot):
    r = send(bot, {"challenge": "abc123", "token": FEISHU_TOKEN, "type": "url_verification"})
    assert r.status == 200 and r.json() == {"challenge": "abc123"}
    r = send(bot, {"challenge": "abc123", "token": "wrong", "type": "url_verification"})
    assert r.status == 401


def test_bad_token_signature_or_key_are_401_without_reply(bot, feishu):
    r = send(bot, message_event(token="wrong-token", event_id="ev_x1", message_id="om_X1"))
    assert r.status == 401
    r = send(bot, message_event(token=FEISHU_TOKEN, event_id="ev_x2", message_id="om_X2"), sign_key="forged-key")
    assert r.status == 401
    r = send(bot, message_event(token=FEISHU_TOKEN, event_id="ev_x3", message_id="om_X3"), encrypt_key="another-key")
    assert r.status == 401
    bot.settle()
    assert feishu.messages == []
    with bot.store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(PROCESSED_EVENTS)).scalar_one() == 0


def test_messages_from_apps_are_ignored(bot, feishu):
    r = send(bot, message_event(token=FEISHU_TOKEN, sender="ou_BOT", sender_type="app", chat_type="p2p", mentions=[]))
    assert r.status == 200
    bot.settle()
    assert feishu.messages == []


def test_card_action_callback_answers_with_a_toast_then_a_reply(bot, feishu):
    payload = {"schema": "2.0",
               "header": {"event_id": "ev_card1", "token": FEISHU_TOKEN, "event_type": "card.action.trigger",
                          "tenant_key": "tenant_T", "app_id": "cli_app_test", "create_time": "1"},
               "event": {"operator": {"open_id": "ou_ALICE", "tenant_key": "tenant_T"}, "token": "c-1",
                         "action": {"tag": "button", "value": {"action": "top_prs", "value": '{"week":"2026-W20"}'}},
                         "context": {"open_message_id": "om_CARD", "open_chat_id": "oc_GROUP"}}}
    r = send(bot, payload, path="/feishu/card")
    assert r.status == 200 and r.seconds < 3.0
    assert r.json()["toast"]["content"] == "Working on it…"
    r = send(bot, payload, path="/feishu/card")  # a re-push: toast, no second reply
    bot.settle()
    assert len(feishu.replies_to("om_CARD")) == 1


def card_press(event_id, user, action, value, message_id="om_SAME1"):
    return {"schema": "2.0",
            "header": {"event_id": event_id, "token": FEISHU_TOKEN, "event_type": "card.action.trigger",
                       "tenant_key": "tenant_T", "app_id": "cli_app_test", "create_time": "1"},
            "event": {"operator": {"open_id": user, "tenant_key": "tenant_T"}, "token": f"c-{event_id}",
                      "action": {"tag": "button", "value": {"action": action, "value": value}},
                      "context": {"open_message_id": message_id, "open_chat_id": "oc_GROUP"}}}


def test_every_press_on_one_card_is_answered_and_a_redelivered_press_once(bot, feishu):
    """Tester finding: answers to card actions used the uuid reply:{open_message_id}:1, so the fake's
    (Feishu's) 1-hour uuid de-dup swallowed every press after the first on the same card."""
    presses = [card_press("ev_p1", "ou_ALICE", "top_prs", '{"week":"2026-W20"}'),
               card_press("ev_p2", "ou_ALICE", "top_prs", '{"week":"2026-W19"}'),
               card_press("ev_p3", "ou_BOB", "top_prs", '{"week":"2026-W20"}')]
    for p in presses:
        assert send(bot, p, path="/feishu/card").status == 200
    assert send(bot, presses[0], path="/feishu/card").status == 200  # a re-push of the first press
    bot.settle()
    replies = feishu.replies_to("om_SAME1")
    assert len(replies) == 3
    titles = [r["card"]["header"]["title"]["content"] for r in replies]
    # W19 is not in the test store: its answer is the repository's empty-week card
    assert sorted(titles) == ["Top PRs · vllm-project/vllm 2026-W20"] * 2 + ["vllm-project/vllm"]


def test_an_admin_of_one_tenant_is_no_admin_in_another_and_events_without_a_tenant_are_refused(bot, feishu):
    """Issue 9, failure 8 on Feishu: admins are tenant_T:ou_ADMIN; the same open id from another
    tenant cannot subscribe a chat there; an event naming no tenant is not answered."""
    from adapters.storage.schema import SUBSCRIPTIONS

    def subs() -> int:
        with bot.store.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(SUBSCRIPTIONS)).scalar_one())

    ask = "@_user_1 subscribe channel spec-decode"
    assert send(bot, message_event(token=FEISHU_TOKEN, event_id="ev_t1", message_id="om_T1", sender="ou_ADMIN",
                                   tenant_key="tenant_OTHER", text=ask)).status == 200
    assert send(bot, message_event(token=FEISHU_TOKEN, event_id="ev_t2", message_id="om_T2", sender="ou_ADMIN",
                                   tenant_key="", text=ask)).status == 200
    assert feishu.wait_for(lambda: len(feishu.messages) >= 1)
    assert subs() == 0
    assert send(bot, message_event(token=FEISHU_TOKEN, event_id="ev_t3", message_id="om_T3", sender="ou_ADMIN",
                                   tenant_key="tenant_T", text=ask)).status == 200
    bot.settle()
    assert [m["reply_to"] for m in feishu.messages] == ["om_T1", "om_T3"]
    assert "Only admins" in json.dumps(feishu.messages[0]["card"]) and subs() == 1
