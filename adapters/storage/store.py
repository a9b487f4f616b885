"""``SqlStore``: every port of the PR store on SQLAlchemy 2 (SQLite or PostgreSQL), one module per port.

PRs are upserted by ``(repo, number)`` with the dialect's ``INSERT ... ON CONFLICT DO UPDATE``;
an update happens only when the PR's canonical JSON changed, so importing or fetching the same
data twice writes nothing. Opening a store runs Alembic ``upgrade head`` under a migration lock (one migrator at a time).

``SqlStore`` is a façade: it opens a :class:`~adapters.storage.engine.StoreEngine` and inherits the
methods of one class per port, each in its own module over that engine:

=====================  ==============================================================================
``prs.py``             :class:`chatbot.ports.PullRequestStore`: upserts, week fetches, PR windows, imports
``history.py``         :class:`chatbot.pr_history.HistoryStore` aggregates (indexed columns only)
``deliveries.py``      :class:`chatbot.deliveries.DeliveryLog` (the weekly post's exactly-once parts)
``subscriptions.py``   :class:`chatbot.subscriptions.SubscriptionBook` and ``SubscriberDirectory``
``summaries.py``       :class:`chatbot.ports.SummaryCache` (the LLM writer's cache)
``approvals.py``       :class:`chatbot.approvals.ApprovalBook` (approvals of the weekly post)
``events.py``          :class:`chatbot.events.EventLog` (inbound event claims and take-overs)
``outbox.py``          the reply outbox (:mod:`chatbot.outbox`)
``health.py``          ``ping``, the start-up integrity check and the ``/healthz`` probe
=====================  ==============================================================================
"""

from __future__ import annotations

from types import TracebackType

from sqlalchemy import Engine

from adapters.storage.approvals import SqlApprovals
from adapters.storage.deliveries import SqlDeliveryLog
from adapters.storage.engine import BASELINE_REVISION, StoreEngine
from adapters.storage.engine import alembic_config, head_revision, shipped_head  # re-exported (tests import them here)
from adapters.storage.events import SqlEventLog
from adapters.storage.health import SqlHealth
from adapters.storage.history import SqlHistory
from adapters.storage.outbox import SqlReplyOutbox
from adapters.storage.prs import PrWriter, SqlPullRequests
from adapters.storage.subscriptions import SqlSubscriptions
from adapters.storage.summaries import SqlSummaryCache
from chatbot.ports import Clock

__all__ = ["BASELINE_REVISION", "PrWriter", "SqlStore", "alembic_config", "head_revision", "shipped_head"]


class SqlStore(SqlPullRequests, SqlHistory, SqlDeliveryLog, SqlSubscriptions, SqlSummaryCache, SqlApprovals,
               SqlEventLog, SqlReplyOutbox, SqlHealth):
    """Persistent merged PRs and week fetches in a SQL database (SQLite file or PostgreSQL).

    Create with :meth:`open`; use as a context manager or call :meth:`close`. Every method runs in
    its own transaction. Instants are aware UTC datetimes in and out.

    On SQLite the writing transactions of one process take turns on a lock: SQLite admits one
    writer at a time, and a writer that finds the file locked sleeps in SQLite's busy handler
    (1, 2, 5, 10 … 100 ms steps) instead of waking when the other commits — at 8 concurrent chat
    senders that sleep was most of the reply p99 (issue 13). Other processes still meet the busy
    handler (``timeout`` 30 s).

    The port methods come from the base classes (the module docstring lists them); no two define
    the same name (``tests/adapters/storage/test_store_ports.py``).
    """

    def __init__(self, engine: Engine, url: str, clock: Clock) -> None:
        """Wrap an engine whose schema is already at head (use :meth:`open` instead); ``clock``
        stamps rows the caller gives no time for (subscriptions, cached summaries)."""
        super().__init__(StoreEngine(engine, url), clock)

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, clock: Clock, migrate: bool = True, pool_size: int | None = None) -> SqlStore:
        """Connect to ``url`` and upgrade its schema to the newest revision (Alembic ``upgrade head``);
        a store already at head (its ``alembic_version`` is :func:`shipped_head`) opens without
        loading Alembic at all.

        Args:
            clock: the clock that stamps ``created_at`` of subscriptions and cached summaries
                (``prhub/clock.py``'s in production; tests inject their own).
            url: ``sqlite:///PATH`` (the file's directory must exist) or
                ``postgresql+psycopg://user:password@host:port/db``; ``postgresql://`` and
                ``postgres://`` mean the psycopg 3 driver.
            migrate: run ``upgrade head`` (default); False only to inspect a store as it is.
            pool_size: connections kept open (None: SQLAlchemy's 5, plus 10 opened and closed per
                use beyond them). Size it to the threads that use the store at once: with 24 chat
                threads on PostgreSQL the 5 made every other read connect a new backend (issue 20).

        Raises:
            StoreError: the URL cannot be parsed or names an unsupported database, the SQLite
                directory is missing, the server is unreachable or refuses us, or the schema is
                newer than this prhub. The message shows the URL with its password masked.
        """
        return cls(StoreEngine.open(url, migrate=migrate, pool_size=pool_size).engine, url, clock)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for migrations and tests)."""
        return self._db.engine

    def close(self) -> None:
        """Release the connection pool."""
        self._db.dispose()

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
