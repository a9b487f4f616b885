"""GraphQL points: what a query costs and how many a run may spend an hour.

GitHub's primary GraphQL limit is points, not requests (5,000 an hour for a user token). Its
documented score of a query ("Rate limits and query limits for the GraphQL API"): add up the
requests needed to fulfil each connection, assuming every connection returns its full ``first`` /
``last`` (a connection under another is requested once per parent node, so nested ``first:``
multiply), divide by 100 and round; the minimum is 1. :func:`score` is that last step; the query
module gives the request counts of its own queries.

:class:`PointsBudget` keeps what GitHub reports back in ``rateLimit { cost remaining resetAt }``
after every query and answers whether the next one fits in the run's budget (default 1,000 points
an hour, a fifth of a token's limit, leaving the rest to other users of the token); when it does
not, the source sizes the query down, and when not even the smallest fits it waits for ``resetAt``
through the injected clock and sleeper (tests move the clock, nothing sleeps).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from chatbot.errors import InputError, RateLimitedError
from chatbot.ports import Clock

log = logging.getLogger(__name__)

DEFAULT_POINTS_BUDGET = 1000
"""GraphQL points a run may spend per rate-limit window (an hour) unless configured."""
MAX_POINTS_BUDGET = 10_000
"""The largest budget accepted: GitHub's hourly limit for a GitHub Enterprise Cloud token."""


def score(requests: int) -> int:
    """GitHub's points for a query needing ``requests`` connection requests: ``requests / 100``
    rounded half up, at least 1 (``5101`` -> 51, ``851`` -> 9, ``10`` -> 1)."""
    return max(1, (requests + 50) // 100)


def check_budget(value: object, where: str) -> int:
    """A points budget as an int in 1..:data:`MAX_POINTS_BUDGET`.

    Args:
        value: the configured value (an int, or the text of an option or variable).
        where: what set it, for the message (``--points-budget``, ``PRHUB_GITHUB_POINTS``).

    Raises:
        InputError: not a whole number in range; one line naming ``where`` and the range.
    """
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 1 <= int(text) <= MAX_POINTS_BUDGET:
        raise InputError(f"{where} {text!r}: use a whole number of GraphQL points an hour from 1 to "
                         f"{MAX_POINTS_BUDGET:,} (default {DEFAULT_POINTS_BUDGET:,}; a token has 5,000)")
    return int(text)


def _instant(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        return None


@dataclass
class PointsBudget:
    """The points a run may spend per rate-limit window, and what it spent.

    Attributes:
        per_hour: points allowed per window (:func:`check_budget`).
        clock: aware-UTC clock the reset is measured on.
        sleeper: waits seconds (``time.sleep``; tests advance their clock instead).
        used: points charged in the current window (GitHub's ``cost`` of each answer).
        total: points charged over the run (every window).
        remaining: GitHub's ``remaining`` after the last answer (None before the first).
        reset_at: GitHub's ``resetAt`` of the current window (None before the first answer).
        waits: seconds waited for a reset, each.
        max_wait: the longest wait for a reset, seconds; None: as long as it takes (a backfill).
    """

    per_hour: int
    clock: Clock
    sleeper: Callable[[float], None]
    used: int = 0
    total: int = 0
    remaining: int | None = None
    reset_at: datetime | None = None
    waits: list[float] = field(default_factory=list)
    max_wait: float | None = None

    def __post_init__(self) -> None:
        self.per_hour = check_budget(self.per_hour, "points budget")

    def record(self, rate_limit: Any) -> int:
        """Take one answer's ``rateLimit`` object (``cost``, ``remaining``, ``resetAt``); a later
        ``resetAt`` opens a new window (``used`` starts again). Returns the cost (0 when absent)."""
        if not isinstance(rate_limit, dict):
            return 0
        cost = int(rate_limit.get("cost") or 0)
        reset = _instant(rate_limit.get("resetAt"))
        if reset is not None and (self.reset_at is None or reset > self.reset_at):
            if self.reset_at is not None:
                self.used = 0
            self.reset_at = reset
        self.used += cost
        self.total += cost
        if rate_limit.get("remaining") is not None:
            self.remaining = int(rate_limit["remaining"])
        return cost

    def left(self) -> int:
        """Points the next query may cost: the budget's rest, and never more than GitHub's remaining."""
        if self.reset_at is not None and self.clock.now() >= self.reset_at:
            self.used, self.remaining = 0, None  # the window has reset
        rest = self.per_hour - self.used
        return rest if self.remaining is None else min(rest, self.remaining)

    def wait_for_reset(self, need: int) -> None:
        """Wait until ``resetAt`` (one second past it) because a query of ``need`` points does not
        fit; then the window's budget is whole again.

        Raises:
            RateLimitedError: the wait is longer than ``max_wait`` (``reset_at`` set).
        """
        reset = self.reset_at
        now = self.clock.now()
        wait = max((reset - now).total_seconds(), 0.0) + 1.0 if reset is not None else 60.0
        if self.max_wait is not None and wait > self.max_wait:
            raise RateLimitedError(
                f"GitHub points budget spent ({self.used:,} of {self.per_hour:,} this hour); the reset at "
                f"{reset or now:%H:%M} UTC is {wait / 60:.0f} min away, past the {self.max_wait / 60:.0f} min cap: "
                "try again after it (or raise --points-budget / PRHUB_GITHUB_POINTS_BUDGET)", reset or now)
        log.warning("GitHub points budget spent (%d of %d this hour, %s left at GitHub; the next query costs %d): "
                    "waiting %.0f s for the reset at %s", self.used, self.per_hour,
                    "?" if self.remaining is None else self.remaining, need, wait,
                    f"{reset:%H:%M:%S} UTC" if reset else "an unknown time")
        self.waits.append(wait)
        self.sleeper(wait)
        self.used, self.remaining = 0, None
