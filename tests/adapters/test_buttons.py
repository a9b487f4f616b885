"""Card buttons and the Slack App Home through the real apps (bolt over HTTP, lark-oapi's
dispatcher), against the fake Slack and the fake Feishu, on the real week 2026-W20: the buttons a
chat answer carries, a press answered in the card's thread (Slack ``block_actions``, Feishu
``card.action.trigger``), untrusted button values answered in one line, and the home view
published, added to and removed from."""

from __future__ import annotations

import json

import pytest

from tests.fakes.feishu_server import event_request
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, post, slack_event, slack_form, slack_headers

REPO = "vllm-project/vllm"


@pytest.fixture
def sbot(chat_bot, slack):
    return chat_bot(slack=slack)


def mention(bot, text, ts, event_id):
    body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": ts,
                        "text": f"<@U_BOT> {text}"}, event_id=event_id)
    assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200


def buttons(blocks):
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"]]


def press(bot, element, *, message_ts="1718000100.000100", action_ts="1718000101.1", container=None, user="U_ALICE"):
    action = {"action_id": element["action_id"], "type": element.get("type", "button")}
    if action_ts is not None:
        action["action_ts"] = action_ts
    for k in ("value", "url", "selected_option"):
        if k in element:
            action[k] = element[k]
    payload = {"type": "block_actions", "team": {"id": "T_TEST"}, "user": {"id": user},
               "container": container or {"type": "message", "message_ts": message_ts, "channel_id": "C_DIGEST"},
               "actions": [action]}
    if container is None:
        payload.update(channel={"id": "C_DIGEST"}, message={"ts": message_ts})
    body = slack_form({"payload": json.dumps(payload)})
    r = post(bot.server.url + "/slack/actions", body, slack_headers(body, content_type="application/x-www-form-urlencoded"))
    assert r.status == 200 and r.seconds < 3.0


def test_answers_carry_buttons_and_a_press_asks_the_same_as_words(sbot, slack):
    mention(sbot, "what changed in attention", "1718000001.000100", "Ev201")
    mention(sbot, "risks 2026-W19", "1718000002.000100", "Ev202")
    mention(sbot, "risks", "1718000003.000100", "Ev203")
    assert slack.wait_for(lambda: len(slack.posts) == 3)
    by_ts = {p["thread_ts"]: p for p in slack.posts}
    module = buttons(by_ts["1718000001.000100"]["blocks"])
    # the module card: subscribe, previous week (2026-W20 is the current week: no "next"), full report
    assert [e["text"]["text"] for e in module] == ["Subscribe to this module", "◀ Previous week", "Full report"]
    assert [e["action_id"].split("-")[0] for e in module] == ["subscribe", "module", "open_report"]
    assert json.loads(module[0]["value"]) == {"module": "attention", "repo": REPO}
    assert json.loads(module[1]["value"]) == {"module": "attention", "repo": REPO, "week": "2026-W19"}
    assert module[2]["url"] == "https://prhub.example.com/reports/vllm-project/vllm/2026-W20"
    w19 = buttons(by_ts["1718000002.000100"]["blocks"])  # an earlier week has both directions
    assert [(e["text"]["text"], json.loads(e["value"])["week"]) for e in w19 if "value" in e] == [
        ("◀ Previous week", "2026-W18"), ("Next week ▶", "2026-W20")]
    risks_now = by_ts["1718000003.000100"]["blocks"]

    press(sbot, module[0])  # subscribe to this module
    press(sbot, w19[1], message_ts="1718000002.000100", action_ts="1718000102.1")  # next week -> this week's risks
    press(sbot, w19[1], message_ts="1718000002.000100", action_ts="1718000102.1")  # Slack's retry: no second answer
    sbot.settle()
    subs = sbot.store.subscriptions_of("slack", "T_TEST", "user", "U_ALICE", REPO)
    assert [s.module for s in subs] == ["attention"]
    replies = {p["thread_ts"]: p for p in slack.posts[3:]}
    assert len(slack.posts) == 5
    assert "Subscribed you" in json.dumps(replies["1718000100.000100"]["blocks"])
    # "Next week ▶" from 2026-W19 answers exactly what "risks" answers in 2026-W20 (same blocks)
    assert replies["1718000002.000100"]["blocks"] == risks_now


def test_presses_without_action_ts_are_told_apart_by_button_value_and_user(sbot, slack):
    """Tester finding: without ``action_ts`` (and ``trigger_id``) every press on one message had the
    same de-duplication key, so all but the first were "duplicate, ignored"."""
    w20, w19 = '{"week":"2026-W20"}', '{"week":"2026-W19"}'
    press(sbot, {"action_id": "top_prs-0-0", "value": w20}, action_ts=None)
    press(sbot, {"action_id": "top_prs-0-0", "value": w20}, action_ts=None)  # the same press again: ignored
    press(sbot, {"action_id": "top_prs-0-0", "value": w19}, action_ts=None)  # another week
    press(sbot, {"action_id": "risks-1-0", "value": w20}, action_ts=None)  # another button
    press(sbot, {"action_id": "top_prs-0-0", "value": w20}, action_ts=None, user="U_BOB")  # another user
    sbot.settle()
    assert len(slack.posts) == 4


BAD_VALUES = [
    ("risks", '{"week":"2026-W60"}', "does not exist or has not begun"),  # no such ISO week
    ("risks", '{"week":"2026-W21"}', "does not exist or has not begun"),  # the week after the current one
    ("subscribe", '{"module":"no-such-module"}', "module this repository does not have"),
    ("subscribe", '{"module":"attention","channel":true}', "not known"),  # extra fields: refused, not obeyed
    ("risks", '{"repo":"someone/else","week":"2026-W19"}', "repository this bot does not answer about"),
    ("risks", "[" * 1999, "not known"),  # Slack's longest value, nested too deep
    ("approve", "{}", "not known"),  # no such handler without approval configured
]


def test_untrusted_button_values_get_one_line(sbot, slack):
    for i, (action, value, want) in enumerate(BAD_VALUES):
        press(sbot, {"action_id": f"{action}-0-0", "value": value}, message_ts=f"17180002{i:02d}.000100",
              action_ts=f"17180003{i:02d}.1")
    sbot.settle()
    got = {p["thread_ts"]: p for p in slack.posts}
    assert len(got) == len(BAD_VALUES)
    for i, (_, _, want) in enumerate(BAD_VALUES):
        blocks = got[f"17180002{i:02d}.000100"]["blocks"]
        lines = [b["text"]["text"] for b in blocks if b["type"] == "section"]
        assert len(lines) == 1 and want in lines[0], (i, lines)
    assert sbot.store.subscriptions_of("slack", "T_TEST", "channel", "C_DIGEST", REPO) == []


def test_the_weekly_digest_card_offers_more_risks_and_the_previous_week(provider):
    from chatbot.actions import digest_buttons
    from chatbot.cards import digest_cards
    from chatbot.weeks import IsoWeek

    d = provider.digest(IsoWeek(2026, 20), "zh")
    first = digest_buttons(digest_cards(d, report_url="https://r.example/x")[0], d)
    row = first.blocks[-1]
    assert [b.label for b in row.buttons] == ["更多风险", "◀ 上一周", "完整报告"]
    assert [(b.action.id, b.action.value) for b in row.buttons if b.action] == [
        ("risks", '{"lang":"zh","repo":"vllm-project/vllm","week":"2026-W20"}'),
        ("summary", '{"lang":"zh","repo":"vllm-project/vllm","week":"2026-W19"}')]


# -- Slack App Home ---------------------------------------------------------------------------


def home_opened(bot, user="U_ALICE", event_id="Ev300", tab="home"):
    body = slack_event({"type": "app_home_opened", "user": user, "channel": "D_HOME", "tab": tab,
                        "event_ts": "1718000400.1"}, event_id=event_id)
    assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200


def test_app_home_lists_subscriptions_with_add_and_remove(sbot, slack):
    sbot.store.subscribe(__import__("chatbot.subscriptions", fromlist=["Subscription"]).Subscription(
        platform="slack", workspace="T_TEST", kind="user", subscriber="U_ALICE", repo=REPO, module="spec-decode"))
    home_opened(sbot)
    home_opened(sbot, event_id="Ev301", tab="messages")  # the Messages tab: nothing published
    assert slack.wait_for(lambda: len(slack.views) == 1)
    assert [v["user_id"] for v in slack.views] == ["U_ALICE"]
    view = slack.home_of("U_ALICE")
    subs = [b for b in view["blocks"] if b.get("block_id", "").startswith("sub-")]
    assert [b["accessory"]["text"]["text"] for b in subs] == ["Remove"]
    assert "spec-decode" in subs[0]["text"]["text"]
    (select,) = [e for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    values = [json.loads(o["value"])["module"] for o in select["options"]]
    assert "attention" in values and "spec-decode" not in values
    home = {"type": "view", "view_id": "V0001"}

    pick = dict(select, selected_option=next(o for o in select["options"] if '"attention"' in o["value"]))
    press(sbot, pick, container=home, action_ts="1718000401.1")
    assert slack.wait_for(lambda: len(slack.views) == 2)
    mods = [s.module for s in sbot.store.subscriptions_of("slack", "T_TEST", "user", "U_ALICE", REPO)]
    assert mods == ["attention", "spec-decode"]
    view = slack.home_of("U_ALICE")
    subs = [b for b in view["blocks"] if b.get("block_id", "").startswith("sub-")]
    assert len(subs) == 2 and len(slack.views) == 2

    (spec,) = [b for b in subs if "spec-decode" in b["text"]["text"]]
    press(sbot, spec["accessory"], container=home, action_ts="1718000402.1")  # remove spec-decode
    sbot.settle()
    assert [s.module for s in sbot.store.subscriptions_of("slack", "T_TEST", "user", "U_ALICE", REPO)] == ["attention"]
    assert len(slack.views) == 3 and slack.posts == []  # home presses answer in the home, not in a channel


def test_fake_views_publish_refuses_what_slack_refuses():
    from tests.fakes.slack_server import check_view

    ok = {"type": "home", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}]}
    assert check_view(ok) is None
    assert check_view(dict(ok, type="modal")) == "invalid_arguments"
    assert check_view(dict(ok, blocks=ok["blocks"] * 101)) == "invalid_arguments"
    assert check_view(dict(ok, blocks=ok["blocks"] * 100)) is None
    sel = {"type": "static_select", "action_id": "a", "placeholder": {"type": "plain_text", "text": "p"},
           "options": [{"text": {"type": "plain_text", "text": f"o{i}"}, "value": f"v{i}"} for i in range(101)]}
    assert check_view(dict(ok, blocks=[{"type": "actions", "elements": [sel]}])) == "invalid_arguments"
    sel["options"] = sel["options"][:100]
    assert check_view(dict(ok, blocks=[{"type": "actions", "elements": [sel]}])) is None


def test_home_view_of_many_modules_stays_within_the_limits(vllm_rules):
    from adapters.slack.home import home_view
    from chatbot.home import Home, HomeModule, HomeRepo
    from tests.fakes.slack_server import check_view

    mods = tuple(HomeModule(id=f"m{i}", name="名" * 80, value=json.dumps({"module": f"m{i}"})) for i in range(150))
    home = Home(lang="en", title="prhub", intro="i", none="n", add="Add", remove="Remove",
                repos=(HomeRepo(repo="a/b", subscribed=mods, available=mods), HomeRepo(repo="c/d", available=mods)))
    view = home_view(home)
    assert check_view(view) is None and len(view["blocks"]) == 100


# -- Feishu card callbacks over HTTP ------------------------------------------------------------


def card_action(value, event_id):
    return {"schema": "2.0",
            "header": {"event_id": event_id, "token": FEISHU_TOKEN, "event_type": "card.action.trigger",
                       "tenant_key": "tenant_T", "app_id": "cli_app_test", "create_time": "1"},
            "event": {"operator": {"open_id": "ou_ALICE", "tenant_key": "tenant_T"}, "token": "c-1",
                      "action": {"tag": "button", "value": value},
                      "context": {"open_message_id": f"om_{event_id}", "open_chat_id": "oc_GROUP"}}}


def test_feishu_buttons_are_callbacks_and_a_press_is_answered(chat_bot, feishu):
    from adapters.feishu.messages import cards_to_feishu
    from chatbot.actions import ActionValue, button, encode
    from chatbot.cards import Actions, Card

    bot = chat_bot(feishu=feishu)
    b = button("zh", "card.button.subscribe", "subscribe", ActionValue(repo=REPO, module="attention", lang="zh"))
    (card,) = cards_to_feishu([Card(header="h", blocks=(Actions(buttons=(b,)),))])
    (el,) = [e for e in card["body"]["elements"] if e["tag"] == "button"]
    assert b.action.value == encode(ActionValue(repo=REPO, module="attention", lang="zh"))
    assert b.action.value == '{"lang":"zh","module":"attention","repo":"vllm-project/vllm"}'
    assert el["behaviors"] == [{"type": "callback", "value": {"action": "subscribe", "value": b.action.value}}]
    for eid, value in (("ev_b1", el["behaviors"][0]["value"]), ("ev_b2", {"action": "risks", "value": '{"week":"2026-W60"}'}),
                       ("ev_b3", {"action": "Bad Id!", "value": ""})):
        body, headers = event_request(card_action(value, eid), encrypt_key=FEISHU_KEY)
        r = post(bot.server.url + "/feishu/card", body, headers)
        assert r.status == 200 and r.seconds < 3.0
        want = "error" if eid == "ev_b3" else "info"
        assert r.json()["toast"]["type"] == want
    bot.settle()
    assert [s.module for s in bot.store.subscriptions_of("feishu", "tenant_T", "user", "ou_ALICE", REPO)] == ["attention"]
    (done,) = feishu.replies_to("om_ev_b1")
    assert "已为你订阅 vllm-project/vllm 的" in json.dumps(done["card"], ensure_ascii=False)
    (bad,) = feishu.replies_to("om_ev_b2")
    assert "does not exist or has not begun" in json.dumps(bad["card"])
    assert feishu.replies_to("om_ev_b3") == []
