"""The stored history chat answers may read beyond one week's digest: how far back it goes, the week
a PR number was merged in, the authors merged before a week, the raw PRs of a window (their
changed paths) and the titles of a window (:class:`PRTitle`: what revert matching reads, without
the cost of whole PRs). A port (:class:`PRHistory`) with two implementations: :class:`ListHistory` over a
list of PRs (``prhub ask`` from files, tests) and :class:`StoreHistory` over the PR store.

Instants are aware UTC datetimes; windows are half-open ``[start, end)``. Bots (``is_bot`` or a
``[bot]`` login suffix) never count as authors, as in the digest's contributors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import NamedTuple, Protocol

from chatbot.models import PullRequest


class PRTitle(NamedTuple):
    """One stored PR's number, title and merge instant (aware UTC): all that revert matching
    reads, so a window of them costs a column read instead of validating whole PRs."""

    number: int
    title: str
    merged_at: datetime


def _human(pr: PullRequest) -> str | None:
    a = pr.author
    if a is None or a.is_bot or a.login.endswith("[bot]"):
        return None
    return a.login


class PRHistory(Protocol):
    """What the stored PRs of one repository can tell a chat answer."""

    def oldest_merged_at(self) -> datetime | None:
        """The oldest stored merge instant (aware UTC); None when nothing is stored."""
        ...

    def merged_span(self) -> tuple[datetime, datetime] | None:
        """The oldest and the newest stored merge instant (aware UTC); None when nothing is stored."""
        ...

    def merged_at_of(self, number: int) -> datetime | None:
        """When PR ``number`` was merged, if it is stored."""
        ...

    def authors_before(self, before: datetime, logins: Iterable[str]) -> set[str]:
        """The human logins among ``logins`` with a stored PR merged before ``before``."""
        ...

    def merged_between(self, start: datetime, end: datetime) -> Sequence[PullRequest]:
        """Stored PRs merged in ``[start, end)``, in number order.

        Raises:
            chatbot.errors.PrhubError: the store cannot answer.
        """
        ...

    def titles_between(self, start: datetime, end: datetime) -> Sequence[PRTitle]:
        """Number, title and merge instant of the stored PRs merged in ``[start, end)``, in number order.

        Raises:
            chatbot.errors.PrhubError: the store cannot answer.
        """
        ...


class ListHistory:
    """:class:`PRHistory` over a list of PRs (any weeks; a number seen twice keeps the last)."""

    def __init__(self, prs: Iterable[PullRequest]) -> None:
        self._by_number = {p.number: p for p in prs}
        self._prs = sorted(self._by_number.values(), key=lambda p: p.number)

    def oldest_merged_at(self) -> datetime | None:
        """See :meth:`PRHistory.oldest_merged_at`."""
        return min((p.merged_at for p in self._prs), default=None)

    def merged_span(self) -> tuple[datetime, datetime] | None:
        """See :meth:`PRHistory.merged_span`."""
        times = [p.merged_at for p in self._prs]
        return (min(times), max(times)) if times else None

    def merged_at_of(self, number: int) -> datetime | None:
        """See :meth:`PRHistory.merged_at_of`."""
        p = self._by_number.get(number)
        return p.merged_at if p is not None else None

    def authors_before(self, before: datetime, logins: Iterable[str]) -> set[str]:
        """See :meth:`PRHistory.authors_before`."""
        wanted = set(logins)
        return {a for p in self._prs if p.merged_at < before and (a := _human(p)) is not None and a in wanted}

    def merged_between(self, start: datetime, end: datetime) -> Sequence[PullRequest]:
        """See :meth:`PRHistory.merged_between`."""
        return [p for p in self._prs if start <= p.merged_at < end]

    def titles_between(self, start: datetime, end: datetime) -> Sequence[PRTitle]:
        """See :meth:`PRHistory.titles_between`."""
        return [PRTitle(p.number, p.title, p.merged_at) for p in self.merged_between(start, end)]


class HistoryStore(Protocol):
    """The PR store's history queries (``adapters.storage.SqlStore`` implements them)."""

    def oldest_merged_at(self, repo: str) -> datetime | None:
        """Oldest stored merge of ``repo``."""
        ...

    def merged_span(self, repo: str) -> tuple[datetime, datetime] | None:
        """Oldest and newest stored merge of ``repo`` (one query)."""
        ...

    def merged_at_of(self, repo: str, number: int) -> datetime | None:
        """When ``repo``'s PR ``number`` was merged, if stored."""
        ...

    def authors_before(self, repo: str, before: datetime, logins: Iterable[str]) -> set[str]:
        """Human logins among ``logins`` merged in ``repo`` before ``before``."""
        ...

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """Stored PRs of ``repo`` merged in ``[start, end)``."""
        ...

    def titles_between(self, repo: str, start: datetime, end: datetime) -> list[tuple[int, str, datetime]]:
        """``(number, title, merged_at)`` of ``repo``'s PRs merged in ``[start, end)``, in number order."""
        ...


class StoreHistory:
    """:class:`PRHistory` of one repository in the PR store (every call is one store query).

    Args:
        store: the store (its history queries).
        repo: ``owner/name``.
    """

    def __init__(self, store: HistoryStore, repo: str) -> None:
        self.store = store
        self.repo = repo

    def oldest_merged_at(self) -> datetime | None:
        """See :meth:`PRHistory.oldest_merged_at`."""
        return self.store.oldest_merged_at(self.repo)

    def merged_span(self) -> tuple[datetime, datetime] | None:
        """See :meth:`PRHistory.merged_span`."""
        return self.store.merged_span(self.repo)

    def merged_at_of(self, number: int) -> datetime | None:
        """See :meth:`PRHistory.merged_at_of`."""
        return self.store.merged_at_of(self.repo, number)

    def authors_before(self, before: datetime, logins: Iterable[str]) -> set[str]:
        """See :meth:`PRHistory.authors_before`."""
        return self.store.authors_before(self.repo, before, logins)

    def merged_between(self, start: datetime, end: datetime) -> Sequence[PullRequest]:
        """See :meth:`PRHistory.merged_between`."""
        return self.store.merged_between(self.repo, start, end)

    def titles_between(self, start: datetime, end: datetime) -> Sequence[PRTitle]:
        """See :meth:`PRHistory.titles_between` (one query of three columns, no PR body read)."""
        return [PRTitle(*row) for row in self.store.titles_between(self.repo, start, end)]
