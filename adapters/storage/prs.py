"""The PR rows of the store: :class:`chatbot.ports.PullRequestStore` (upserts, week fetches, windows).

PRs are upserted by ``(repo, number)`` with the dialect's ``INSERT ... ON CONFLICT DO UPDATE``;
an update happens only when the PR's canonical JSON changed, so importing or fetching the same
data twice writes nothing. A streamed import writes through one :class:`PrWriter` transaction.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, bindparam, func, select, text
from sqlalchemy.dialects import postgresql, sqlite

from adapters.storage.engine import CHUNK, StorePort, check_aware, no_nul
from adapters.storage.errors import StoreError
from adapters.storage.schema import FIRST_MERGES, PULL_REQUESTS, WEEK_FETCHES, PullRequestRow
from chatbot.errors import InputError
from chatbot.models import PullRequest
from chatbot.ports import WeekFetch


def _in_window(repo: str, start: datetime, end: datetime) -> tuple[Any, ...]:
    """The WHERE terms of ``repo``'s PRs merged in ``[start, end)`` (the ``(repo, merged_at)`` index).

    Raises:
        ValueError: a naive datetime.
    """
    check_aware("start", start)
    check_aware("end", end)
    r = PullRequestRow
    return (r.repo == repo, r.merged_at >= start, r.merged_at < end)


_WINDOW_VERSION = select(func.count(), func.coalesce(func.sum(PullRequestRow.revision), 0)).where(
    PullRequestRow.repo == bindparam("repo"), PullRequestRow.merged_at >= bindparam("start"),
    PullRequestRow.merged_at < bindparam("end"))
""":meth:`SqlPullRequests.window_version`'s aggregate, built once with bound parameters: a statement
built per call cost more CPU to construct and key for SQLAlchemy's compiled cache than to execute
(issue 20: 0.84 -> 0.33 ms a call on PostgreSQL; every chat question asks it)."""


_WRITES = itertools.count(1)
_written = 0
"""PR writes this process has finished (any store, committed or not): see :meth:`SqlPullRequests.pr_writes`."""


def _wrote() -> None:
    global _written
    _written = next(_WRITES)


def _canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _row(repo: str, pr: PullRequest) -> dict[str, Any]:
    data = pr.model_dump(mode="json")
    return {
        "repo": repo,
        "number": pr.number,
        "merged_at": pr.merged_at,
        "author_login": no_nul(pr.author.login) if pr.author else None,
        "title": no_nul(pr.title),
        "data": data,
        "content_sha256": hashlib.sha256(_canonical(data).encode("utf-8")).hexdigest(),
        "revision": 1,
    }


class SqlPullRequests(StorePort):
    """Stored PRs and week fetches: :class:`chatbot.ports.PullRequestStore`, the whole-PR reads of
    :class:`chatbot.pr_history.HistoryStore` and the window version the chat's digest cache keys on."""

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
        try:
            with self._errors("storing PRs", writing=True), self._engine.begin() as conn:
                return self._upsert(conn, repo, prs)
        finally:
            _wrote()

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
        check_aware("started_at", fetch.started_at)
        check_aware("finished_at", fetch.finished_at)
        try:
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
        finally:
            _wrote()

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
        check_aware("start", start)
        check_aware("end", end)
        with self._read("reading PRs") as conn:
            count, revisions = conn.execute(_WINDOW_VERSION, {"repo": repo, "start": start, "end": end}).one()
        return f"{int(count)}:{int(revisions)}"

    def pr_writes(self) -> int:
        """A number that changes whenever this process has finished a PR write (:meth:`upsert_prs`,
        :meth:`store_week`, :meth:`writer`; any store, committed or rolled back): read it before
        :meth:`window_version`, and a version read since it last changed is this process's latest.
        Writes of other processes do not change it."""
        return _written

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

    @contextmanager
    def writer(self) -> Iterator[PrWriter]:
        """One transaction for a streamed import: yields a :class:`PrWriter`; commits when the block
        ends, rolls everything back when it raises (so a bad record late in a big file writes nothing).

        Raises:
            StoreError: a database error (nothing was written).
        """
        try:
            with self._errors("storing PRs", writing=True), self._engine.begin() as conn:
                yield PrWriter(conn)
        finally:
            _wrote()

    def _upsert(self, conn: Connection, repo: str, prs: Sequence[PullRequest]) -> tuple[int, int]:
        by_number = {pr.number: pr for pr in prs}
        writer = PrWriter(conn)
        inserted = updated = 0
        numbers = sorted(by_number)
        for i in range(0, len(numbers), CHUNK):
            for outcome in writer.upsert(repo, [(by_number[n], None) for n in numbers[i:i + CHUNK]]):
                inserted += outcome == "inserted"
                updated += outcome == "updated"
        return inserted, updated


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
        login = no_nul(a.login)
        if login not in first or pr.merged_at < first[login]:
            first[login] = pr.merged_at
    return [{"repo": repo, "author_login": k, "first_merged_at": v} for k, v in sorted(first.items())]


ANALYZE_AFTER = 10_000
"""Records an import looks up before PostgreSQL's statistics of the PR tables are refreshed, then at
every doubling (:meth:`PrWriter.source_hashes`). Without statistics (a fresh store, autovacuum off or
not yet run) the planner took ``repo = ? AND number IN (500 numbers)`` for a scan of every row of the
repository: the 50x history benchmark's re-import kept the server busy 313 s of CPU (8.4 s a lookup
at 412,550 PRs; 1 ms by the primary key once analysed)."""


class PrWriter:
    """Upserts PR rows inside one open transaction (see :meth:`SqlStore.writer`).

    Rows go through one cached statement executed with many parameter sets; :meth:`source_hashes`
    lets an importer skip records it imported before, unchanged, before validating them.
    """

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._looked_up = 0
        self._next_analyze = ANALYZE_AFTER
        dialect = conn.dialect.name
        self._analyzes = dialect == "postgresql"
        if dialect not in _STATEMENTS:
            _STATEMENTS[dialect] = _upsert_statement(dialect)
            _STATEMENTS[f"{dialect}:first_merges"] = _first_merge_statement(dialect)
        self._stmt = _STATEMENTS[dialect]
        self._first_stmt = _STATEMENTS[f"{dialect}:first_merges"]

    def source_hashes(self, repo: str, numbers: Sequence[int]) -> dict[int, str | None]:
        """``{number: source_sha256}`` of the stored rows of ``repo`` among ``numbers`` (absent rows left
        out; NULL for rows that did not come from an import). At most 500 numbers a call."""
        t = PULL_REQUESTS
        self._looked_up += len(numbers)
        if self._analyzes and self._looked_up >= self._next_analyze:
            self._analyze()
        stmt = select(t.c.number, t.c.source_sha256).where(t.c.repo == repo, t.c.number.in_(list(numbers)))
        return {int(n): h for n, h in self._conn.execute(stmt)}

    def _analyze(self) -> None:
        """Refresh PostgreSQL's planner statistics of the PR tables, at 10,000, 20,000, 40,000, …
        records of one import (a few ANALYZEs per import, each a sample of at most 30,000 rows)."""
        for table in (PULL_REQUESTS, FIRST_MERGES):
            self._conn.execute(text(f"ANALYZE {self._conn.dialect.identifier_preparer.format_table(table)}"))
        self._next_analyze *= 2

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
