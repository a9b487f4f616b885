"""The delivery log of the store (:class:`chatbot.deliveries.DeliveryLog`): one row per part of a
weekly post to one destination, claimed, leased, taken over and closed by compare-and-set."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from adapters.storage.engine import StorePort, check_aware
from chatbot.deliveries import DeliveryKey, DeliveryRecord


class SqlDeliveryLog(StorePort):
    """The ``deliveries`` table as :class:`chatbot.deliveries.DeliveryLog`; whether a claim may be taken
    over is decided in ``scheduler/claims.py``, this only compares-and-sets the row it read."""

    def claim_delivery(self, key: DeliveryKey, now: datetime, owner: str | None = None) -> tuple[bool, DeliveryRecord]:
        """Insert the delivery ``key`` (a :class:`chatbot.deliveries.DeliveryKey`) as ``sending``
        held by ``owner`` unless its row exists (``INSERT ... ON CONFLICT DO NOTHING`` on ``uq_deliveries_key``).

        Returns:
            ``(True, row)`` when this call inserted the row, else ``(False, existing row)``; rows
            are :class:`chatbot.deliveries.DeliveryRecord`.

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        check_aware("now", now)
        values = dict(repo=key.repo, week=key.week, platform=key.platform, destination=key.destination, kind=key.kind,
                      part=key.part, status="sending", attempts=0, created_at=now, updated_at=now, owner=owner)
        with self._errors("claiming a delivery", writing=True), self._engine.begin() as conn:
            insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
            stmt = insert(t).values(**values).on_conflict_do_nothing(
                index_elements=[t.c.repo, t.c.week, t.c.platform, t.c.destination, t.c.kind, t.c.part]).returning(t.c.id)
            won = conn.execute(stmt).first() is not None
            row = conn.execute(select(t).where(*self._delivery_where(key))).mappings().one()
        return won, self._delivery_record(row)

    def take_over_delivery(self, key: DeliveryKey, seen: DeliveryRecord, now: datetime, owner: str | None = None) -> bool:
        """Compare-and-set the row of ``key`` back to ``sending`` held by ``owner`` (``updated_at = now``,
        reason cleared) only while its status and ``updated_at`` are still those of ``seen``.

        Returns:
            True when this call changed the row (the caller owns the send).

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        with self._errors("taking over a delivery", writing=True), self._engine.begin() as conn:
            res = conn.execute(t.update().where(*self._delivery_where(key), t.c.status == seen.status,
                                                t.c.updated_at == seen.updated_at)
                               .values(status="sending", reason=None, updated_at=now, owner=owner))
            return res.rowcount == 1

    def renew_delivery(self, key: DeliveryKey, owner: str, now: datetime) -> bool:
        """Heartbeat of a lease: ``updated_at = now`` on the ``sending`` row of ``key`` held by ``owner``.

        Returns:
            False when the row is no longer held by ``owner`` (sent, failed or taken over).

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        with self._errors("renewing a delivery lease", writing=True), self._engine.begin() as conn:
            res = conn.execute(t.update().where(*self._delivery_where(key), t.c.status == "sending", t.c.owner == owner)
                               .values(updated_at=now))
            return res.rowcount == 1

    def release_delivery(self, key: DeliveryKey, owner: str, now: datetime) -> bool:
        """Hand the ``sending`` row of ``key`` held by ``owner`` back (owner ``released``, status
        kept ``sending``, ``updated_at = now``) so the next process takes it over at once.

        Returns:
            True when the row was released.

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t
        from chatbot.deliveries import RELEASED

        with self._errors("handing back a delivery", writing=True), self._engine.begin() as conn:
            res = conn.execute(t.update().where(*self._delivery_where(key), t.c.status == "sending", t.c.owner == owner)
                               .values(owner=RELEASED, updated_at=now))
            return res.rowcount == 1

    def unfinished_deliveries(self) -> list[DeliveryRecord]:
        """Every ``sending`` row, as :class:`chatbot.deliveries.DeliveryRecord`, ordered by repo,
        week, platform, destination, kind, part (uses ``ix_deliveries_status``).

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        stmt = (select(t).where(t.c.status == "sending")
                .order_by(t.c.repo, t.c.week, t.c.platform, t.c.destination, t.c.kind, t.c.part))
        with self._errors("reading the delivery log"), self._engine.connect() as conn:
            return [self._delivery_record(r) for r in conn.execute(stmt).mappings().all()]

    def touch_delivery(self, key: DeliveryKey, attempts: int, now: datetime) -> None:
        """Record attempt number ``attempts`` of ``key`` (``updated_at = now``).

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        with self._errors("recording a delivery attempt", writing=True), self._engine.begin() as conn:
            conn.execute(t.update().where(*self._delivery_where(key)).values(attempts=attempts, updated_at=now))

    def mark_delivery_sent(self, key: DeliveryKey, message_id: str, thread_id: str | None, now: datetime) -> None:
        """Set the row of ``key`` ``sent`` with the platform ``message_id`` and ``thread_id``.

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        with self._errors("recording a delivery", writing=True), self._engine.begin() as conn:
            conn.execute(t.update().where(*self._delivery_where(key))
                         .values(status="sent", message_id=message_id, thread_id=thread_id, reason=None, updated_at=now))

    def mark_delivery_failed(self, key: DeliveryKey, reason: str, now: datetime) -> None:
        """Set the row of ``key`` ``failed`` with ``reason`` (unless it is already ``sent``).

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        with self._errors("recording a failed delivery", writing=True), self._engine.begin() as conn:
            conn.execute(t.update().where(*self._delivery_where(key), t.c.status != "sent")
                         .values(status="failed", reason=reason[:500], updated_at=now))

    def has_deliveries(self, repo: str) -> bool:
        """Whether the delivery log holds any row of ``repo`` (one indexed lookup, ``LIMIT 1``).

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        with self._errors("reading the delivery log"), self._engine.connect() as conn:
            return conn.execute(select(t.c.repo).where(t.c.repo == repo).limit(1)).first() is not None

    def deliveries_of(self, repo: str, week: str, kind: str | None = None) -> list[DeliveryRecord]:
        """Delivery-log rows of ``repo`` and ``week`` (of ``kind`` when given), as
        :class:`chatbot.deliveries.DeliveryRecord`, ordered by platform, destination, kind, part.

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import DELIVERIES as t

        stmt = select(t).where(t.c.repo == repo, t.c.week == week)
        if kind is not None:
            stmt = stmt.where(t.c.kind == kind)
        stmt = stmt.order_by(t.c.platform, t.c.destination, t.c.kind, t.c.part)
        with self._errors("reading the delivery log"), self._engine.connect() as conn:
            return [self._delivery_record(r) for r in conn.execute(stmt).mappings().all()]

    @staticmethod
    def _delivery_where(key: DeliveryKey) -> list[Any]:
        from adapters.storage.schema import DELIVERIES as t

        return [t.c.repo == key.repo, t.c.week == key.week, t.c.platform == key.platform,
                t.c.destination == key.destination, t.c.kind == key.kind, t.c.part == key.part]

    @staticmethod
    def _delivery_record(r: Any) -> DeliveryRecord:
        key = DeliveryKey(r["repo"], r["week"], r["platform"], r["destination"], r["kind"], r["part"])
        return DeliveryRecord(key=key, status=r["status"], message_id=r["message_id"], thread_id=r["thread_id"],
                              attempts=r["attempts"], reason=r["reason"], created_at=r["created_at"],
                              updated_at=r["updated_at"], owner=r["owner"])
