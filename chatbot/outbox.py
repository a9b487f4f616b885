"""Chat replies that failed to send, kept until they are posted (issue 20: a question is answered once,
even when the platform refuses the first reply).

A platform adapter renders its answer as a JSON payload it alone understands (Slack: the channel,
thread and Block Kit messages; Feishu: the message replied to and its cards) and tries to post it.
When a part fails, what is left is queued here by the message's de-duplication key, and a worker
(``prhub/outbox.py``) posts it again with exponential backoff until it is sent or
:data:`MAX_ATTEMPTS` are spent. Only a posted reply marks the event answered; a platform's retry of an
event whose reply is queued makes the next attempt due at once instead of being ignored.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

MAX_ATTEMPTS = 12
"""Sends of one reply at most (the first included); with 2 s doubling to 5 min, the last one is about
23 minutes after the question."""


class PendingReply(BaseModel):
    """One queued reply.

    Attributes:
        platform: the platform's registry name.
        key: the inbound message's de-duplication key (``InboundMessage.dedup_key``).
        payload: what is left to post, in the adapter's own JSON shape.
        attempts: sends tried so far (>= 1).
        next_at: when the next send is due (aware UTC).
        error: why the last send failed (one line).
    """

    model_config = ConfigDict(frozen=True)

    platform: str
    key: str
    payload: dict[str, Any]
    attempts: int
    next_at: datetime
    error: str = ""


def backoff(attempts: int, *, first: float, cap: float) -> timedelta:
    """The wait after the ``attempts``-th failed send: ``first`` seconds doubling per attempt, at most
    ``cap`` (2, 4, 8 … 300 s with the defaults of ``prhub serve``)."""
    return timedelta(seconds=min(cap, first * 2 ** max(0, attempts - 1)))


class ReplyOutbox(Protocol):
    """Port: where the chat pipeline queues a reply that failed (the store, behind ``prhub/outbox.py``)."""

    def queue(self, platform: str, key: str, payload: dict[str, Any], error: str) -> None:
        """Keep ``payload`` (what is left of the reply to ``key``) for another send."""
        ...

    def retry_now(self, platform: str, key: str) -> bool:
        """Make the queued reply to ``key`` due at once; False when none is queued."""
        ...
