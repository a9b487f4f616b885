"""When a claim held by another process may be taken over: the pure take-over rules, no I/O.

Two kinds of claim share one shape, a holder and the instant it last spoke for its claim:

* an inbound chat event (``processed_events``: ``owner``, ``received_at``, ``answered_at``),
  claimed before the ack and answered after the reply is posted (issue 9);
* a ``sending`` part of the delivery log (``deliveries``: ``owner``, ``updated_at``), a lease its
  holder renews while it waits (:mod:`scheduler.delivery`).

The store only compares-and-sets a row it read (``SqlStore.claim_event``, ``take_over_delivery``);
whether the row it read may be taken is decided here, from the row, ``now`` and a
:class:`Liveness` (:class:`scheduler.owner.ProcessOwner` in production) that says whether a holder
runs. This module reads no clock and no ``/proc``: every instant and every liveness answer is
passed in, so the rules are tested as tables at their thresholds (``tests/scheduler/test_claims.py``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

CLAIM_STALE = timedelta(seconds=60)
"""How old an unanswered chat-event claim of a holder whose liveness cannot be checked (another
host, or none recorded) must be before a retry takes it over (Slack retries after 1 and 5 minutes)."""


class Liveness(Protocol):
    """What the rules ask about a holder token (``host:pid:start``)."""

    def is_local(self, owner: str | None) -> bool:
        """Whether ``owner`` names a process whose liveness :meth:`is_dead` can tell."""
        ...

    def is_dead(self, owner: str | None) -> bool:
        """Whether ``owner`` is known to be gone (handed back, or a local process no longer running)."""
        ...


def reclaimable(owner: str | None, claimed_at: datetime, answered: bool, now: datetime, liveness: Liveness,
                stale: timedelta = CLAIM_STALE) -> bool:
    """Whether a retry at ``now`` may take over the chat-event claim held by ``owner`` since ``claimed_at``.

    An answered claim never (its reply is posted). A holder whose liveness can be checked keeps it
    while it runs, however slow its answer, and loses it at once when it is dead; any other holder
    (another host, none recorded) keeps it for ``stale`` and loses it at exactly ``stale``.
    """
    if answered:
        return False
    if liveness.is_local(owner):
        return liveness.is_dead(owner)
    return now - claimed_at >= stale


def lease_expired(owner: str | None, updated_at: datetime, now: datetime, lease_seconds: float,
                  liveness: Liveness) -> bool:
    """Whether the ``sending`` delivery part held by ``owner``, last renewed at ``updated_at``, may be
    taken over at ``now``: its lease ran out (untouched for exactly ``lease_seconds`` or longer) or
    its holder is known dead (handed back at shutdown, or a local process that no longer runs)."""
    return (now - updated_at).total_seconds() >= lease_seconds or liveness.is_dead(owner)


def resend_deduplicated(updated_at: datetime, started_at: datetime, now: datetime, dedup_seconds: float) -> bool:
    """Whether a live-leased ``sending`` part may be sent again anyway: it was last touched before
    this process started at ``started_at`` (a previous run left it) and the platform still
    de-duplicates a re-send by its key (less than ``dedup_seconds`` since ``updated_at``; Feishu's
    1-hour ``uuid``, 0 for platforms that do not)."""
    return updated_at < started_at and (now - updated_at).total_seconds() < dedup_seconds
