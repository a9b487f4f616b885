"""The store's reply outbox (``reply_outbox``) on SQLite and PostgreSQL: queue, due, lease (one of two
readers wins), finish (marks the event answered in the same transaction), retry now, purge."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

T0 = datetime(2026, 5, 12, 10, 0, tzinfo=timezone.utc)
KEY = "msg:T_TEST:C_DIGEST:1718000000.000100"
PAYLOAD = {"channel": "C_DIGEST", "thread_ts": "1718000000.000100", "messages": [{"text": "t", "blocks": []}]}


def test_a_queued_reply_is_due_leased_once_and_finished_with_its_event(store):
    assert store.claim_event("slack", KEY, T0, owner="h:1:1")
    store.queue_reply("slack", KEY, PAYLOAD, now=T0, next_at=T0 + timedelta(seconds=2), error="chat.postMessage: x")
    assert store.due_replies(T0 + timedelta(seconds=1)) == []
    due, = store.due_replies(T0 + timedelta(seconds=2))
    assert (due.platform, due.key, due.payload, due.attempts, due.error) == ("slack", KEY, PAYLOAD, 1, "chat.postMessage: x")
    assert due.next_at == T0 + timedelta(seconds=2)
    # two senders read it due; one lease wins
    assert store.lease_reply(due, T0 + timedelta(seconds=62)) is True
    assert store.lease_reply(due, T0 + timedelta(seconds=62)) is False
    assert store.due_replies(T0 + timedelta(seconds=61)) == []
    # it failed again: what is left is queued, attempts counted up
    rest = {**PAYLOAD, "messages": []}
    store.queue_reply("slack", KEY, rest, now=T0, next_at=T0 + timedelta(seconds=6), error="network")
    again, = store.due_replies(T0 + timedelta(seconds=6))
    assert (again.attempts, again.payload, again.error) == (2, rest, "network")
    assert store.claim_event("slack", KEY, T0) is False  # still claimed, unanswered
    store.finish_reply("slack", KEY, T0 + timedelta(seconds=7), sent=True)
    assert store.due_replies(T0 + timedelta(days=1)) == []
    assert store.retry_reply_now("slack", KEY, T0) is False  # nothing pending any more
    from sqlalchemy import select

    from adapters.storage.schema import PROCESSED_EVENTS

    with store.engine.connect() as conn:
        answered = conn.execute(select(PROCESSED_EVENTS.c.answered_at)).scalar_one()
    assert answered == T0 + timedelta(seconds=7)


def test_retry_now_makes_a_pending_reply_due_and_purge_forgets_old_ones(store):
    store.queue_reply("feishu", "om_1", {"parts": []}, now=T0, next_at=T0 + timedelta(minutes=5), error="e")
    assert store.retry_reply_now("feishu", "om_1", T0 + timedelta(seconds=1)) is True
    assert [r.key for r in store.due_replies(T0 + timedelta(seconds=1))] == ["om_1"]
    assert store.retry_reply_now("feishu", "om_2", T0) is False
    store.finish_reply("feishu", "om_1", T0, sent=False, error="given up")
    assert store.due_replies(T0 + timedelta(days=1)) == []
    store.purge_events(T0 + timedelta(hours=9))
    from sqlalchemy import func, select

    from adapters.storage.schema import REPLY_OUTBOX

    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(REPLY_OUTBOX)).scalar_one() == 0
