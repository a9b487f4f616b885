"""The Slack endpoints (bolt, HTTP mode) against the fake Slack, with signed requests: BR-01, BR-02,
signatures, slash command, block actions, DMs."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from adapters.storage.schema import PROCESSED_EVENTS, SUBSCRIPTIONS
from tests.fakes.inbound import build_bot, post, slack_event, slack_form, slack_headers

TS = "1718000000.000100"
MENTION = {"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": TS, "text": "<@U_BOT> risks this week"}
E1 = slack_event(MENTION, event_id="Ev001")
E3 = slack_event({"type": "message", "channel_type": "channel", "user": "U_ALICE", "channel": "C_DIGEST", "ts": TS,
                  "text": "<@U_BOT> risks this week"}, event_id="Ev002")
E4 = slack_event({"type": "message", "subtype": "bot_message", "bot_id": "B_BOT", "channel": "C_DIGEST",
                  "ts": "1718000001.000200", "text": "Risks this week: …"}, event_id="Ev003")


@pytest.fixture
def bot(chat_bot, slack):
    return chat_bot(slack=slack, prhub_slack_admins="T_TEST:U_ADMIN")


def rows(store, table):
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def events_url(bot):
    return bot.server.url + "/slack/events"


@pytest.mark.parametrize("order", [("E1", "E2", "E3"), ("E3", "E1", "E2")])
def test_br01_retries_and_twins_give_one_reply(tmp_path, slack, clock, provider, order):
    gate = threading.Event()
    entered = threading.Event()

    def wrap(app):
        responder = app.responder
        original = responder.reply

        def slow(*a, **kw):
            entered.set()
            assert gate.wait(10)
            return original(*a, **kw)

        responder.reply = slow

    bot = build_bot(f"sqlite:///{tmp_path / 'bot.db'}", clock=clock, digest_provider=provider, slack=slack,
                    responder_wrap=wrap)
    try:
        bodies = {"E1": (E1, None), "E2": (E1, 1), "E3": (E3, None)}
        for name in order:
            body, retry = bodies[name]
            r = post(events_url(bot), body, slack_headers(body, retry=retry))
            assert r.status == 200 and r.seconds < 3.0, (name, r)
            if name == order[0]:
                assert entered.wait(5)  # the first copy is being answered (and is slow)
        r = post(events_url(bot), E4, slack_headers(E4))
        assert r.status == 200 and r.seconds < 3.0
        assert slack.posts == []  # nothing posted while the work is blocked
        gate.set()
        bot.settle()
        replies = [p for p in slack.posts if p["channel"] == "C_DIGEST" and p["thread_ts"] == TS]
        assert len(replies) == 1
        assert len(slack.posts) == 1
        assert "2026-W20" in replies[0]["blocks"][0]["text"]["text"]
        assert rows(bot.store, PROCESSED_EVENTS) == 1
    finally:
        gate.set()
        bot.close()


def test_bad_signature_and_stale_timestamp_are_401_without_side_effects(bot, slack):
    bad = slack_headers(E1, secret="wrong-secret")
    assert post(events_url(bot), E1, bad).status == 401
    stale = slack_headers(E1, timestamp=int(time.time()) - 6 * 60)
    assert post(events_url(bot), E1, stale).status == 401
    unsigned = {"Content-Type": "application/json"}
    assert post(events_url(bot), E1, unsigned).status == 401
    bot.settle()
    assert slack.posts == []
    assert rows(bot.store, PROCESSED_EVENTS) == 0
    assert [c for c in slack.calls if c[0] == "chat.postMessage"] == []


def test_url_verification_challenge(bot):
    body = json.dumps({"token": "x", "challenge": "ch4llenge", "type": "url_verification"}).encode()
    r = post(events_url(bot), body, slack_headers(body))
    assert r.status == 200 and b"ch4llenge" in r.body


def test_br02_subscribe_takes_the_sender_not_other_mentions(bot, slack):
    body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": "1718000002.000100",
                        "text": "hey <@U_BOT>, subscribe attention"}, event_id="Ev010")
    assert post(events_url(bot), body, slack_headers(body)).status == 200
    body2 = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": "1718000003.000100",
                         "text": "<@U_BOB> <@U_BOT> subscribe Attention "}, event_id="Ev011")
    assert post(events_url(bot), body2, slack_headers(body2)).status == 200
    bot.settle()
    subs = bot.store.subscriptions_of("slack", "T_TEST", "user", "U_ALICE", "vllm-project/vllm")
    assert [s.module for s in subs] == ["attention"]
    assert bot.store.subscriptions_of("slack", "T_TEST", "user", "U_BOB", "vllm-project/vllm") == []
    # the two events are answered by worker threads after the ack: either may be answered first
    texts = [json.dumps(p["blocks"]) for p in slack.posts]
    assert len(texts) == 2
    assert sum("Subscribed you" in t for t in texts) == 1 and sum("already subscribed" in t for t in texts) == 1


def test_channel_subscription_needs_an_admin(bot, slack):
    for i, user in enumerate(("U_ALICE", "U_ADMIN")):
        body = slack_event({"type": "app_mention", "user": user, "channel": "C_DIGEST", "ts": f"171800001{i}.000100",
                            "text": "<@U_BOT> subscribe channel spec-decode"}, event_id=f"Ev02{i}")
        post(events_url(bot), body, slack_headers(body))
    bot.settle()
    by_thread = {p["thread_ts"]: json.dumps(p["blocks"]) for p in slack.posts}  # replies may come in either order
    assert "Only admins" in by_thread["1718000010.000100"] and "Subscribed this channel" in by_thread["1718000011.000100"]
    assert rows(bot.store, SUBSCRIPTIONS) == 1


def test_an_admin_of_one_workspace_is_no_admin_in_another_and_events_without_a_team_are_refused(bot, slack):
    """Issue 9, failure 8: admins are T_TEST:U_ADMIN; the same user id from T_OTHER cannot subscribe a
    channel there; an event without a team id is not answered (nothing stored for workspace "")."""
    other = slack_event({"type": "app_mention", "user": "U_ADMIN", "channel": "C_ELSE", "ts": "1718000020.000100",
                         "text": "<@U_BOT> subscribe channel spec-decode"}, event_id="Ev030", team="T_OTHER")
    assert post(events_url(bot), other, slack_headers(other)).status == 200
    no_team = json.loads(slack_event({"type": "app_mention", "user": "U_ADMIN", "channel": "C_DIGEST",
                                      "ts": "1718000021.000100", "text": "<@U_BOT> subscribe channel spec-decode"},
                                     event_id="Ev031"))
    no_team.pop("team_id")
    raw = json.dumps(no_team).encode()
    assert post(events_url(bot), raw, slack_headers(raw)).status == 200
    bot.settle()
    assert [p["thread_ts"] for p in slack.posts] == ["1718000020.000100"]
    assert "Only admins" in json.dumps(slack.posts[0]["blocks"]) and rows(bot.store, SUBSCRIPTIONS) == 0


def test_dm_is_answered_without_thread_and_unmentioned_channel_chatter_is_not(bot, slack):
    chatter = slack_event({"type": "message", "channel_type": "channel", "user": "U_ALICE", "channel": "C_DIGEST",
                           "ts": "1718000005.000100", "text": "risks this week"}, event_id="Ev030")
    dm = slack_event({"type": "message", "channel_type": "im", "user": "U_ALICE", "channel": "D_ALICE",
                      "ts": "1718000006.000100", "text": "PR #42202"}, event_id="Ev031")
    for body in (chatter, dm):
        assert post(events_url(bot), body, slack_headers(body)).status == 200
    bot.settle()
    assert [p["channel"] for p in slack.posts] == ["D_ALICE"]
    assert slack.posts[0]["thread_ts"] is None
    assert slack.posts[0]["blocks"][0]["text"]["text"] == "PR #42202"
    assert rows(bot.store, PROCESSED_EVENTS) == 1  # the ignored chatter recorded nothing


def test_slash_command_answers_through_response_url(bot, slack):
    body = slack_form({"command": "/prhub", "text": "本周风险", "user_id": "U_ALICE", "channel_id": "C_DIGEST",
                       "team_id": "T_TEST", "trigger_id": "trig1", "response_url": slack.response_url("cmd1")})
    r = post(bot.server.url + "/slack/commands", body, slack_headers(body, content_type="application/x-www-form-urlencoded"))
    assert r.status == 200 and r.seconds < 3.0
    bot.settle()
    assert len(slack.responses) == 1
    assert "2026-W20" in json.dumps(slack.responses[0]["blocks"], ensure_ascii=False)
    assert "风险" in slack.responses[0]["blocks"][0]["text"]["text"]


def test_block_actions_button_answers_in_thread(bot, slack):
    payload = {"type": "block_actions", "team": {"id": "T_TEST"}, "user": {"id": "U_ALICE"},
               "channel": {"id": "C_DIGEST"}, "container": {"type": "message", "message_ts": "1718000100.000100",
                                                             "channel_id": "C_DIGEST"},
               "message": {"ts": "1718000100.000100"}, "trigger_id": "t",
               "actions": [{"action_id": "top_prs-0-0", "value": '{"week":"2026-W20"}', "action_ts": "1718000101.1",
                            "type": "button"}]}
    link = dict(payload, actions=[{"action_id": "open_report-3-0", "action_ts": "1718000102.1", "type": "button",
                                   "url": "https://prhub.example.com/x"}])
    for p in (payload, link):
        body = slack_form({"payload": json.dumps(p)})
        r = post(bot.server.url + "/slack/actions", body, slack_headers(body, content_type="application/x-www-form-urlencoded"))
        assert r.status == 200 and r.seconds < 3.0
    bot.settle()
    assert len(slack.posts) == 1 and slack.posts[0]["thread_ts"] == "1718000100.000100"
    assert "2026-W20" in slack.posts[0]["blocks"][0]["text"]["text"]


def test_answers_in_one_day_later_week_say_so(tmp_path, slack, clock, provider):
    clock.advance(timedelta(days=1))  # Monday of W21: no PRs yet -> last week's, with a notice
    b = build_bot(f"sqlite:///{tmp_path / 'bot.db'}", clock=clock, digest_provider=provider, slack=slack)
    try:
        body = slack_event(dict(MENTION, ts="1718000200.000100"), event_id="Ev040")
        post(b.server.url + "/slack/events", body, slack_headers(body))
        b.settle()
        text = json.dumps(slack.posts[0]["blocks"])
        assert "2026-W21" in text and "2026-W20" in text
    finally:
        b.close()
