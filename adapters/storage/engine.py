"""``StoreEngine``: the SQLAlchemy engine every port module of the store shares (SQLite or PostgreSQL).

It opens a database by URL (SQLite file by default, PostgreSQL by ``postgresql+psycopg://...``),
upgrades its schema with Alembic under a migration lock (one migrator at a time), hands out one
connection per read and one transaction per write, and turns SQLAlchemy and driver errors into
one-line :class:`~adapters.storage.errors.StoreError`\\ s that never carry a password.

:class:`StorePort` is the base of the per-port classes (``prs.py``, ``history.py``, ``deliveries.py``,
…) that :class:`~adapters.storage.store.SqlStore` joins, and the helpers below it are what more than
one of them needs: the dialect's ``INSERT``, aware instants, NUL-free text, the chunk size and the
event-key width.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from adapters.storage.errors import StoreError, mask_url, scrub
from chatbot.ports import Clock

if TYPE_CHECKING:  # Alembic is imported when a store is opened, not with this module
    from alembic.config import Config

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
BASELINE_REVISION = "0001_baseline"
"""The first Alembic revision (``alembic_version.version_num`` of a store at the baseline)."""

PING_AFTER_IDLE_S = 1.0
"""A PostgreSQL connection idle in the pool longer than this is pinged before it is handed out
(:func:`_ping_when_idle`); one checked in more recently is used as it is."""

_MIGRATION_LOCK = 0x70726875  # pg advisory lock key ("prhu"): one migrator at a time


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """An Alembic :class:`~alembic.config.Config` for the store's migrations, built in code.

    Args:
        connection: an open connection to migrate (``env.py`` uses it as is), or None.
        url: the database URL when no connection is given (for the ``alembic`` command line).
    """
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """The newest Alembic revision shipped with this prhub."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def shipped_head() -> str:
    """The newest revision shipped with this prhub without loading Alembic: the stem of the newest
    ``NNNN_name.py`` in ``migrations/versions`` (each revision's id is its file's stem and each chains
    to the one before it; ``test_store_migrations`` pins this to Alembic's own :func:`head_revision`)."""
    stems = sorted(p.stem for p in (MIGRATIONS_DIR / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
    return stems[-1]


def _schema_version(conn: Connection) -> str | None:
    """The store's ``alembic_version`` (None: no such table, e.g. a fresh database, or not one row).
    A failed read leaves ``conn``'s transaction aborted on PostgreSQL: close ``conn`` after it.

    Raises:
        sqlalchemy.exc.DBAPIError: the connection itself failed (the server went away).
    """
    try:
        rows = list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())
    except DBAPIError as exc:
        if exc.connection_invalidated:
            raise
        return None
    return str(rows[0]) if len(rows) == 1 else None


def _sqlite_wal(engine: Engine) -> None:
    """Every SQLite connection in WAL mode with ``synchronous=NORMAL``: readers never wait for the
    writer and a commit is not an fsync (WAL stays durable across a process crash; a power loss
    may lose the last commits, never corrupt the file), so recording an inbound event before the
    ack costs well under a millisecond instead of serialising every listener on fsync (issue 9,
    failure 5). In-memory databases keep their journal."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        try:
            if engine.url.database not in (None, "", ":memory:"):
                _switch_to_wal(cur)
            cur.execute("PRAGMA synchronous=NORMAL")
        finally:
            cur.close()


def _ping_when_idle(engine: Engine, idle_s: float = PING_AFTER_IDLE_S) -> None:
    """Ping a pooled connection at checkout only when it sat idle for more than ``idle_s``: what
    ``pool_pre_ping`` does on every checkout, one round trip before each of the five statements of a
    chat question (issue 20: 4.9 pings per question on PostgreSQL), for connections that a crowd
    reuses within milliseconds. A failed ping raises ``DisconnectionError``, so the pool drops that
    connection and connects again (a database that restarted is reconnected to, as with pre-ping); a
    restart within ``idle_s`` of a connection's last use fails that one statement (a ``StoreError``)
    and SQLAlchemy's disconnect handling then drops every older pooled connection."""
    from sqlalchemy import event
    from sqlalchemy.exc import DisconnectionError

    @event.listens_for(engine, "connect")
    def _fresh(_dbapi_conn: Any, record: Any) -> None:
        record.info["prhub_idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _back(_dbapi_conn: Any, record: Any) -> None:
        if record is not None:
            record.info["prhub_idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("prhub_idle_since", 0.0) <= idle_s:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as exc:  # noqa: BLE001 - any driver error: this connection is gone
            raise DisconnectionError(type(exc).__name__) from exc


def _switch_to_wal(cur: Any, *, deadline_s: float = 30.0) -> None:
    """``PRAGMA journal_mode=WAL`` on a DB-API cursor, retried while another process holds the file:
    switching a fresh file into WAL takes its exclusive lock, and SQLite answers ``database is locked``
    at once instead of calling the busy handler when the switch would deadlock with another
    connection's (its deadlock rule for a reader that wants to write). Three replicas opening one
    fresh store failed so in 4 of 90 processes (issue 20, item 4). Retries every 5-100 ms until
    ``deadline_s`` (seconds, the same 30 s as the busy ``timeout``), then raises the last error.

    Raises:
        sqlite3.OperationalError: still locked after ``deadline_s``, or another driver error.
    """
    import sqlite3
    import time

    from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

    def locked(exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)

    for attempt in Retrying(retry=retry_if_exception(locked), stop=stop_after_delay(deadline_s),
                            wait=wait_exponential(multiplier=0.005, max=0.1), reraise=True, sleep=time.sleep):
        with attempt:
            cur.execute("PRAGMA journal_mode=WAL")


def _migration_lock(conn: Connection) -> None:
    """Make ``conn``'s open transaction the only migrator of its database until it ends, so replicas
    started together on a fresh store all come up (issue 20: one of three failed with ``table
    pull_requests already exists`` in 2 of 6 trials). Alembic then reads ``alembic_version`` under
    the lock, and the replicas after the first find the schema at head.

    PostgreSQL: a transaction-scoped advisory lock (:data:`_MIGRATION_LOCK`). SQLite: ``BEGIN
    EXCLUSIVE`` (the driver opens no transaction before DDL, so without it every ``CREATE TABLE``
    committed on its own); the other replicas wait in SQLite's busy handler (``timeout`` 30 s), and
    the whole upgrade commits or rolls back as one.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN EXCLUSIVE")


class StoreEngine:
    """One database's engine and what every port module of the store does with it: open it
    (:meth:`open`), upgrade its schema (:meth:`upgrade`), read (:meth:`read`) and write inside
    :meth:`errors`, which turns driver errors into one-line :class:`StoreError`\\ s.

    On SQLite the writing blocks of one process take turns on a lock (see :class:`SqlStore
    <adapters.storage.store.SqlStore>`: SQLite admits one writer at a time and its busy handler
    sleeps instead of waking when the other commits). ``corrupt`` is why a query found the
    database file damaged (None while none did); the health checks read and set it.
    """

    def __init__(self, engine: Engine, url: str) -> None:
        """Wrap ``engine``, opened from ``url`` (kept unmasked only to scrub its secrets from errors)."""
        self._engine = engine
        self._url = url
        self._write_turn = threading.RLock() if engine.dialect.name == "sqlite" else None
        self.corrupt: str | None = None

    @classmethod
    def open(cls, url: str, *, migrate: bool = True, pool_size: int | None = None) -> StoreEngine:
        """Connect to ``url`` and upgrade its schema to the newest revision: :meth:`SqlStore.open
        <adapters.storage.store.SqlStore.open>` without the clock (its arguments and errors)."""
        shown = mask_url(url)
        try:
            parsed = make_url(url)
        except (ArgumentError, ValueError):
            raise StoreError(
                f"invalid database URL {shown!r}: use sqlite:///PATH or postgresql+psycopg://USER@HOST:PORT/DB "
                "(--db or PRHUB_DATABASE_URL)"
            ) from None
        parsed = _normalize(parsed, shown)
        shown = mask_url(parsed.render_as_string(hide_password=False))
        kwargs: dict[str, Any] = {}
        if parsed.get_backend_name() == "sqlite":
            db = parsed.database or ""
            if db and db != ":memory:" and not db.startswith("file:"):
                parent = Path(db).expanduser().resolve().parent
                if not parent.is_dir():
                    raise StoreError(f"database {shown}: directory {parent} does not exist: create it or pass another --db")
            kwargs["connect_args"] = {"timeout": 30}
        else:
            kwargs["connect_args"] = {"connect_timeout": 10}
        if pool_size is not None and not (parsed.get_backend_name() == "sqlite" and (parsed.database or ":memory:") == ":memory:"):
            kwargs["pool_size"] = pool_size
        try:
            engine = create_engine(parsed, **kwargs)
        except (NoSuchModuleError, ImportError, ArgumentError) as exc:
            raise StoreError(f"cannot use database {shown}: {scrub(str(exc), url)}") from None
        if parsed.get_backend_name() == "sqlite":
            _sqlite_wal(engine)
        else:
            _ping_when_idle(engine)
        store = cls(engine, url)
        try:
            with store.errors("opening"):
                with engine.connect() as conn:
                    version = _schema_version(conn)
            if migrate and version != shipped_head():  # at head: no Alembic (~15% of a no-op fetch)
                store.upgrade()
        except BaseException:
            engine.dispose()
            raise
        return store

    def upgrade(self) -> None:
        """Alembic ``upgrade head`` in one transaction under the migration lock (:func:`_migration_lock`).

        Raises:
            StoreError: the schema is newer than this prhub, or a database error (nothing migrated).
        """
        from alembic import command
        from alembic.util.exc import CommandError

        try:
            with self.errors("migrating", writing=True), self._engine.begin() as conn:
                _migration_lock(conn)
                command.upgrade(alembic_config(conn), "head")
            log.debug("store %s: schema at head", self.url)
        except CommandError as exc:
            raise StoreError(
                f"database {self.url}: cannot upgrade its schema ({scrub(str(exc), self._url)}): "
                "it was probably written by a newer prhub; upgrade prhub"
            ) from None

    @property
    def url(self) -> str:
        """The database URL with its password masked (safe to print)."""
        return mask_url(self._engine.url.render_as_string(hide_password=False))

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine."""
        return self._engine

    def dispose(self) -> None:
        """Release the connection pool."""
        self._engine.dispose()

    @contextmanager
    def errors(self, action: str, *, writing: bool = False) -> Iterator[None]:
        """Turn SQLAlchemy/driver errors into a one-line :class:`StoreError` without secrets.

        ``writing``: the block is one transaction that rolls back, so the message says nothing was
        written; on SQLite it waits for this process's other writers first (see the class docstring).
        """
        turn = self._write_turn if writing else None
        if turn is not None:
            turn.acquire()
        try:
            yield
        except SQLAlchemyError as exc:
            orig = exc.orig if isinstance(exc, DBAPIError) else exc
            lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
            reason = scrub(lines[0] if lines else type(orig).__name__, self._url)
            if action == "opening" or (isinstance(exc, DBAPIError) and exc.connection_invalidated):
                hint = "check the URL (--db or PRHUB_DATABASE_URL) and that the server runs"
            elif writing:
                hint = "nothing was written"
            else:
                hint = "check the database"
            if looks_corrupt(reason):
                self.corrupt = reason
            raise StoreError(f"database {self.url}: {action} failed: {type(orig).__name__}: {reason} ({hint})",
                             table_missing=_table_missing(orig, reason)) from None
        finally:
            if turn is not None:
                turn.release()

    @contextmanager
    def read(self, action: str) -> Iterator[Connection]:
        """A connection for one read (``action`` names it in errors, as :meth:`errors`), in
        autocommit: on PostgreSQL no ``BEGIN`` before and no ``ROLLBACK`` after the query, two of the
        four round trips a read took (ping, BEGIN, SELECT, ROLLBACK), on the path of every chat
        question (issue 20: reply p99 and "busy" answers under a crowd); the ping is made only for a
        connection idle past :data:`PING_AFTER_IDLE_S` (:func:`_ping_when_idle`). Each statement sees its
        own snapshot, so use it only where one statement answers (or each may see newer rows)."""
        with self.errors(action), self._engine.connect() as plain:
            yield plain.execution_options(isolation_level="AUTOCOMMIT")


def _normalize(parsed: URL, shown: str) -> URL:
    """Accept ``sqlite`` and ``postgresql`` (psycopg 3) URLs only; plain ``postgresql://`` means psycopg.

    Raises:
        StoreError: another database or driver.
    """
    backend = parsed.get_backend_name()
    driver = parsed.get_driver_name() if "+" in parsed.drivername else ""
    if backend in ("postgres", "postgresql") and driver in ("", "psycopg"):
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        return parsed
    raise StoreError(
        f"unsupported database URL {shown!r}: use sqlite:///PATH or postgresql+psycopg://USER@HOST:PORT/DB"
    )


def looks_corrupt(reason: str) -> bool:
    """Whether a driver error says the database file is damaged (SQLite's ``SQLITE_CORRUPT`` and
    ``SQLITE_NOTADB`` messages)."""
    low = reason.lower()
    return "malformed" in low or "file is not a database" in low or "corrupt" in low


def _table_missing(orig: BaseException, reason: str) -> bool:
    """Whether a driver error says a table does not exist: PostgreSQL's SQLSTATE ``42P01``
    (``undefined_table``) or SQLite's ``no such table`` message."""
    return getattr(orig, "sqlstate", None) == "42P01" or reason.lower().startswith("no such table")


class StorePort:
    """The base of the store's per-port classes: the shared :class:`StoreEngine` and the clock, under
    the names their methods use (``self._errors``, ``self._read``, ``self._engine``, ``self.url``).

    :class:`~adapters.storage.store.SqlStore` is all of them over one engine; each also stands alone
    over a :class:`StoreEngine` whose schema is at head (``SqlApprovals(StoreEngine.open(url), clock)``).
    ``clock`` stamps rows the caller gives no time for (subscriptions, cached summaries).
    """

    def __init__(self, db: StoreEngine, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    @property
    def url(self) -> str:
        """The database URL with its password masked (safe to print)."""
        return self._db.url

    @property
    def _engine(self) -> Engine:
        return self._db.engine

    def _errors(self, action: str, *, writing: bool = False) -> AbstractContextManager[None]:
        """:meth:`StoreEngine.errors`: driver errors become one-line :class:`StoreError`\\ s."""
        return self._db.errors(action, writing=writing)

    def _read(self, action: str) -> AbstractContextManager[Connection]:
        """:meth:`StoreEngine.read`: an autocommit connection for one read."""
        return self._db.read(action)

    def _insert(self, conn: Connection) -> Any:
        return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


CHUNK = 500  # rows per INSERT statement (well under SQLite's and PostgreSQL's parameter limits)


def check_aware(name: str, value: datetime) -> None:
    """Raise ValueError naming ``name`` when ``value`` is a naive datetime (the store takes aware instants)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} {value.isoformat()} is naive: pass an aware (UTC) datetime")


def no_nul(value: str) -> str:
    """``value`` without NUL characters, for a text column."""
    # PostgreSQL text cannot hold NUL; the JSON copy in ``data`` keeps the exact value (escaped).
    return value.replace("\x00", "")


def event_key(key: str) -> str:
    """``key``, or ``sha256:`` + its SHA-256 when longer than the 255-character column."""
    return key if len(key) <= 255 else "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()
