"""Every question answered once, even when the reply fails to send (issue 20, item 0, chat half).

At 12dedfc a Slack ``chat.postMessage`` answering 500 or a Feishu reply meeting a connection error
left the question unanswered for good: the event was acked and claimed, the reply tried once, and the
platform's retries were logged "duplicate, ignored". Now a failed reply goes to the store's outbox
(``reply_outbox``) and is sent again with backoff until it is posted (surviving a restart); a
platform's retry of such an event makes the queued reply due at once; only a posted reply marks the
event answered, and later retries of an answered event stay ignored.

The real app (bolt, lark-oapi) is served on 127.0.0.1 against the fake Slack and Feishu; waits are
scaled down (first retry after 0.02 s, at most 0.1 s apart, the outbox read every 0.02 s).
"""

from __future__ import annotations

import logging

from sqlalchemy import select

from adapters.storage.schema import PROCESSED_EVENTS, REPLY_OUTBOX
from tests.fakes.feishu_server import FakeFeishu, event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, post, slack_event, slack_headers

FAST = (0.02, 0.1, 0.02)
SLOW = (60.0, 300.0, 0.02)  # the queued reply is not due again within the test
MENTION = {"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": "1718000000.000100",
           "text": "<@U_BOT> risks this week"}


def _ask_slack(bot, event_id="Ev1", retry: int = 0):
    body = slack_event(MENTION, event_id=event_id)
    headers = slack_headers(body)
    if retry:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    return post(bot.server.url + "/slack/events", body, headers)


def _answers(slack):
    return [p for p in slack.posts_to("C_DIGEST") if p.get("thread_ts") == MENTION["ts"]]


def _outbox(bot):
    with bot.store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(REPLY_OUTBOX)).mappings()]


def _answered(bot):
    with bot.store.engine.connect() as conn:
        return [r.answered_at is not None for r in conn.execute(select(PROCESSED_EVENTS))]


def test_slack_500_six_times_is_answered_once_by_the_outbox(chat_bot, slack, caplog):
    bot = chat_bot(slack=slack, reply_retry=FAST)
    slack.fail("chat.postMessage", times=6)
    with caplog.at_level(logging.INFO):
        assert _ask_slack(bot).status == 200
        assert slack.wait_for(lambda: len(_answers(slack)) == 1, timeout=10)
        assert slack.wait_for(lambda: _answered(bot) == [True])
        row, = _outbox(bot)
        assert (row["attempts"], row["sent"], row["done_at"] is not None) == (6, True, True)
        assert row["last_error"] == "chat.postMessage: internal_error"
        assert "risk" in _answers(slack)[0]["text"].lower()
        # Slack's retry of the answered event stays ignored: still one answer
        assert _ask_slack(bot, retry=1).status == 200
        bot.settle()
    assert len(_answers(slack)) == 1
    assert any("duplicate, ignored" in r.getMessage() for r in caplog.records)


def test_a_slack_retry_of_an_unanswered_event_takes_its_reply_over(chat_bot, slack, caplog):
    bot = chat_bot(slack=slack, reply_retry=SLOW)
    slack.fail("chat.postMessage", times=1)
    with caplog.at_level(logging.INFO):
        assert _ask_slack(bot).status == 200
        assert slack.wait_for(lambda: len(_outbox(bot)) == 1)
        assert _answers(slack) == [] and _answered(bot) == [False]
        assert _ask_slack(bot, retry=1).status == 200  # Slack retries: the queued reply is sent now
        assert slack.wait_for(lambda: len(_answers(slack)) == 1)
        assert slack.wait_for(lambda: _answered(bot) == [True])
    messages = [r.getMessage() for r in caplog.records]
    assert any("retry of a message whose reply failed: sending its reply now" in m for m in messages)
    assert not any("duplicate, ignored" in m for m in messages)
    assert len(_answers(slack)) == 1


def test_a_reply_queued_before_a_restart_is_sent_by_the_next_process(chat_bot, slack, tmp_path):
    db = f"sqlite:///{tmp_path / 'restart.db'}"
    first = chat_bot(slack=slack, db=db, reply_retry=SLOW)
    slack.fail("chat.postMessage", times=1)
    assert _ask_slack(first).status == 200
    assert slack.wait_for(lambda: len(_outbox(first)) == 1)
    first.close()  # the process stops with the reply queued
    assert _answers(slack) == []
    second = chat_bot(slack=slack, db=db, reply_retry=(0.02, 0.1, 0.02))
    row, = _outbox(second)
    assert row["done_at"] is None
    with second.store.engine.begin() as conn:  # its due time passes (first retry after 60 s in the first process)
        conn.execute(REPLY_OUTBOX.update().values(next_at=row["created_at"]))
    assert slack.wait_for(lambda: len(_answers(slack)) == 1)
    assert slack.wait_for(lambda: _answered(second) == [True])
    assert len(_answers(slack)) == 1


def test_feishu_unreachable_at_start_then_back_answers_the_message_once(chat_bot, clock):
    feishu = FakeFeishu(app_id="cli_app_test", clock=lambda: clock.now().timestamp()).start()
    port = feishu.port
    feishu.stop()  # Feishu is down when the bot starts and when the message arrives
    bot = chat_bot(feishu=_Down(feishu, port), reply_retry=FAST)
    ev = message_event(token=FEISHU_TOKEN, chat_type="p2p", chat_id="oc_P2P", text="risks this week", mentions=[])
    body, headers = event_request(ev, encrypt_key=FEISHU_KEY)
    assert post(bot.server.url + "/feishu/events", body, headers).status == 200
    assert feishu.wait_for(lambda: len(_outbox(bot)) == 1 and _outbox(bot)[0]["attempts"] >= 2, timeout=10)
    assert _answered(bot) == [False]
    feishu.start(port=port)  # back
    try:
        assert feishu.wait_for(lambda: len(feishu.replies_to("om_TEST1")) == 1, timeout=10)
        assert feishu.wait_for(lambda: _answered(bot) == [True])
        assert "2026-W20" in feishu.replies_to("om_TEST1")[0]["card"]["header"]["title"]["content"]
        # Feishu's re-push of the answered message stays ignored
        assert post(bot.server.url + "/feishu/events", *event_request(ev, encrypt_key=FEISHU_KEY)).status == 200
        bot.settle()
        assert len(feishu.messages) == 1
    finally:
        feishu.stop()


def test_a_feishu_reply_that_fails_mid_card_sends_only_the_parts_left(chat_bot, feishu):
    """The outbox keeps what is left: parts posted before a failure are not sent again."""
    bot = chat_bot(feishu=feishu, reply_retry=FAST)
    handlers = bot.app.handle("feishu")
    payload = {"message_id": "om_TEST1", "in_thread": True,
               "parts": [{"card": {"schema": "2.0", "body": {"elements": []}}, "uuid": f"prhub-part-{i}"} for i in (1, 2)]}
    feishu.throttle("230020")  # the first send is refused (Feishu's rate limit code)
    rest = handlers.resend(payload)
    assert rest is not None and [p["uuid"] for p in rest["parts"]] == ["prhub-part-1", "prhub-part-2"]
    assert rest["error"].startswith("reply: ")
    assert handlers.resend(rest) is None
    assert [m["uuid"] for m in feishu.replies_to("om_TEST1")] == ["prhub-part-1", "prhub-part-2"]


class _Down:
    """The fake Feishu's settings for a bot built while the fake is not listening."""

    def __init__(self, fake: FakeFeishu, port: int) -> None:
        self.app_id, self.app_secret, self.url = fake.app_id, fake.app_secret, f"http://127.0.0.1:{port}"



def test_the_worker_stops_with_one_line_when_its_table_is_gone(tmp_path, caplog):
    """A store whose ``reply_outbox`` was dropped under the running worker (a test's database removed
    before its app was closed): the thread ends after one warning instead of logging every poll."""
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from prhub.outbox import StoreOutbox

    with SqlStore.open(f"sqlite:///{tmp_path / 'gone.db'}", clock=SYSTEM_CLOCK) as store:
        with store.engine.begin() as conn:
            REPLY_OUTBOX.drop(conn)
        outbox = StoreOutbox(store, poll=0.01)
        with caplog.at_level(logging.WARNING, logger="prhub.outbox"):
            outbox.start()
            assert outbox._thread is not None
            outbox._thread.join(timeout=10)
            assert not outbox._thread.is_alive()
    gone = [r.getMessage() for r in caplog.records if "reply outbox" in r.getMessage()]
    assert len(gone) == 1 and gone[0].startswith("reply outbox: its table is gone (") and "worker stopped" in gone[0]
