"""Health of the store: ``SELECT 1``, the start-up integrity check and the ``/healthz`` probe (issue 20:
a corrupt SQLite file answered ``SELECT 1`` and ``/healthz`` said ok)."""

from __future__ import annotations

from sqlalchemy import select, text

from adapters.storage.engine import StorePort, looks_corrupt
from adapters.storage.errors import StoreError
from adapters.storage.schema import APPROVALS, DELIVERIES, PROCESSED_EVENTS, PULL_REQUESTS, REPLY_OUTBOX, SUBSCRIPTIONS
from adapters.storage.schema import SUMMARIES, WEEK_FETCHES


class SqlHealth(StorePort):
    """Whether the database answers and its file is whole; the corruption a query found is kept in
    the shared :class:`~adapters.storage.engine.StoreEngine` (``corrupt``)."""

    def ping(self) -> None:
        """Check that the database answers (``SELECT 1``).

        Raises:
            StoreError: the database cannot be reached.
        """
        with self._errors("checking"), self._engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def check_integrity(self) -> None:
        """The start-up check of ``prhub serve``: on SQLite ``PRAGMA quick_check`` (every page and index
        of the file; O(file size), about 0.1 s for a year of PRs), on PostgreSQL :meth:`probe`.

        Raises:
            StoreError: the file is corrupt (``database sqlite:///…: the file is corrupt (…): restore it
                from a backup``), or the database cannot be read.
        """
        if self._engine.dialect.name != "sqlite":
            self.probe()
            return
        try:
            with self._errors("checking integrity"), self._engine.connect() as conn:
                rows = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check(5)")]
        except StoreError as exc:
            if looks_corrupt(exc.user_message):
                self._db.corrupt = exc.user_message
            raise
        if rows != ["ok"]:
            self._db.corrupt = "; ".join(rows)[:200]
            raise StoreError(f"database {self.url}: the file is corrupt (quick_check: {self._db.corrupt}): restore it "
                             "from a backup, or move it away to start with an empty store")

    def probe(self) -> None:
        """The ``/healthz`` check: the first row of every table of the schema is read whole (a few pages
        each, so a table whose root cannot be read fails, not only the connection), and any earlier query that found the file
        corrupt is remembered (:attr:`corruption`).

        Raises:
            StoreError: the database cannot be reached or a table cannot be read.
        """
        if self._db.corrupt is not None:
            raise StoreError(f"database {self.url}: corrupt: {self._db.corrupt}")
        with self._errors("checking"), self._engine.connect() as conn:
            for table in _SCHEMA_TABLES:  # every column, so the table's own pages are read, not a covering index
                conn.execute(select(table).limit(1)).all()

    @property
    def corruption(self) -> str | None:
        """Why the database was found corrupt (a query's error or ``quick_check``), None while it was not."""
        return self._db.corrupt


_SCHEMA_TABLES = (PULL_REQUESTS, WEEK_FETCHES, PROCESSED_EVENTS, SUBSCRIPTIONS, SUMMARIES, APPROVALS, REPLY_OUTBOX,
                  DELIVERIES)
"""Every table :meth:`SqlStore.probe` reads a row of."""
