"""The delivery log and the subscriber directory: ports the scheduler uses and the store implements.

The delivery log makes posting exactly-once per ``(repo, week, platform, destination, kind, part)``:
a row is claimed as ``sending`` before the platform call and marked ``sent`` with the platform's
message id after. The unique key decides between two replicas; a ``sending`` row left by a crash
is reconciled with :meth:`chatbot.ports.ChatDelivery.find_sent` before anything is re-sent.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from chatbot.subscriptions import Subscription

SENDING = "sending"
SENT = "sent"
FAILED = "failed"

RELEASED = "released"
"""The ``owner`` of a ``sending`` row handed back by its process (SIGTERM during a wait): any
process may reconcile and take it over at once."""


@dataclass(frozen=True, order=True)
class DeliveryKey:
    """The unique key of one delivered message part.

    Attributes:
        repo: ``owner/name``.
        week: ISO week ``2026-W20``.
        platform: ``slack`` or ``feishu``.
        destination: channel/chat/user id.
        kind: ``digest``, ``slice``, ``chart`` (the weekly chart's upload, part 1) or ``report`` (the
            full report posted as a file without a public URL, part 1).
        part: 1-based part number.
    """

    repo: str
    week: str
    platform: str
    destination: str
    kind: str
    part: int

    @property
    def token(self) -> str:
        """A stable opaque id of this key, at most 50 characters (Feishu's ``uuid`` limit):
        ``prhub-`` and 40 hex digits of SHA-256 over the key fields."""
        raw = "\x1f".join([self.repo, self.week, self.platform, self.destination, self.kind, str(self.part)])
        return "prhub-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]

    def __str__(self) -> str:
        return f"{self.repo} {self.week} {self.platform}:{self.destination} {self.kind}#{self.part}"


@dataclass(frozen=True)
class DeliveryRecord:
    """A row of the delivery log (instants aware UTC)."""

    key: DeliveryKey
    status: str
    message_id: str | None
    thread_id: str | None
    attempts: int
    reason: str | None
    created_at: datetime
    updated_at: datetime
    owner: str | None = None
    """Who holds a ``sending`` row: ``host:pid:start`` of the process (see
    :mod:`scheduler.owner`), :data:`RELEASED` when handed back, None when unknown (older rows)."""


class DeliveryLog(Protocol):
    """Port: the persistent delivery log (``SqlStore`` implements it on the ``deliveries`` table)."""

    def claim_delivery(self, key: DeliveryKey, now: datetime, owner: str | None = None) -> tuple[bool, DeliveryRecord]:
        """Insert ``key`` as ``sending`` held by ``owner`` unless a row exists (insert-on-conflict-do-nothing).

        Returns:
            ``(True, new row)`` when this call inserted it (the caller owns the send), else
            ``(False, existing row)``.

        Raises:
            chatbot.errors.PrhubError: the store cannot answer.
        """
        ...

    def take_over_delivery(self, key: DeliveryKey, seen: DeliveryRecord, now: datetime, owner: str | None = None) -> bool:
        """Compare-and-set: set the row back to ``sending`` held by ``owner`` (``updated_at = now``)
        only if it is still exactly as ``seen`` (same status and ``updated_at``). True when this call won."""
        ...

    def renew_delivery(self, key: DeliveryKey, owner: str, now: datetime) -> bool:
        """Heartbeat: ``updated_at = now`` on the ``sending`` row of ``key`` while ``owner`` holds it.
        False when the row is no longer this owner's (taken over, sent, failed)."""
        ...

    def release_delivery(self, key: DeliveryKey, owner: str, now: datetime) -> bool:
        """Hand a ``sending`` row held by ``owner`` back (owner :data:`RELEASED`, status kept
        ``sending``): the next process reconciles it at once instead of waiting out the lease."""
        ...

    def unfinished_deliveries(self) -> list[DeliveryRecord]:
        """Every ``sending`` row (any repository and week), ordered by repo, week, platform,
        destination, kind, part: what periodic reconciliation looks at."""
        ...

    def touch_delivery(self, key: DeliveryKey, attempts: int, now: datetime) -> None:
        """Record an attempt: ``attempts`` and ``updated_at = now`` (the row stays ``sending``)."""
        ...

    def mark_delivery_sent(self, key: DeliveryKey, message_id: str, thread_id: str | None, now: datetime) -> None:
        """Set the row ``sent`` with the platform's message id and thread."""
        ...

    def mark_delivery_failed(self, key: DeliveryKey, reason: str, now: datetime) -> None:
        """Set the row ``failed`` with a short ``reason`` (``ratelimited``, ``channel_not_found``)."""
        ...

    def deliveries_of(self, repo: str, week: str, kind: str | None = None) -> list[DeliveryRecord]:
        """Rows of ``repo`` and ``week`` (of ``kind`` when given), ordered by platform,
        destination, kind, part."""
        ...

    def has_deliveries(self, repo: str) -> bool:
        """Whether any row of ``repo`` exists (any week, kind or status): False on a store where
        the bot never posted for it, so a firing before the install is not a missed run."""
        ...


class SubscriberDirectory(Protocol):
    """Port: every subscription to a repository (for the weekly slices)."""

    def subscriptions_for_repo(self, repo: str) -> list[Subscription]:
        """All subscriptions to ``repo`` (normalised name), ordered by platform, workspace,
        subscriber kind, subscriber id and module."""
        ...
