"""Approvals of the weekly post in the store (:class:`chatbot.approvals.ApprovalBook`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from adapters.storage.engine import StorePort, check_aware
from adapters.storage.schema import APPROVALS
from chatbot.approvals import PENDING, ApprovalRecord, State


class SqlApprovals(StorePort):
    """The ``approvals`` table: one record per (repo, week), decided once by compare-and-set."""

    @staticmethod
    def _approval(row: Any) -> ApprovalRecord:
        return ApprovalRecord(repo=row.repo, week=row.week, state=row.state, deadline=row.deadline,
                              decided_by=row.decided_by, created_at=row.created_at, decided_at=row.decided_at)

    def open_approval(self, repo: str, week: str, deadline: datetime | None, now: datetime) -> tuple[ApprovalRecord, bool]:
        """The approval record of (repo, week), inserted ``pending`` when absent (insert-on-conflict:
        one row whatever the replicas do).

        Args:
            repo, week: the weekly post (``owner/name``, ``2026-W20``).
            deadline: when it goes out by itself (aware; None: only on approval).
            now: the bot's clock (aware).

        Returns:
            ``(record, created)``: the stored record and whether this call inserted it.

        Raises:
            ValueError: a naive datetime. StoreError: a database error.
        """
        check_aware("now", now)
        if deadline is not None:
            check_aware("deadline", deadline)
        t = APPROVALS
        with self._errors("recording an approval", writing=True), self._engine.begin() as conn:
            stmt = (self._insert(conn)(t).values(repo=repo, week=week, state=PENDING, deadline=deadline, created_at=now)
                    .on_conflict_do_nothing(index_elements=[t.c.repo, t.c.week]).returning(t.c.repo))
            created = conn.execute(stmt).first() is not None
            row = conn.execute(select(t).where(t.c.repo == repo, t.c.week == week)).one()
        return self._approval(row), created

    def approval(self, repo: str, week: str) -> ApprovalRecord | None:
        """The approval record of (repo, week), or None.

        Raises:
            StoreError: a database error.
        """
        t = APPROVALS
        with self._errors("reading an approval"), self._engine.connect() as conn:
            row = conn.execute(select(t).where(t.c.repo == repo, t.c.week == week)).first()
        return self._approval(row) if row is not None else None

    def decide_approval(self, repo: str, week: str, state: State, by: str, now: datetime) -> bool:
        """Move the ``pending`` record of (repo, week) to ``state`` (``approved``/``skipped``).

        One ``UPDATE ... WHERE state = 'pending'``: of two clicks, two replicas or a click and the
        deadline, exactly one caller gets True.

        Raises:
            ValueError: a naive ``now``. StoreError: a database error.
        """
        check_aware("now", now)
        t = APPROVALS
        with self._errors("deciding an approval", writing=True), self._engine.begin() as conn:
            result = conn.execute(update(t).where(t.c.repo == repo, t.c.week == week, t.c.state == PENDING)
                                  .values(state=state, decided_by=by[:255], decided_at=now))
            return result.rowcount == 1

    def due_approvals(self, now: datetime) -> list[ApprovalRecord]:
        """Pending records whose deadline is at or before ``now``, oldest deadline first.

        Raises:
            ValueError: a naive ``now``. StoreError: a database error.
        """
        check_aware("now", now)
        t = APPROVALS
        with self._errors("reading approvals"), self._engine.connect() as conn:
            rows = conn.execute(select(t).where(t.c.state == PENDING, t.c.deadline.is_not(None), t.c.deadline <= now)
                                .order_by(t.c.deadline, t.c.repo, t.c.week)).all()
        return [self._approval(r) for r in rows]
