"""Search strings and window splitting for GitHub's issue search (pure functions, no I/O).

GitHub search ranges are inclusive at both ends with one-second precision, so the half-open window
``[start, end)`` becomes ``merged:<ceil(start)>..<ceil(end) - 1 s>`` with explicit UTC instants
(``2026-05-11T00:00:00Z..2026-05-17T23:59:59Z``), never a date-only range.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

SECOND = timedelta(seconds=1)
DAY = timedelta(days=1)
_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def _ceil_second(moment: datetime) -> datetime:
    """``moment`` (aware) in UTC, rounded up to a whole second."""
    utc = moment.astimezone(timezone.utc)
    if utc.microsecond:
        utc = utc.replace(microsecond=0) + SECOND
    return utc


def instant(moment: datetime) -> str:
    """An aware datetime as GitHub's search instant form, e.g. ``2026-05-11T00:00:00Z`` (UTC, seconds)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def merged_range(start: datetime, end: datetime) -> str:
    """The ``merged:`` qualifier for the half-open window ``[start, end)`` (aware datetimes).

    Example: 2026-05-11 00:00 UTC .. 2026-05-18 00:00 UTC ->
    ``merged:2026-05-11T00:00:00Z..2026-05-17T23:59:59Z``.

    Raises:
        ValueError: naive datetimes, or a window holding no whole second.
    """
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("window bounds must be timezone-aware")
    first = _ceil_second(start)
    last = _ceil_second(end) - SECOND
    if last < first:
        raise ValueError(f"empty window {start.isoformat()} .. {end.isoformat()}")
    return f"merged:{instant(first)}..{instant(last)}"


def merged_search(repo: str, start: datetime, end: datetime) -> str:
    """The issue-search query for PRs of ``repo`` (``owner/name``) merged in ``[start, end)``.

    Example: ``repo:vllm-project/vllm is:pr is:merged merged:2026-05-11T00:00:00Z..2026-05-17T23:59:59Z``.

    Raises:
        ValueError: ``repo`` is not ``owner/name``, or as :func:`merged_range`.
    """
    if not _REPO_RE.match(repo):
        raise ValueError(f"invalid repository {repo!r}: use owner/name")
    return f"repo:{repo} is:pr is:merged {merged_range(start, end)}"


def split_window(start: datetime, end: datetime) -> list[tuple[datetime, datetime]] | None:
    """Split ``[start, end)`` in two halves for a search that hit the result cap.

    A window longer than a day is split at the UTC midnight closest to its middle (day-aligned
    parts); a day or less is halved at the middle second. Returns ``None`` when the window is one
    second or shorter and cannot be split further.
    """
    first = _ceil_second(start)
    stop = _ceil_second(end)
    span = stop - first
    if span <= SECOND:
        return None
    middle = first + timedelta(seconds=math.floor(span.total_seconds() / 2))
    if span > DAY:
        floor = middle.replace(hour=0, minute=0, second=0, microsecond=0)
        candidates = [c for c in (floor, floor + DAY) if first < c < stop]
        if candidates:
            middle = min(candidates, key=lambda c: abs(c - middle))
    return [(start, middle), (middle, end)]
