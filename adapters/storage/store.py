"""``SqlStore``: the :class:`chatbot.ports.PullRequestStore` on SQLAlchemy 2 (SQLite or PostgreSQL).

PRs are upserted by ``(repo, number)`` with the dialect's ``INSERT ... ON CONFLICT DO UPDATE``;
an update happens only when the PR's canonical JSON changed, so importing or fetching the same
data twice writes nothing. Opening a store runs Alembic ``upgrade head`` under a migration lock (one migrator at a time).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from datetime import timedelta
from types import TracebackType
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, Engine, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite

from adapters.storage.engine import BASELINE_REVISION, StoreEngine, looks_corrupt
from adapters.storage.engine import alembic_config, head_revision, shipped_head  # re-exported (tests import them here)
from adapters.storage.errors import StoreError
from adapters.storage.schema import PULL_REQUESTS, WEEK_FETCHES, PullRequestRow
from adapters.storage.schema import FIRST_MERGES  # each author's first merge (new contributors)
from adapters.storage.schema import PROCESSED_EVENTS, SUBSCRIPTIONS  # chat: subscriptions, event de-duplication
from adapters.storage.schema import SUMMARIES  # the LLM writer's cache
from adapters.storage.schema import APPROVALS  # approvals of the weekly post
from adapters.storage.schema import REPLY_OUTBOX  # chat replies that failed to send
from adapters.storage.schema import DELIVERIES as _DELIVERIES  # (the delivery methods import it as ``t``)
from chatbot.approvals import PENDING, ApprovalRecord, State
from chatbot.errors import InputError
from chatbot.models import PullRequest
from chatbot.outbox import PendingReply
from chatbot.deliveries import DeliveryKey, DeliveryRecord
from chatbot.ports import Clock, WeekFetch
from chatbot.subscriptions import Subscription

__all__ = ["BASELINE_REVISION", "PrWriter", "SqlStore", "alembic_config", "head_revision", "shipped_head"]

_CHUNK = 500  # rows per INSERT statement (well under SQLite's and PostgreSQL's parameter limits)


def _in_window(repo: str, start: datetime, end: datetime) -> tuple[Any, ...]:
    """The WHERE terms of ``repo``'s PRs merged in ``[start, end)`` (the ``(repo, merged_at)`` index).

    Raises:
        ValueError: a naive datetime.
    """
    _check_aware("start", start)
    _check_aware("end", end)
    r = PullRequestRow
    return (r.repo == repo, r.merged_at >= start, r.merged_at < end)


def _canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _no_nul(value: str) -> str:
    # PostgreSQL text cannot hold NUL; the JSON copy in ``data`` keeps the exact value (escaped).
    return value.replace("\x00", "")


def _row(repo: str, pr: PullRequest) -> dict[str, Any]:
    data = pr.model_dump(mode="json")
    return {
        "repo": repo,
        "number": pr.number,
        "merged_at": pr.merged_at,
        "author_login": _no_nul(pr.author.login) if pr.author else None,
        "title": _no_nul(pr.title),
        "data": data,
        "content_sha256": hashlib.sha256(_canonical(data).encode("utf-8")).hexdigest(),
        "revision": 1,
    }


def _check_aware(name: str, value: datetime) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} {value.isoformat()} is naive: pass an aware (UTC) datetime")


class SqlStore:
    """Persistent merged PRs and week fetches in a SQL database (SQLite file or PostgreSQL).

    Create with :meth:`open`; use as a context manager or call :meth:`close`. Every method runs in
    its own transaction. Instants are aware UTC datetimes in and out.

    On SQLite the writing transactions of one process take turns on a lock: SQLite admits one
    writer at a time, and a writer that finds the file locked sleeps in SQLite's busy handler
    (1, 2, 5, 10 … 100 ms steps) instead of waking when the other commits — at 8 concurrent chat
    senders that sleep was most of the reply p99 (issue 13). Other processes still meet the busy
    handler (``timeout`` 30 s).
    """

    def __init__(self, engine: Engine, url: str, clock: Clock) -> None:
        """Wrap an engine whose schema is already at head (use :meth:`open` instead); ``clock``
        stamps rows the caller gives no time for (subscriptions, cached summaries)."""
        self._db = StoreEngine(engine, url)
        self._clock = clock

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
    def url(self) -> str:
        """The database URL with its password masked (safe to print)."""
        return self._db.url

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

    @property
    def _engine(self) -> Engine:
        return self._db.engine

    def _errors(self, action: str, *, writing: bool = False) -> AbstractContextManager[None]:
        """:meth:`StoreEngine.errors`: driver errors become one-line :class:`StoreError`\\ s."""
        return self._db.errors(action, writing=writing)

    def _read(self, action: str) -> AbstractContextManager[Connection]:
        """:meth:`StoreEngine.read`: an autocommit connection for one read."""
        return self._db.read(action)

    # -- PullRequestStore ----------------------------------------------------------------------

    def upsert_prs(self, repo: str, prs: Sequence[PullRequest]) -> tuple[int, int]:
        """Insert or update PRs of ``repo`` in one transaction.

        Records sharing a number are one PR (the later wins). A row whose stored JSON equals the
        PR's is left alone.

        Returns:
            ``(inserted, updated)``: new rows, and existing rows whose content changed
            (unchanged rows count in neither).

        Raises:
            StoreError: a database error (nothing was written).
        """
        with self._errors("storing PRs", writing=True), self._engine.begin() as conn:
            return self._upsert(conn, repo, prs)

    def store_week(self, repo: str, prs: Sequence[PullRequest], fetch: WeekFetch) -> tuple[int, int]:
        """Upsert a week's PRs and record its fetch, in one transaction (whole or not at all).

        Args:
            repo: ``owner/name``; must equal ``fetch.repo``.
            prs: the PRs the fetch brought.
            fetch: the fetch record (aware instants, counts >= 0).

        Returns:
            ``(inserted, updated)`` as :meth:`upsert_prs`.

        Raises:
            InputError: ``fetch.repo`` differs from ``repo``.
            StoreError: a database error, e.g. a negative count (nothing was written).
        """
        if fetch.repo != repo:
            raise InputError(f"week fetch of {fetch.repo} cannot be stored under {repo}")
        _check_aware("started_at", fetch.started_at)
        _check_aware("finished_at", fetch.finished_at)
        with self._errors("storing the week", writing=True), self._engine.begin() as conn:
            counts = self._upsert(conn, repo, prs)
            conn.execute(
                WEEK_FETCHES.insert().values(
                    repo=repo,
                    week=fetch.week,
                    tz=fetch.tz,
                    started_at=fetch.started_at,
                    finished_at=fetch.finished_at,
                    prs=fetch.prs,
                    requests=fetch.requests,
                )
            )
            return counts

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """Stored PRs of ``repo`` merged in the half-open window ``[start, end)``, in number order.

        Args:
            start: aware datetime (any zone; compared as UTC).
            end: aware datetime.

        Raises:
            ValueError: a naive datetime.
            StoreError: a database error, or a stored row that no longer validates.
        """
        stmt = select(PullRequestRow.data).where(*_in_window(repo, start, end)).order_by(PullRequestRow.number)
        with self._read("reading PRs") as conn:
            rows = conn.execute(stmt).scalars().all()
        try:
            return [PullRequest.model_validate(data) for data in rows]
        except ValidationError as exc:
            raise StoreError(f"database {self.url}: a stored PR of {repo} does not validate: {exc.errors()[0]['msg']}") from None

    def titles_between(self, repo: str, start: datetime, end: datetime) -> list[tuple[int, str, datetime]]:
        """``(number, title, merged_at)`` of ``repo``'s PRs merged in ``[start, end)``, in number order:
        three columns over the ``(repo, merged_at)`` index, no JSON body parsed (a chat PR lookup's
        revert search over 56 days read and validated 588 whole PRs, 0.13 s CPU, on every ask).
        Raises ValueError (a naive datetime) or StoreError (a database error).
        """
        r = PullRequestRow
        stmt = select(r.number, r.title, r.merged_at).where(*_in_window(repo, start, end)).order_by(r.number)
        with self._read("reading PRs") as conn:
            return [(int(n), str(t), m) for n, t, m in conn.execute(stmt).all()]

    def pr_by_number(self, repo: str, number: int) -> PullRequest | None:
        """The stored PR ``number`` of ``repo`` (the primary key), None when it is not stored.

        Raises:
            StoreError: a database error, or the stored row no longer validates.
        """
        stmt = select(PullRequestRow.data).where(PullRequestRow.repo == repo, PullRequestRow.number == number)
        with self._read("reading PRs") as conn:
            data = conn.execute(stmt).scalar()
        if data is None:
            return None
        try:
            return PullRequest.model_validate(data)
        except ValidationError as exc:
            raise StoreError(f"database {self.url}: stored PR #{number} of {repo} does not validate: "
                             f"{exc.errors()[0]['msg']}") from None

    # -- history aggregates (indexed columns only; no PR body is read) ---------------------------

    def any_merged_between(self, repo: str, start: datetime | None, end: datetime) -> bool:
        """Whether any PR of ``repo`` merged in ``[start, end)`` is stored (``EXISTS`` on the
        ``(repo, merged_at)`` index; ``start`` None means no lower bound).

        Raises:
            ValueError: a naive datetime.
            StoreError: a database error.
        """
        _check_aware("end", end)
        cond = [PullRequestRow.repo == repo, PullRequestRow.merged_at < end]
        if start is not None:
            _check_aware("start", start)
            cond.append(PullRequestRow.merged_at >= start)
        stmt = select(select(PullRequestRow.number).where(*cond).exists())
        with self._read("reading PRs") as conn:
            return bool(conn.execute(stmt).scalar())

    def oldest_merged_at(self, repo: str) -> datetime | None:
        """The oldest ``merged_at`` (aware UTC) stored for ``repo``; None when it has no PRs.

        Raises:
            StoreError: a database error.
        """
        with self._read("reading PRs") as conn:
            return conn.execute(select(func.min(PullRequestRow.merged_at)).where(PullRequestRow.repo == repo)).scalar()

    def merged_at_of(self, repo: str, number: int) -> datetime | None:
        """When ``repo``'s PR ``number`` was merged (aware UTC), if stored (the primary key; no body read).

        Raises:
            StoreError: a database error.
        """
        stmt = select(PullRequestRow.merged_at).where(PullRequestRow.repo == repo, PullRequestRow.number == number)
        with self._read("reading PRs") as conn:
            return conn.execute(stmt).scalar()

    def authors_before(self, repo: str, before: datetime, logins: Iterable[str]) -> set[str]:
        """The logins among ``logins`` with a stored PR of ``repo`` merged before ``before`` whose author
        is not a bot (``author.is_bot`` false and no ``[bot]`` suffix, as the digest counts contributors).

        One row per author from ``first_merges`` (kept by every upsert: :func:`_first_merges`), so
        the cost does not grow with the history (issue 20: it read every earlier PR of each author).

        Raises:
            ValueError: ``before`` is naive.
            StoreError: a database error.
        """
        _check_aware("before", before)
        wanted = sorted({_no_nul(x) for x in logins if not x.endswith("[bot]")})
        found: set[str] = set()
        if not wanted:
            return found
        t = FIRST_MERGES
        with self._read("reading PRs") as conn:
            for i in range(0, len(wanted), _CHUNK):
                stmt = select(t.c.author_login).where(t.c.repo == repo, t.c.author_login.in_(wanted[i:i + _CHUNK]),
                                                      t.c.first_merged_at < before)
                found.update(conn.execute(stmt).scalars())
        return found

    def merged_times(self, repo: str, start: datetime | None, end: datetime | None = None) -> list[datetime]:
        """The ``merged_at`` instants (aware UTC, ascending) of ``repo``'s PRs in ``[start, end)``
        (either bound None: open), from the ``(repo, merged_at)`` index alone.

        Raises:
            ValueError: a naive datetime.
            StoreError: a database error.
        """
        cond = [PullRequestRow.repo == repo]
        if start is not None:
            _check_aware("start", start)
            cond.append(PullRequestRow.merged_at >= start)
        if end is not None:
            _check_aware("end", end)
            cond.append(PullRequestRow.merged_at < end)
        stmt = select(PullRequestRow.merged_at).where(*cond).order_by(PullRequestRow.merged_at)
        with self._read("reading PRs") as conn:
            return list(conn.execute(stmt).scalars())

    def window_version(self, repo: str, start: datetime, end: datetime) -> str:
        """A token that changes whenever a PR of ``repo`` merged in ``[start, end)`` is stored or its
        stored content changes: ``"{count}:{sum of revisions}"`` (a row's ``revision`` grows by one on
        every content change and rows are never deleted, so the token only grows). One aggregate over
        the ``(repo, merged_at)`` index range — what the chat's digest cache keys on, so a PR the
        webhook or the sync job stores is answered at once (no restart, no waiting out a ttl).

        Raises:
            ValueError: a naive datetime.
            StoreError: a database error.
        """
        r = PullRequestRow
        stmt = select(func.count(), func.coalesce(func.sum(r.revision), 0)).where(*_in_window(repo, start, end))
        with self._read("reading PRs") as conn:
            count, revisions = conn.execute(stmt).one()
        return f"{int(count)}:{int(revisions)}"

    def week_fetch(self, repo: str, week: str, tz: str) -> WeekFetch | None:
        """The latest recorded fetch of ``week`` of ``repo`` in zone ``tz`` (by ``started_at``), if any.

        Raises:
            StoreError: a database error.
        """
        t = WEEK_FETCHES
        stmt = (
            select(t)
            .where(t.c.repo == repo, t.c.week == week, t.c.tz == tz)
            .order_by(t.c.started_at.desc(), t.c.id.desc())
            .limit(1)
        )
        with self._errors("reading week fetches"), self._engine.connect() as conn:
            r = conn.execute(stmt).mappings().first()
        if r is None:
            return None
        return WeekFetch(repo=r["repo"], week=r["week"], tz=r["tz"], started_at=r["started_at"],
                         finished_at=r["finished_at"], prs=r["prs"], requests=r["requests"])

    def newest_merged_at(self, repo: str, *, before: datetime | None = None) -> datetime | None:
        """The newest ``merged_at`` (aware UTC) stored for ``repo`` (merged before ``before``, when
        given); None when there is none.

        Raises:
            ValueError: ``before`` is naive.
            StoreError: a database error.
        """
        stmt = select(func.max(PullRequestRow.merged_at)).where(PullRequestRow.repo == repo)
        if before is not None:
            _check_aware("before", before)
            stmt = stmt.where(PullRequestRow.merged_at < before)
        with self._read("reading PRs") as conn:
            return conn.execute(stmt).scalar()

    def count_prs(self, repo: str | None = None) -> int:
        """How many PRs are stored (of ``repo``, or of every repository).

        Raises:
            StoreError: a database error.
        """
        stmt = select(func.count()).select_from(PullRequestRow)
        if repo is not None:
            stmt = stmt.where(PullRequestRow.repo == repo)
        with self._errors("counting PRs"), self._engine.connect() as conn:
            return int(conn.execute(stmt).scalar_one())

    def repos(self) -> list[str]:
        """Repositories with stored PRs, sorted.

        Raises:
            StoreError: a database error.
        """
        with self._read("reading PRs") as conn:
            return list(conn.execute(select(PullRequestRow.repo).distinct().order_by(PullRequestRow.repo)).scalars())

    # -- DeliveryLog (chatbot.deliveries) and health ------------------------------------------------

    def ping(self) -> None:
        """Check that the database answers (``SELECT 1``).

        Raises:
            StoreError: the database cannot be reached.
        """
        with self._errors("checking"), self._engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    # -- integrity (issue 20: a corrupt SQLite file answered SELECT 1 and /healthz said ok) ----------

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

        _check_aware("now", now)
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

    def subscriptions_for_repo(self, repo: str) -> list[Subscription]:
        """Every subscription to ``repo`` (normalised), as :class:`chatbot.subscriptions.Subscription`,
        ordered by platform, workspace, subscriber kind, subscriber and module.

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import SUBSCRIPTIONS as s
        from chatbot.subscriptions import normalise

        stmt = (select(s).where(s.c.repo == normalise(repo))
                .order_by(s.c.platform, s.c.workspace, s.c.subscriber_kind, s.c.subscriber_id, s.c.module))
        with self._read("reading subscriptions") as conn:
            rows = conn.execute(stmt).mappings().all()
        return [Subscription(platform=r["platform"], workspace=r["workspace"], kind=r["subscriber_kind"],
                             subscriber=r["subscriber_id"], repo=r["repo"], module=r["module"]) for r in rows]

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

    # -- SubscriptionBook (chatbot.subscriptions) ---------------------------------------------

    def _insert(self, conn: Connection) -> Any:
        return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert

    def subscribe(self, sub: Subscription) -> bool:
        """Add a subscription: ``INSERT ... ON CONFLICT DO NOTHING`` on ``uq_subscriptions_key``.

        Idempotent under repeats and races (two workers subscribing at once leave one row); module
        and repo arrive normalised (:class:`~chatbot.subscriptions.Subscription` does it).

        Returns:
            True when the row is new, False when it already existed.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        row = {"platform": sub.platform, "workspace": sub.workspace, "subscriber_kind": sub.kind,
               "subscriber_id": sub.subscriber, "repo": sub.repo, "module": sub.module,
               "created_at": self._clock.now()}
        with self._errors("subscribing", writing=True), self._engine.begin() as conn:
            stmt = (
                self._insert(conn)(t).values(row)
                .on_conflict_do_nothing(index_elements=[t.c.platform, t.c.workspace, t.c.subscriber_kind,
                                                        t.c.subscriber_id, t.c.repo, t.c.module])
                .returning(t.c.id)
            )
            return conn.execute(stmt).first() is not None

    def unsubscribe(self, sub: Subscription) -> bool:
        """Remove a subscription.

        Returns:
            True when it existed.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        stmt = t.delete().where(t.c.platform == sub.platform, t.c.workspace == sub.workspace,
                                t.c.subscriber_kind == sub.kind, t.c.subscriber_id == sub.subscriber,
                                t.c.repo == sub.repo, t.c.module == sub.module)
        with self._errors("unsubscribing", writing=True), self._engine.begin() as conn:
            return (conn.execute(stmt).rowcount or 0) > 0

    def subscriptions_of(self, platform: str, workspace: str, kind: str, subscriber: str, repo: str) -> list[Subscription]:
        """The subscriptions of one subscriber to ``repo`` (normalised here), ordered by module.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        stmt = (select(t).where(t.c.platform == platform, t.c.workspace == workspace, t.c.subscriber_kind == kind,
                                t.c.subscriber_id == subscriber, t.c.repo == " ".join(repo.split()).casefold())
                .order_by(t.c.module))
        with self._read("reading subscriptions") as conn:
            return [_subscription(r) for r in conn.execute(stmt).mappings()]

    def subscriptions_to(self, repo: str, module: str | None = None) -> list[Subscription]:
        """Every subscription to ``repo`` (to one ``module`` when given), ordered by platform,
        workspace, kind, subscriber and module: the fan-out list of a digest.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        stmt = select(t).where(t.c.repo == " ".join(repo.split()).casefold())
        if module is not None:
            stmt = stmt.where(t.c.module == " ".join(module.split()).casefold())
        stmt = stmt.order_by(t.c.platform, t.c.workspace, t.c.subscriber_kind, t.c.subscriber_id, t.c.module)
        with self._read("reading subscriptions") as conn:
            return [_subscription(r) for r in conn.execute(stmt).mappings()]

    # -- LLM writer cache (chatbot.ports.SummaryCache) ------------------------------------------

    def get_summary(self, subject: str, content_hash: str, model: str) -> dict[str, object] | None:
        """The cached model payload for (subject, content SHA-256, model), or None.

        Raises:
            StoreError: a database error.
        """
        t = SUMMARIES
        with self._errors("reading a cached summary"), self._engine.connect() as conn:
            row = conn.execute(select(t.c.payload).where(
                t.c.subject == subject, t.c.content_sha256 == content_hash, t.c.model == model)).first()
        return dict(row[0]) if row is not None else None

    def put_summary(self, subject: str, content_hash: str, model: str, payload: dict[str, object],
                    prompt_tokens: int, completion_tokens: int) -> None:
        """Store a model payload (a second put of the same key keeps the first: same facts, same model).

        Raises:
            StoreError: a database error.
        """
        t = SUMMARIES
        with self._errors("storing a summary", writing=True), self._engine.begin() as conn:
            conn.execute(self._insert(conn)(t).values(
                subject=subject, content_sha256=content_hash, model=model, payload=payload,
                prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                created_at=self._clock.now(),
            ).on_conflict_do_nothing(index_elements=[t.c.subject, t.c.content_sha256, t.c.model]))

    # -- approvals of the weekly post (chatbot.approvals.ApprovalBook) -------------------------

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
        _check_aware("now", now)
        if deadline is not None:
            _check_aware("deadline", deadline)
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
        _check_aware("now", now)
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
        _check_aware("now", now)
        t = APPROVALS
        with self._errors("reading approvals"), self._engine.connect() as conn:
            rows = conn.execute(select(t).where(t.c.state == PENDING, t.c.deadline.is_not(None), t.c.deadline <= now)
                                .order_by(t.c.deadline, t.c.repo, t.c.week)).all()
        return [self._approval(r) for r in rows]

    # -- inbound event de-duplication (chatbot.events.EventLog) -------------------------------

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
        _check_aware("now", now)
        key = _event_key(key)
        t = PROCESSED_EVENTS
        # one statement, so autocommit: no BEGIN and COMMIT round trips on PostgreSQL (it is on
        # every inbound event's path before the ack)
        with self._errors("recording an event", writing=True), self._engine.connect() as plain:
            conn = plain.execution_options(isolation_level="AUTOCOMMIT")
            stmt = (self._insert(conn)(t).values(platform=platform, event_key=key, received_at=now, owner=owner)
                    .on_conflict_do_nothing(index_elements=[t.c.platform, t.c.event_key])
                    .returning(t.c.event_key))
            if conn.execute(stmt).first() is not None:
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
        _check_aware("now", now)
        t = PROCESSED_EVENTS
        with self._errors("recording an answer", writing=True), self._engine.connect() as plain:
            conn = plain.execution_options(isolation_level="AUTOCOMMIT")
            conn.execute(t.update().where(t.c.platform == platform, t.c.event_key == _event_key(key))
                         .values(answered_at=now))

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
        _check_aware("now", now)
        if retention < timedelta(hours=7):
            raise ValueError(f"event retention {retention} is under 7 hours: re-deliveries would be answered again")
        t = PROCESSED_EVENTS
        with self._errors("purging events", writing=True), self._engine.begin() as conn:
            conn.execute(REPLY_OUTBOX.delete().where(REPLY_OUTBOX.c.created_at < now - retention))
            return conn.execute(t.delete().where(t.c.received_at < now - retention)).rowcount or 0

    # -- reply outbox (chatbot.outbox) ----------------------------------------------------------

    def queue_reply(self, platform: str, key: str, payload: dict[str, Any], *, now: datetime, next_at: datetime,
                    error: str) -> None:
        """Keep what is left of the reply to ``key`` for another send at ``next_at``: a new row (one
        attempt), or the pending row's payload replaced and its attempts counted up (an upsert on
        ``(platform, event_key)``).

        Raises:
            ValueError: a naive datetime. StoreError: a database error (nothing was written).
        """
        _check_aware("now", now)
        _check_aware("next_at", next_at)
        t = REPLY_OUTBOX
        with self._errors("queueing a reply", writing=True), self._engine.begin() as conn:
            ins = self._insert(conn)(t).values(platform=platform, event_key=_event_key(key), payload=payload,
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
        _check_aware("now", now)
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
        _check_aware("until", until)
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
        _check_aware("now", now)
        t, ev = REPLY_OUTBOX, PROCESSED_EVENTS
        key = _event_key(key)
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
        _check_aware("now", now)
        t = REPLY_OUTBOX
        with self._errors("retrying a reply", writing=True), self._engine.begin() as conn:
            done = conn.execute(t.update().where(t.c.platform == platform, t.c.event_key == _event_key(key),
                                                 t.c.done_at.is_(None)).values(next_at=now))
            return done.rowcount == 1

    # -- internals -----------------------------------------------------------------------------

    def _upsert(self, conn: Connection, repo: str, prs: Sequence[PullRequest]) -> tuple[int, int]:
        by_number = {pr.number: pr for pr in prs}
        writer = PrWriter(conn)
        inserted = updated = 0
        numbers = sorted(by_number)
        for i in range(0, len(numbers), _CHUNK):
            for outcome in writer.upsert(repo, [(by_number[n], None) for n in numbers[i:i + _CHUNK]]):
                inserted += outcome == "inserted"
                updated += outcome == "updated"
        return inserted, updated

    @contextmanager
    def writer(self) -> Iterator[PrWriter]:
        """One transaction for a streamed import: yields a :class:`PrWriter`; commits when the block
        ends, rolls everything back when it raises (so a bad record late in a big file writes nothing).

        Raises:
            StoreError: a database error (nothing was written).
        """
        with self._errors("storing PRs", writing=True), self._engine.begin() as conn:
            yield PrWriter(conn)


def _upsert_statement(dialect: str) -> Any:
    """``INSERT ... ON CONFLICT (repo, number) DO UPDATE ... WHERE content changed RETURNING revision``
    for one row of bound parameters: built once per dialect and executed with many parameter sets,
    so SQLAlchemy compiles it once (issue 13: a 500-row multi-VALUES INSERT compiled per chunk took
    45% of an import)."""
    table = PULL_REQUESTS
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    ins = insert(table)
    excluded = ins.excluded
    return ins.on_conflict_do_update(
        index_elements=[table.c.repo, table.c.number],
        set_={
            "merged_at": excluded.merged_at,
            "author_login": excluded.author_login,
            "title": excluded.title,
            "data": excluded.data,
            "content_sha256": excluded.content_sha256,
            "source_sha256": excluded.source_sha256,
            "revision": table.c.revision + 1,
        },
        where=table.c.content_sha256 != excluded.content_sha256,
    ).returning(table.c.number, table.c.revision)


_STATEMENTS: dict[str, Any] = {}


def _first_merge_statement(dialect: str) -> Any:
    """``INSERT INTO first_merges ... ON CONFLICT (repo, author_login) DO UPDATE`` keeping the earlier
    instant, for one row of bound parameters (built once per dialect, executed with many)."""
    table = FIRST_MERGES
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    ins = insert(table)
    return ins.on_conflict_do_update(
        index_elements=[table.c.repo, table.c.author_login],
        set_={"first_merged_at": ins.excluded.first_merged_at},
        where=ins.excluded.first_merged_at < table.c.first_merged_at,
    )


def _first_merges(repo: str, prs: Iterable[PullRequest]) -> list[dict[str, Any]]:
    """The ``first_merges`` rows ``prs`` may lower: each human author's earliest merge among them
    (bots as :mod:`chatbot.pr_history` counts them: ``is_bot`` or a ``[bot]`` suffix), by login."""
    first: dict[str, datetime] = {}
    for pr in prs:
        a = pr.author
        if a is None or a.is_bot or a.login.endswith("[bot]"):
            continue
        login = _no_nul(a.login)
        if login not in first or pr.merged_at < first[login]:
            first[login] = pr.merged_at
    return [{"repo": repo, "author_login": k, "first_merged_at": v} for k, v in sorted(first.items())]


class PrWriter:
    """Upserts PR rows inside one open transaction (see :meth:`SqlStore.writer`).

    Rows go through one cached statement executed with many parameter sets; :meth:`source_hashes`
    lets an importer skip records it imported before, unchanged, before validating them.
    """

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        dialect = conn.dialect.name
        if dialect not in _STATEMENTS:
            _STATEMENTS[dialect] = _upsert_statement(dialect)
            _STATEMENTS[f"{dialect}:first_merges"] = _first_merge_statement(dialect)
        self._stmt = _STATEMENTS[dialect]
        self._first_stmt = _STATEMENTS[f"{dialect}:first_merges"]

    def source_hashes(self, repo: str, numbers: Sequence[int]) -> dict[int, str | None]:
        """``{number: source_sha256}`` of the stored rows of ``repo`` among ``numbers`` (absent rows left
        out; NULL for rows that did not come from an import). At most 500 numbers a call."""
        t = PULL_REQUESTS
        stmt = select(t.c.number, t.c.source_sha256).where(t.c.repo == repo, t.c.number.in_(list(numbers)))
        return {int(n): h for n, h in self._conn.execute(stmt)}

    def upsert(self, repo: str, items: Sequence[tuple[PullRequest, str | None]]) -> list[str]:
        """Upsert ``(pr, source_sha256)`` pairs of ``repo`` (distinct numbers; the hash None for PRs not
        read from an export).

        Returns:
            One outcome per item, in order: ``inserted``, ``updated`` or ``unchanged`` (the stored
            canonical JSON was equal, nothing written).
        """
        if not items:
            return []
        rows = [_row(repo, pr) | {"source_sha256": source} for pr, source in items]
        written = {int(n): int(rev) for n, rev in self._conn.execute(self._stmt, rows)}
        firsts = _first_merges(repo, (pr for pr, _ in items if pr.number in written))
        if firsts:  # only rows written can lower an author's first merge
            self._conn.execute(self._first_stmt, firsts)
        out = []
        for pr, _ in items:
            rev = written.get(pr.number)
            out.append("unchanged" if rev is None else "inserted" if rev == 1 else "updated")
        return out


def _subscription(r: Any) -> Subscription:
    return Subscription(platform=r["platform"], workspace=r["workspace"], kind=r["subscriber_kind"],
                        subscriber=r["subscriber_id"], repo=r["repo"], module=r["module"])


_SCHEMA_TABLES = (PULL_REQUESTS, WEEK_FETCHES, PROCESSED_EVENTS, SUBSCRIPTIONS, SUMMARIES, APPROVALS, REPLY_OUTBOX,
                  _DELIVERIES)
"""Every table :meth:`SqlStore.probe` reads a row of."""


def _event_key(key: str) -> str:
    """``key``, or ``sha256:`` + its SHA-256 when longer than the 255-character column."""
    return key if len(key) <= 255 else "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()
