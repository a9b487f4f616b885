"""Inbound chat event de-duplication in the store (:class:`chatbot.events.EventLog`): claims of
``(platform, event_key)``, their take-over by compare-and-set, answers and purging."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql, sqlite

from adapters.storage.engine import StorePort, check_aware, event_key
from adapters.storage.schema import PROCESSED_EVENTS, REPLY_OUTBOX


def _claim_statement(dialect: str) -> Any:
    """``INSERT ... ON CONFLICT (platform, event_key) DO NOTHING RETURNING event_key`` with bound
    parameters, built once per dialect (a statement built per call cost more CPU than its round trip;
    it is on every inbound event's path before the ack, issue 20)."""
    t = PROCESSED_EVENTS
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return (insert(t).values(platform=bindparam("platform"), event_key=bindparam("event_key"),
                             received_at=bindparam("received_at"), owner=bindparam("owner"))
            .on_conflict_do_nothing(index_elements=[t.c.platform, t.c.event_key]).returning(t.c.event_key))


_CLAIMS = {dialect: _claim_statement(dialect) for dialect in ("postgresql", "sqlite")}
_ANSWERED = (PROCESSED_EVENTS.update()
             .where(PROCESSED_EVENTS.c.platform == bindparam("p"), PROCESSED_EVENTS.c.event_key == bindparam("k"))
             .values(answered_at=bindparam("answered_at")))
"""Marks a claim answered (built once, as :data:`_CLAIMS`: it is on every answer's path)."""


class SqlEventLog(StorePort):
    """The ``processed_events`` table: exactly one caller claims an event; purging also drops the
    reply outbox's rows of the same age."""

    def claim_event(self, platform: str, key: str, now: datetime, owner: str | None = None,
                    reclaimable: Callable[[str | None, datetime, bool], bool] | None = None) -> bool:
        """Record an inbound chat event as accepted for processing by ``owner``, once.

        ``INSERT ... ON CONFLICT DO NOTHING`` on ``(platform, event_key)``: across retries,
        twins, replicas and restarts exactly one caller gets True. A claim for which
        ``reclaimable(owner, received_at, answered)`` holds (the rule is
        :func:`scheduler.claims.reclaimable`: its owner died between the ack and the reply; issue 9)
        is taken over by one caller: a compare-and-set ``UPDATE`` on the row's owner and
        ``received_at`` while it is still unanswered (:meth:`mark_event_answered`), so of two
        replicas retrying at once one wins. Keys longer than 255 chars are replaced by their SHA-256.

        Args:
            platform: ``slack`` or ``feishu``.
            key: the event's de-duplication key (``T_TEST:C_DIGEST:1718000000.000100``, ``om_...``).
            now: the bot's clock (aware).
            owner: the claiming process (``host:pid:start``, scheduler.owner.ProcessOwner.token).
            reclaimable: ``(previous owner, its received_at, answered) -> bool`` for an existing
                claim; None: never taken over.

        Returns:
            True for the first claim of ``key`` (or a take-over); False when it was claimed before.

        Raises:
            ValueError: ``now`` is naive.
            StoreError: a database error.
        """
        check_aware("now", now)
        key = event_key(key)
        t = PROCESSED_EVENTS
        # one statement, so autocommit: no BEGIN and COMMIT round trips on PostgreSQL (it is on
        # every inbound event's path before the ack)
        with self._errors("recording an event", writing=True), self._engine.connect() as plain:
            conn = plain.execution_options(isolation_level="AUTOCOMMIT")
            claim = _CLAIMS[conn.dialect.name]
            if conn.execute(claim, {"platform": platform, "event_key": key, "received_at": now,
                                    "owner": owner}).first() is not None:
                return True
            if reclaimable is None:
                return False
            row = conn.execute(select(t.c.owner, t.c.received_at, t.c.answered_at)
                               .where(t.c.platform == platform, t.c.event_key == key)).first()
            if row is None or not reclaimable(row.owner, row.received_at, row.answered_at is not None):
                return False
            same_owner = t.c.owner.is_(None) if row.owner is None else t.c.owner == row.owner
            taken = conn.execute(t.update().where(t.c.platform == platform, t.c.event_key == key,
                                                  t.c.answered_at.is_(None), same_owner,
                                                  t.c.received_at == row.received_at)
                                 .values(owner=owner, received_at=now))
            return bool(taken.rowcount)

    def mark_event_answered(self, platform: str, key: str, now: datetime) -> None:
        """Mark the claim of ``key`` answered at ``now`` (the reply is posted): its retries stay ignored.

        Raises:
            ValueError: ``now`` is naive.
            StoreError: a database error.
        """
        check_aware("now", now)
        with self._errors("recording an answer", writing=True), self._engine.connect() as plain:
            conn = plain.execution_options(isolation_level="AUTOCOMMIT")
            conn.execute(_ANSWERED, {"p": platform, "k": event_key(key), "answered_at": now})

    def purge_events(self, now: datetime, retention: timedelta = timedelta(hours=8)) -> int:
        """Forget events received before ``now - retention``.

        Args:
            now: the bot's clock (aware).
            retention: how long events are kept; at least 7 hours (Feishu re-pushes for 6 h).

        Returns:
            How many records were deleted.

        Raises:
            ValueError: ``retention`` under 7 hours, or ``now`` naive.
            StoreError: a database error.
        """
        check_aware("now", now)
        if retention < timedelta(hours=7):
            raise ValueError(f"event retention {retention} is under 7 hours: re-deliveries would be answered again")
        t = PROCESSED_EVENTS
        with self._errors("purging events", writing=True), self._engine.begin() as conn:
            conn.execute(REPLY_OUTBOX.delete().where(REPLY_OUTBOX.c.created_at < now - retention))
            return conn.execute(t.delete().where(t.c.received_at < now - retention)).rowcount or 0
