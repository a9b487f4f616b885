"""Inbound chat events: the de-duplication keys and the port that remembers them (platform-free).

Platforms deliver one user message several times: Slack retries an event it thinks unanswered and
sends a channel message that mentions the app twice (``app_mention`` and ``message``, different
``event_id``, same ``channel``/``ts``); Feishu re-pushes an event at about 15 s, 5 min, 1 h and 6 h,
sometimes with a new ``event_id``. So the key is the message, not the delivery:

* Slack message-like events: ``msg:{team}:{channel}:{ts}``; other events ``event:{event_id}``.
* Feishu messages: ``msg:{message_id}``; ``event:{event_id}`` only when there is no message id.

A handler claims the key only for an event it accepts for processing (after the mention filter),
so the ignored twin can never take the key from the answered one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

SLACK_MESSAGE_EVENTS = frozenset({"message", "app_mention"})


class EventLog(Protocol):
    """Port: persistent, shared de-duplication of inbound events (implemented by the store)."""

    def claim_event(self, platform: str, key: str, now: datetime) -> bool:
        """Record ``key`` of ``platform`` as accepted at ``now``; True only for the first claim."""
        ...


def slack_event_key(body: Mapping[str, Any]) -> str:
    """The de-duplication key of a Slack Events API body (``{"team_id", "event_id", "event": {...}}``).

    ``msg:T_TEST:C_DIGEST:1718000000.000100`` for ``message``/``app_mention`` events with a channel
    and ``ts``; ``event:Ev001`` otherwise; ``""`` when the body has neither.
    """
    event = body.get("event") or {}
    if not isinstance(event, Mapping):
        event = {}
    team = body.get("team_id") or event.get("team") or ""
    channel, ts = event.get("channel"), event.get("ts")
    if event.get("type") in SLACK_MESSAGE_EVENTS and channel and ts:
        return f"msg:{team}:{channel}:{ts}"
    event_id = body.get("event_id")
    return f"event:{event_id}" if event_id else ""


def feishu_event_key(message_id: str | None, event_id: str | None) -> str:
    """The de-duplication key of a Feishu event: ``msg:om_...``, else ``event:ev_...``, else ``""``."""
    if message_id:
        return f"msg:{message_id}"
    return f"event:{event_id}" if event_id else ""
