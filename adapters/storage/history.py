"""History aggregates of the store (:class:`chatbot.pr_history.HistoryStore`): indexed columns only,
no PR body is read."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import bindparam, func, select

from adapters.storage.engine import CHUNK, StorePort, check_aware, no_nul
from adapters.storage.schema import FIRST_MERGES, PullRequestRow


_SPAN = select(func.min(PullRequestRow.merged_at), func.max(PullRequestRow.merged_at)).where(
    PullRequestRow.repo == bindparam("repo"))
"""Oldest and newest merge of a repository: one statement, built once with a bound parameter."""
_MERGED_AT = select(PullRequestRow.merged_at).where(PullRequestRow.repo == bindparam("repo"),
                                                    PullRequestRow.number == bindparam("number"))
"""A PR's merge instant by primary key (a chat PR lookup's first read), built once."""


class SqlHistory(StorePort):
    """Aggregates over the ``(repo, merged_at)`` index and ``first_merges``: existence, bounds, merge
    times, first-time authors, counts and the list of repositories."""

    def any_merged_between(self, repo: str, start: datetime | None, end: datetime) -> bool:
        """Whether any PR of ``repo`` merged in ``[start, end)`` is stored (``EXISTS`` on the
        ``(repo, merged_at)`` index; ``start`` None means no lower bound).

        Raises:
            ValueError: a naive datetime.
            StoreError: a database error.
        """
        check_aware("end", end)
        cond = [PullRequestRow.repo == repo, PullRequestRow.merged_at < end]
        if start is not None:
            check_aware("start", start)
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

    def merged_span(self, repo: str) -> tuple[datetime, datetime] | None:
        """The oldest and the newest ``merged_at`` (aware UTC) stored for ``repo`` in one query (a
        chat answer's "the stored PRs are from … to …" read them as two); None when it has no PRs.

        Raises:
            StoreError: a database error.
        """
        with self._read("reading PRs") as conn:
            first, last = conn.execute(_SPAN, {"repo": repo}).one()
        return None if first is None or last is None else (first, last)

    def merged_at_of(self, repo: str, number: int) -> datetime | None:
        """When ``repo``'s PR ``number`` was merged (aware UTC), if stored (the primary key; no body read).

        Raises:
            StoreError: a database error.
        """
        with self._read("reading PRs") as conn:
            return conn.execute(_MERGED_AT, {"repo": repo, "number": number}).scalar()

    def authors_before(self, repo: str, before: datetime, logins: Iterable[str]) -> set[str]:
        """The logins among ``logins`` with a stored PR of ``repo`` merged before ``before`` whose author
        is not a bot (``author.is_bot`` false and no ``[bot]`` suffix, as the digest counts contributors).

        One row per author from ``first_merges`` (kept by every upsert: :func:`_first_merges`), so
        the cost does not grow with the history (issue 20: it read every earlier PR of each author).

        Raises:
            ValueError: ``before`` is naive.
            StoreError: a database error.
        """
        check_aware("before", before)
        wanted = sorted({no_nul(x) for x in logins if not x.endswith("[bot]")})
        found: set[str] = set()
        if not wanted:
            return found
        t = FIRST_MERGES
        with self._read("reading PRs") as conn:
            for i in range(0, len(wanted), CHUNK):
                stmt = select(t.c.author_login).where(t.c.repo == repo, t.c.author_login.in_(wanted[i:i + CHUNK]),
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
            check_aware("start", start)
            cond.append(PullRequestRow.merged_at >= start)
        if end is not None:
            check_aware("end", end)
            cond.append(PullRequestRow.merged_at < end)
        stmt = select(PullRequestRow.merged_at).where(*cond).order_by(PullRequestRow.merged_at)
        with self._read("reading PRs") as conn:
            return list(conn.execute(stmt).scalars())

    def newest_merged_at(self, repo: str, *, before: datetime | None = None) -> datetime | None:
        """The newest ``merged_at`` (aware UTC) stored for ``repo`` (merged before ``before``, when
        given); None when there is none.

        Raises:
            ValueError: ``before`` is naive.
            StoreError: a database error.
        """
        stmt = select(func.max(PullRequestRow.merged_at)).where(PullRequestRow.repo == repo)
        if before is not None:
            check_aware("before", before)
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
