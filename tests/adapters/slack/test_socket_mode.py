"""Slack Socket Mode (slack-bolt's SocketModeHandler, slack_sdk's built-in client) against the fake
Socket Mode server: envelopes acked by envelope_id, one answer per event also with two replicas and
a lost ack (Slack redelivers to another connection), a dropped connection reconnected, slash
commands, and an app token Slack refuses."""

from __future__ import annotations

import json
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from chatbot.queries import DigestCache
from prhub.connections import open_connections
from prhub.config import SettingsError
from tests.conftest import week_prs
from tests.fakes.inbound import MovableClock
from tests.fakes.slack_socket import FakeSlackSocket

TS = "1718000000.000100"


def mention(ts: str = TS, text: str = "<@U_BOT> risks this week", event_id: str = "Ev100", kind: str = "app_mention"):
    event = {"type": kind, "user": "U_ALICE", "channel": "C_DIGEST", "ts": ts, "text": text}
    if kind == "message":
        event["channel_type"] = "channel"
    return {"token": "x", "team_id": "T_TEST", "api_app_id": "A_APP", "type": "event_callback",
            "event_id": event_id, "event_time": 1718000000, "event": event}


@pytest.fixture(scope="module")
def provider(vllm_rules):
    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@pytest.fixture
def slack():
    with FakeSlackSocket(ack_timeout=0.4) as fake:
        yield fake


class Replica:
    """One bot process's chat side in Socket Mode: create_app + open_connections on a shared store."""

    def __init__(self, db_url, slack, provider, **settings):
        from adapters.storage import SqlStore
        from prhub.clock import SYSTEM_CLOCK
        from prhub.config import load_settings
        from prhub.web import create_app

        values = {"slack_bot_token": slack.token, "slack_app_token": slack.app_token, "slack_api_url": slack.base_url,
                  "prhub_default_repo": "vllm-project/vllm"}
        values.update(settings)
        self.settings = load_settings(**values)
        self.store = SqlStore.open(db_url, clock=SYSTEM_CLOCK)
        self.pool = ThreadPoolExecutor(max_workers=4)
        clock = MovableClock(max(p.merged_at for p in week_prs("2026-W20")))
        self.app = create_app(self.settings, self.store, clock=clock, digest_provider=provider, executors={"slack": self.pool})
        self.connections = open_connections(self.settings, self.app, timings={"slack": 0.1})

    def close(self):
        self.connections.stop()
        self.app.close()  # the reply outbox's worker and the platform probes
        self.pool.shutdown(wait=True)
        self.store.close()


@pytest.fixture
def replicas(tmp_path, slack, provider):
    made = []

    def make(n=1, **settings):
        for _ in range(n):
            made.append(Replica(f"sqlite:///{tmp_path / 'bot.db'}", slack, provider, **settings))
        slack.wait_connections(len(made))
        return made

    yield make
    for r in made:
        r.close()


def test_mention_is_acked_by_envelope_id_and_answered_once_in_the_thread(replicas, slack):
    (bot,) = replicas(1)
    assert bot.app.endpoints("slack") is None  # no signing secret: no HTTP endpoint, Socket Mode only
    assert bot.connections.describe() == [{"platform": "slack", "mode": "socket", "connected": True}]
    eid = slack.deliver(mention())
    twin = slack.deliver(mention(kind="message", event_id="Ev101"))  # the message twin of the mention
    assert slack.wait_for(lambda: slack.acked(eid) and slack.acked(twin))
    assert slack.wait_for(lambda: len(slack.posts_to("C_DIGEST")) >= 1)
    bot.pool.shutdown(wait=True)
    posts = slack.posts_to("C_DIGEST")
    assert len(posts) == 1 and posts[0]["thread_ts"] == TS
    assert "Risk" in posts[0]["text"] or "risk" in posts[0]["text"]
    # the app token opened the connection; the bot token was never sent to apps.connections.open
    assert [c for c in slack.calls if c[0] == "apps.connections.open"][0][2] is None


def test_two_replicas_and_a_lost_ack_give_one_answer(replicas, slack):
    a, b = replicas(2)
    first, second = slack.connections()
    slack.lose_acks(first)
    eid = slack.deliver(mention(event_id="Ev200"), to=first)
    # not acked in time on the first connection: Slack sends it again to the other one
    assert slack.wait_for(lambda: slack.acked(eid), timeout=5)
    sent = [e for e in slack.envelopes if e["envelope_id"] == eid]
    assert [(e["conn"], e["attempt"]) for e in sent[:2]] == [(first, 0), (second, 1)]
    assert slack.wait_for(lambda: len(slack.posts_to("C_DIGEST")) >= 1)
    for r in (a, b):
        r.pool.shutdown(wait=True)
    assert len(slack.posts_to("C_DIGEST")) == 1


def test_each_replica_answers_the_events_it_gets(replicas, slack):
    replicas(2)
    ids = [slack.deliver(mention(ts=f"1718000000.00020{i}", event_id=f"Ev3{i}")) for i in range(4)]
    assert slack.wait_for(lambda: all(slack.acked(i) for i in ids))
    assert {e["conn"] for e in slack.envelopes} == set(slack.connections())  # round robin over both
    assert slack.wait_for(lambda: len(slack.posts_to("C_DIGEST")) == 4)


def test_dropped_connection_is_reconnected_with_a_new_url(replicas, slack):
    (bot,) = replicas(1)
    (old,) = slack.connections()
    slack.drop(old)
    assert slack.wait_for(lambda: slack.connections() and slack.connections() != [old], timeout=10)
    assert slack.opened == 2  # a fresh apps.connections.open for the new connection
    eid = slack.deliver(mention(event_id="Ev400"))
    assert slack.wait_for(lambda: slack.acked(eid))
    assert slack.wait_for(lambda: len(slack.posts_to("C_DIGEST")) == 1)


def test_refresh_requested_reconnects(replicas, slack):
    replicas(1)
    (old,) = slack.connections()
    slack.refresh(old)
    assert slack.wait_for(lambda: slack.connections() and slack.connections() != [old], timeout=10)
    eid = slack.deliver(mention(event_id="Ev500"))
    assert slack.wait_for(lambda: slack.acked(eid))


def test_slash_command_over_socket_mode_answers_through_response_url(replicas, slack):
    replicas(1)
    payload = {"token": "x", "team_id": "T_TEST", "channel_id": "C_DIGEST", "user_id": "U_ALICE", "command": "/prhub",
               "text": "PR #42202", "response_url": slack.response_url("c1"), "trigger_id": "trig.1"}
    eid = slack.deliver(payload, type="slash_commands")
    assert slack.wait_for(lambda: slack.acked(eid))
    assert slack.wait_for(lambda: len(slack.responses) == 1)
    assert "42202" in json.dumps(slack.responses[0])


def test_a_button_over_socket_mode_is_acked_and_answered_in_the_thread_once(replicas, slack):
    replicas(2)
    payload = {"type": "block_actions", "team": {"id": "T_TEST"}, "user": {"id": "U_ALICE"}, "trigger_id": "t",
               "channel": {"id": "C_DIGEST"}, "message": {"ts": "1718000500.000100"},
               "container": {"type": "message", "message_ts": "1718000500.000100", "channel_id": "C_DIGEST"},
               "actions": [{"action_id": "risks-2-0", "type": "button", "value": '{"week":"2026-W19"}',
                            "action_ts": "1718000501.1"}]}
    first = slack.deliver(payload, type="interactive")
    again = slack.deliver(payload, type="interactive")  # the same press on the other replica
    assert slack.wait_for(lambda: slack.acked(first) and slack.acked(again))
    assert slack.wait_for(lambda: len(slack.posts) >= 1)
    home = {"type": "app_home_opened", "user": "U_ALICE", "channel": "D_HOME", "tab": "home", "event_ts": "1.1"}
    slack.deliver({"token": "x", "team_id": "T_TEST", "api_app_id": "A_APP", "type": "event_callback",
                   "event_id": "Ev900", "event_time": 1718000000, "event": home})
    assert slack.wait_for(lambda: len(slack.views) == 1)
    (reply,) = slack.posts
    assert reply["thread_ts"] == "1718000500.000100" and "No merged PRs found for 2026-W19" in json.dumps(reply["blocks"])
    assert slack.views[0]["view"]["type"] == "home"


def test_a_bot_token_in_slack_app_token_is_refused_in_one_line(tmp_path, slack, provider):
    with pytest.raises(SettingsError) as exc:
        Replica(f"sqlite:///{tmp_path / 'x.db'}", slack, provider, slack_app_token=slack.token)
    assert "(not_allowed_token_type)" in exc.value.user_message and "xapp-" in exc.value.user_message
    assert slack.token not in exc.value.user_message and "\n" not in exc.value.user_message


def test_envelope_types_and_ticket_check(slack):
    """The fake refuses a WebSocket without a valid ticket, as Slack does."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with pytest.raises(InvalidStatus):
        connect(f"ws://127.0.0.1:{slack.ws_port}/link/?ticket=forged")
    assert urllib.parse.urlparse(slack.base_url).hostname == "127.0.0.1"
