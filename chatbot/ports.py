"""Ports: the interfaces the core owns and the adapters implement (cosmicpython style).

The core and the scheduler depend on these Protocols only; ``prhub/bootstrap.py`` injects the
concrete adapters (file source, GitHub source, SQLAlchemy store, Slack/Feishu deliveries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from chatbot.models import PullRequest


class Clock(Protocol):
    """Source of the current time (aware, UTC). Tests pass a fixed clock."""

    def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


@dataclass(frozen=True)
class FetchResult:
    """What one fetch of merged PRs brought: the PRs and how many HTTP requests it cost."""

    prs: list[PullRequest]
    requests: int = 0
    complete: bool = True
    matched: int | None = None
    """How many PRs the source said matched (differs from ``len(prs)`` only when incomplete)."""


class PullRequestSource(Protocol):
    """Where merged PRs come from (a gh-JSON export, the GitHub API, the store)."""

    def merged_between(self, repo: str, start: datetime, end: datetime) -> FetchResult:
        """PRs of ``repo`` merged in the half-open window ``[start, end)`` (aware datetimes).

        Raises:
            chatbot.errors.PrhubError: the source cannot answer (rate limit, permission, bad input).
        """
        ...


@dataclass(frozen=True)
class WeekFetch:
    """The record of one stored fetch of a week: when it began and ended (UTC), PRs and requests."""

    repo: str
    week: str
    tz: str
    started_at: datetime
    finished_at: datetime
    prs: int
    requests: int


class PullRequestStore(Protocol):
    """Persistent PRs, upserted by (repo, number); history for trends and new contributors."""

    def upsert_prs(self, repo: str, prs: Sequence[PullRequest]) -> tuple[int, int]:
        """Insert or update PRs in one transaction; returns ``(inserted, updated)`` (unchanged rows count in neither).

        Raises:
            chatbot.errors.PrhubError: the store cannot write (nothing was written).
        """
        ...

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """Stored PRs of ``repo`` merged in ``[start, end)`` (aware datetimes), in number order.

        Raises:
            chatbot.errors.PrhubError: the store cannot answer.
        """
        ...

    def store_week(self, repo: str, prs: Sequence[PullRequest], fetch: WeekFetch) -> tuple[int, int]:
        """Upsert a week's PRs and record its fetch, in one transaction (whole or not at all).

        Returns ``(inserted, updated)`` as :meth:`upsert_prs` (callers may ignore it).

        Raises:
            chatbot.errors.PrhubError: the store cannot write (nothing was written).
        """
        ...

    def week_fetch(self, repo: str, week: str, tz: str) -> WeekFetch | None:
        """The latest recorded fetch of that week (``2026-W20``, IANA ``tz``), if any."""
        ...

    def newest_merged_at(self, repo: str) -> datetime | None:
        """The newest stored ``merged_at`` of ``repo`` (aware UTC); None when the store has none."""
        ...
