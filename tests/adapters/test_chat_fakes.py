"""The fake Slack and Feishu reject what the platforms reject (one negative test per rule of the
shared limits table), and SlackDelivery / FeishuDelivery map errors, 429s and de-duplication."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from adapters.feishu.cards import card_bytes, card_json, request_body_bytes
from adapters.feishu.delivery import FeishuDelivery, feishu_uuid, lark_client
from adapters.slack.delivery import SlackDelivery, web_client
from chatbot.cards import message_card
from chatbot.errors import DeliveryError
from chatbot.ports import Destination
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.limits import RULES
from tests.fakes.slack_server import FakeSlack


def test_our_limits_are_within_the_platforms():
    for rule in RULES.values():
        assert rule.ours <= rule.platform_limit, rule


@pytest.fixture(scope="module")
def slack():
    with FakeSlack() as fake:
        yield fake


@pytest.fixture(scope="module")
def feishu():
    with FakeFeishu(app_id="cli_fakes_test") as fake:
        yield fake


def header(n):
    return {"type": "header", "text": {"type": "plain_text", "text": "h" * n}}


def section(n):
    return {"type": "section", "text": {"type": "mrkdwn", "text": "s" * n}}


def fields(count, n):
    return {"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * n} for _ in range(count)]}


SLACK_CASES = {
    "blocks": dict(text="t", blocks=[section(10)] * 51),
    "section": dict(text="t", blocks=[section(3001)]),
    "header": dict(text="t", blocks=[header(151)]),
    "fields": dict(text="t", blocks=[fields(11, 10)]),
    "field": dict(text="t", blocks=[fields(1, 2001)]),
    "total": dict(text="t", blocks=[section(3000)] * 5),
    "fallback": dict(text="x" * 4001, blocks=[section(10)]),
}


@pytest.mark.parametrize("rule", sorted(SLACK_CASES))
def test_fake_slack_rejects_each_rule(slack, rule):
    client = web_client(slack.token, base_url=slack.base_url)
    with pytest.raises(SlackApiError) as exc:
        client.chat_postMessage(channel="C_X", **SLACK_CASES[rule])
    assert exc.value.response["error"] == RULES[rule].error
    # just within the limit is accepted
    ok = {"blocks": dict(text="t", blocks=[section(10)] * 50), "section": dict(text="t", blocks=[section(3000)]),
          "header": dict(text="t", blocks=[header(150)]), "fields": dict(text="t", blocks=[fields(10, 10)]),
          "field": dict(text="t", blocks=[fields(1, 2000)]), "total": dict(text="t", blocks=[section(3000)] * 4),
          "fallback": dict(text="x" * 4000, blocks=[section(10)])}[rule]
    assert client.chat_postMessage(channel="C_X", **ok)["ok"]


@pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing")
@pytest.mark.parametrize("kwargs,error", [
    (dict(blocks=[section(10)]), "no_text"),
    (dict(text=" ", blocks=[section(10)]), "no_text"),
    (dict(text="t", blocks="[not json"), "invalid_blocks_format"),
    (dict(text="t", blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": ""}}]), "invalid_blocks"),
])
def test_fake_slack_rejects_missing_text_and_bad_blocks(slack, kwargs, error):
    with pytest.raises(SlackApiError) as exc:
        web_client(slack.token, base_url=slack.base_url).chat_postMessage(channel="C_X", **kwargs)
    assert exc.value.response["error"] == error


@pytest.mark.parametrize("token,error", [(None, "not_authed"), ("xoxb-wrong", "invalid_auth")])
def test_fake_slack_rejects_missing_or_invalid_token(slack, token, error):
    client = WebClient(token=token, base_url=slack.base_url, retry_handlers=[])
    with pytest.raises(SlackApiError) as exc:
        client.chat_postMessage(channel="C_X", text="t")
    assert exc.value.response["error"] == error


def test_slack_delivery_posts_with_metadata_and_finds_it(slack):
    d = SlackDelivery(web_client(slack.token, base_url=slack.base_url))
    card = message_card("Digest", ["line <!channel>"], lang="en")
    dest = Destination(platform="slack", target="C_DEL")
    sent = d.send(dest, card, thread=None, delivery_key="digest:vllm:2026-W20:C_DEL:1")
    second = d.send(dest, card, thread=sent.message_id, delivery_key="digest:vllm:2026-W20:C_DEL:2")
    posts = slack.posts_to("C_DEL")
    assert posts[0]["metadata"] == {"event_type": "prhub_delivery", "event_payload": {"key": "digest:vllm:2026-W20:C_DEL:1"}}
    assert posts[1]["thread_ts"] == sent.message_id and second.thread_id == sent.message_id
    assert "&lt;!channel&gt;" in json.dumps(posts[0]["blocks"])
    now = datetime.now(timezone.utc)
    found = d.find_sent(dest, "digest:vllm:2026-W20:C_DEL:1", now)
    assert found is not None and found.message_id == sent.message_id
    assert d.find_sent(dest, "digest:vllm:2026-W20:C_DEL:9", now) is None
    dm = d.send(Destination(platform="slack", target="U_ALICE"), card, thread=None, delivery_key="k-dm")
    assert slack.posts[-1]["channel"] == "D_ALICE" and dm.message_id


def test_slack_client_keeps_one_connection_alive_for_ten_posts():
    """slack_sdk's urllib transport opened one TCP connection per call (ten posts: ten connections)."""
    with FakeSlack() as fake:
        d = SlackDelivery(web_client(fake.token, base_url=fake.base_url))
        card = message_card("Digest", ["x"], lang="en")
        for i in range(10):
            d.send(Destination(platform="slack", target="C_KA"), card, thread=None, delivery_key=f"ka{i}")
        fake.rate_limit("chat.postMessage", 3)  # a 429 answer keeps the connection too
        with pytest.raises(DeliveryError) as exc:
            d.send(Destination(platform="slack", target="C_KA"), card, thread=None, delivery_key="ka-rl")
        assert (exc.value.reason, exc.value.retry_after) == ("ratelimited", 3.0)
        assert len(fake.posts_to("C_KA")) == 10 and fake.tcp_connections == 1


def test_the_socket_mode_fake_reads_each_keep_alive_request_s_own_body():
    """Tester finding: FakeSlackSocket cached the first request's parsed body on the per-connection
    handler, so on a keep-alive connection every later call reused it (channel_not_found)."""
    from tests.fakes.slack_socket import FakeSlackSocket

    with FakeSlackSocket(scopes=frozenset({"chat:write"})) as fake:
        d = SlackDelivery(web_client(fake.token, base_url=fake.base_url))
        card = message_card("Digest", ["x"], lang="en")
        for i, target in enumerate(["C_ONE", "C_TWO", "C_THREE"]):
            d.send(Destination(platform="slack", target=target), card, thread=None, delivery_key=f"ka{i}")
        assert [p["channel"] for p in fake.posts] == ["C_ONE", "C_TWO", "C_THREE"] and fake.tcp_connections == 1


def test_slack_client_reports_an_unreachable_slack_as_a_network_error():
    with FakeSlack() as fake:
        url = fake.base_url
    d = SlackDelivery(web_client("xoxb-x", base_url=url))  # the fake has stopped: connection refused
    with pytest.raises(DeliveryError) as exc:
        d.send(Destination(platform="slack", target="C_X"), message_card("D", ["x"], lang="en"), thread=None,
               delivery_key="k")
    assert exc.value.reason == "network" and not exc.value.permanent
    assert exc.value.user_message == "Slack chat.postMessage failed: URLError (network)"  # as with urllib


def test_slack_delivery_maps_429_and_permanent_errors(slack):
    d = SlackDelivery(web_client(slack.token, base_url=slack.base_url))
    card = message_card("Digest", ["x"], lang="en")
    slack.rate_limit("chat.postMessage", 2)
    with pytest.raises(DeliveryError) as exc:
        d.send(Destination(platform="slack", target="C_RL"), card, thread=None, delivery_key="k1")
    assert (exc.value.reason, exc.value.retry_after, exc.value.permanent) == ("ratelimited", 2.0, False)
    with pytest.raises(DeliveryError) as exc:
        d.send(Destination(platform="slack", target="C_MISSING"), card, thread=None, delivery_key="k2")
    assert exc.value.reason == "channel_not_found" and exc.value.permanent
    bad = SlackDelivery(web_client("xoxb-leaked-looking-token", base_url=slack.base_url))
    with pytest.raises(DeliveryError) as exc:
        bad.send(Destination(platform="slack", target="C_RL"), card, thread=None, delivery_key="k3")
    assert exc.value.reason == "invalid_auth" and exc.value.permanent
    assert "xoxb" not in exc.value.user_message
    with pytest.raises(DeliveryError) as exc:
        d.send(Destination(platform="slack", target="C_RL"), {"text": "t", "blocks": [section(3001)]}, thread=None,
               delivery_key="k4")
    assert exc.value.reason == "invalid_blocks" and exc.value.permanent


def big_card(n_bytes):
    return {"schema": "2.0", "header": {"title": {"tag": "plain_text", "content": "x"}},
            "body": {"elements": [{"tag": "markdown", "content": "字" * (n_bytes // 3)}]}}


def tables_card(n):
    table = "| a | b |\n|---|---|\n| 1 | 2 |"
    return {"schema": "2.0", "body": {"elements": [{"tag": "markdown", "content": table} for _ in range(n)]}}


def test_fake_feishu_rejects_each_rule(feishu):
    d = FeishuDelivery(lark_client(feishu.app_id, feishu.app_secret, domain=feishu.url))
    with pytest.raises(DeliveryError) as exc:
        d.create("oc_X", big_card(30_100), feishu_uuid("big"))
    assert exc.value.reason == RULES["card_bytes"].error and exc.value.permanent
    assert d.create("oc_X", big_card(29_000), feishu_uuid("big-ok"))
    # The limit counts the request body: a card JSON under 30,000 bytes whose quotes, escaped
    # again inside the body's content string, take the body over it is refused too.
    quoted = {"schema": "2.0", "body": {"elements": [{"tag": "markdown", "content": "x"} for _ in range(850)]}}
    assert card_bytes(quoted) < 30_000 < request_body_bytes(quoted, receive_id="oc_X", uuid=feishu_uuid("quoted"))
    with pytest.raises(DeliveryError) as exc:
        d.create("oc_X", quoted, feishu_uuid("quoted"))
    assert exc.value.reason == RULES["card_bytes"].error
    assert feishu.body_sizes[-1] == request_body_bytes(quoted, receive_id="oc_X", uuid=feishu_uuid("quoted"))
    # Chinese goes out as UTF-8 (3 bytes a character), not as ASCII-only JSON's 6-byte \uXXXX:
    # 16,000 bytes of card would be a 32 KB body the default way, and are a 16 KB body here.
    zh = big_card(16_000)
    assert len(json.dumps({"content": card_json(zh)}).encode()) > 30_000
    assert d.create("oc_X", zh, feishu_uuid("zh"))
    assert feishu.body_sizes[-1] == request_body_bytes(zh, receive_id="oc_X", uuid=feishu_uuid("zh")) < 17_000
    with pytest.raises(DeliveryError) as exc:
        d.create("oc_X", tables_card(6), feishu_uuid("tables"))
    assert exc.value.reason == RULES["tables"].error
    assert d.create("oc_X", tables_card(5), feishu_uuid("tables-ok"))
    with pytest.raises(DeliveryError) as exc:
        d.create("oc_X", {"card": big_card(10)}, feishu_uuid("wrapped"))
    assert exc.value.reason == "230099"


def test_fake_feishu_rejects_invalid_card_json(feishu):
    import requests

    token = feishu.tenant_token
    r = requests.post(feishu.url + "/open-apis/im/v1/messages?receive_id_type=chat_id", timeout=5,
                      headers={"Authorization": f"Bearer {token}"},
                      json={"receive_id": "oc_X", "msg_type": "interactive", "content": "{not json"})
    assert r.json()["code"] == 230099
    r = requests.post(feishu.url + "/open-apis/im/v1/messages?receive_id_type=chat_id", timeout=5,
                      json={"receive_id": "oc_X", "msg_type": "interactive", "content": "{}"})
    assert r.json()["code"] == 99991661
    r = requests.post(feishu.url + "/open-apis/im/v1/messages?receive_id_type=chat_id", timeout=5,
                      headers={"Authorization": "Bearer t-wrong"},
                      json={"receive_id": "oc_X", "msg_type": "interactive", "content": "{}"})
    assert r.json()["code"] == 99991663


def test_feishu_delivery_wrong_secret_is_permanent_and_secret_free():
    with FakeFeishu(app_id="cli_wrong_secret") as fake:
        d = FeishuDelivery(lark_client(fake.app_id, "not-the-secret", domain=fake.url))
        with pytest.raises(DeliveryError) as exc:
            d.send(Destination(platform="feishu", target="oc_X"), message_card("h", ["x"], lang="en"), thread=None,
                   delivery_key="k")
        assert exc.value.permanent and "not-the-secret" not in exc.value.user_message


def test_feishu_client_keeps_one_connection_alive_for_ten_sends():
    """The tenant-token fetch and ten sends share one kept-alive connection (lark-oapi's transport
    called requests.request per call: eleven connections)."""
    with FakeFeishu() as fake:
        d = FeishuDelivery(lark_client(fake.app_id, fake.app_secret, domain=fake.url))
        card = message_card("Digest", ["x"], lang="en")
        for i in range(10):
            d.send(Destination(platform="feishu", target="oc_KA"), card, thread=None, delivery_key=f"ka{i}")
        assert len([m for m in fake.messages if m["target"] == "oc_KA"]) == 10 and fake.tcp_connections == 1


def test_feishu_delivery_uuid_dedup_threads_and_throttling(feishu):
    d = FeishuDelivery(lark_client(feishu.app_id, feishu.app_secret, domain=feishu.url))
    dest = Destination(platform="feishu", target="oc_DEL")
    card = message_card("Digest", ["<at id=all></at> [Bugfix] x"], lang="en")
    first = d.send(dest, card, thread=None, delivery_key="digest:vllm:2026-W20:oc_DEL:1")
    again = d.send(dest, card, thread=None, delivery_key="digest:vllm:2026-W20:oc_DEL:1")
    assert again.message_id == first.message_id
    part2 = d.send(dest, card, thread=first.message_id, delivery_key="digest:vllm:2026-W20:oc_DEL:2")
    assert feishu.replies_to(first.message_id)[0]["in_thread"] and part2.thread_id == first.message_id
    sent = [m for m in feishu.messages if m["target"] == "oc_DEL"]
    assert len(sent) == 2 and all(len(m["uuid"]) <= 50 for m in sent)
    assert "<at id=all>" not in json.dumps(sent[0]["card"]["body"])  # markdown elements: entity-escaped
    for kind in ("429", "230020"):
        feishu.throttle(kind, 3)
        with pytest.raises(DeliveryError) as exc:
            d.send(dest, card, thread=None, delivery_key=f"k-{kind}")
        assert exc.value.retry_after == (3.0 if kind == "429" else 1.0) and not exc.value.permanent
    assert d.find_sent(dest, "x", datetime.now(timezone.utc)) is None
    assert d.bot_open_id() == "ou_BOT"
