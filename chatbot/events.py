"""Inbound chat events: the port that remembers which messages were accepted (platform-free).

Platforms deliver one user message several times (retries of events they think unanswered, one
message as two event types, re-pushes hours later with a new event id), so each platform adapter
derives a key from the *message*, not the delivery (``InboundMessage.dedup_key``), and the chat
pipeline (:class:`chatbot.inbound.ChatService`) claims it here only for a message it accepts for
processing, so an ignored twin can never take the key from the answered one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class EventLog(Protocol):
    """Port: persistent, shared de-duplication of inbound events (implemented by the store)."""

    def claim_event(self, platform: str, key: str, now: datetime) -> bool:
        """Record ``key`` of ``platform`` as accepted at ``now``; True only for the first claim (or
        for the one take-over of an unanswered claim whose claimant died)."""
        ...

    def mark_event_answered(self, platform: str, key: str, now: datetime) -> None:
        """Record that the answer to ``key`` is posted: later deliveries of it stay ignored."""
        ...
