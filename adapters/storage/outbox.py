"""The reply outbox in the store (:mod:`chatbot.outbox`): chat replies that failed to send, kept for
another try."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from adapters.storage.engine import StorePort, check_aware, event_key
from adapters.storage.schema import PROCESSED_EVENTS, REPLY_OUTBOX
from chatbot.outbox import PendingReply


class SqlReplyOutbox(StorePort):
    """The ``reply_outbox`` table: queue, lease, finish or retry a pending reply; a sent one marks its
    event answered in the same transaction."""

    def queue_reply(self, platform: str, key: str, payload: dict[str, Any], *, now: datetime, next_at: datetime,
                    error: str) -> None:
        """Keep what is left of the reply to ``key`` for another send at ``next_at``: a new row (one
        attempt), or the pending row's payload replaced and its attempts counted up (an upsert on
        ``(platform, event_key)``).

        Raises:
            ValueError: a naive datetime. StoreError: a database error (nothing was written).
        """
        check_aware("now", now)
        check_aware("next_at", next_at)
        t = REPLY_OUTBOX
        with self._errors("queueing a reply", writing=True), self._engine.begin() as conn:
            ins = self._insert(conn)(t).values(platform=platform, event_key=event_key(key), payload=payload,
                                               attempts=1, next_at=next_at, created_at=now, last_error=error[:300],
                                               done_at=None, sent=False)
            conn.execute(ins.on_conflict_do_update(
                index_elements=[t.c.platform, t.c.event_key],
                set_={"payload": ins.excluded.payload, "next_at": ins.excluded.next_at,
                      "last_error": ins.excluded.last_error, "attempts": t.c.attempts + 1}))

    def due_replies(self, now: datetime, limit: int = 20) -> list[PendingReply]:
        """Pending replies whose next send is due at ``now``, the most overdue first (at most ``limit``).

        Raises:
            ValueError: a naive ``now``. StoreError: a database error.
        """
        check_aware("now", now)
        t = REPLY_OUTBOX
        with self._errors("reading queued replies"), self._engine.connect() as conn:
            rows = conn.execute(select(t).where(t.c.done_at.is_(None), t.c.next_at <= now)
                                .order_by(t.c.next_at, t.c.platform, t.c.event_key).limit(limit)).mappings().all()
        return [PendingReply(platform=r["platform"], key=r["event_key"], payload=r["payload"], attempts=r["attempts"],
                             next_at=r["next_at"], error=r["last_error"]) for r in rows]

    def lease_reply(self, reply: PendingReply, until: datetime) -> bool:
        """Take ``reply`` for one send: a compare-and-set of its ``next_at`` (as read) to ``until``, so of
        two replicas reading it due one sends it; a sender that dies leaves it due again at ``until``.

        Raises:
            ValueError: a naive ``until``. StoreError: a database error.
        """
        check_aware("until", until)
        t = REPLY_OUTBOX
        with self._errors("leasing a reply", writing=True), self._engine.begin() as conn:
            done = conn.execute(t.update().where(t.c.platform == reply.platform, t.c.event_key == reply.key,
                                                 t.c.done_at.is_(None), t.c.next_at == reply.next_at)
                                .values(next_at=until))
            return done.rowcount == 1

    def finish_reply(self, platform: str, key: str, now: datetime, *, sent: bool, error: str = "") -> None:
        """Close the reply to ``key``: posted (``sent``; its event is marked answered in the same
        transaction, so the platform's retries of it are ignored from now on) or given up.

        Raises:
            ValueError: a naive ``now``. StoreError: a database error (nothing was written).
        """
        check_aware("now", now)
        t, ev = REPLY_OUTBOX, PROCESSED_EVENTS
        key = event_key(key)
        with self._errors("closing a reply", writing=True), self._engine.begin() as conn:
            values: dict[str, Any] = {"done_at": now, "sent": sent}
            if error:
                values["last_error"] = error[:300]
            conn.execute(t.update().where(t.c.platform == platform, t.c.event_key == key).values(**values))
            if sent:
                conn.execute(ev.update().where(ev.c.platform == platform, ev.c.event_key == key,
                                               ev.c.answered_at.is_(None)).values(answered_at=now))

    def retry_reply_now(self, platform: str, key: str, now: datetime) -> bool:
        """Make the pending reply to ``key`` due at ``now`` (a platform retried its event); False when
        no reply to it is pending.

        Raises:
            ValueError: a naive ``now``. StoreError: a database error.
        """
        check_aware("now", now)
        t = REPLY_OUTBOX
        with self._errors("retrying a reply", writing=True), self._engine.begin() as conn:
            done = conn.execute(t.update().where(t.c.platform == platform, t.c.event_key == event_key(key),
                                                 t.c.done_at.is_(None)).values(next_at=now))
            return done.rowcount == 1
