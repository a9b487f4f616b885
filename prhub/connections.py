"""Outbound event connections of the chat bot (Slack's Socket Mode, the Feishu/Lark long connection:
each platform's ``Platform.connect``).

They let a bot behind NAT receive events without a public URL. They reuse the listeners of the HTTP
app built by :func:`prhub.web.create_app` (each mount's ``handle``), so answers, de-duplication and
subscriptions are the same in every mode. Which ones run follows the settings: each platform's
``connect`` returns None when its settings choose HTTP.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.platform import Connection
from prhub import platforms
from prhub.config import Settings

log = logging.getLogger(__name__)

__all__ = ["Connection", "Connections", "open_connections"]


@dataclass
class Connections:
    """The started connections; :meth:`stop` ends them all."""

    items: list[Connection] = field(default_factory=list)

    def stop(self) -> None:
        """Stop every connection (each at most once)."""
        while self.items:
            self.items.pop().stop()

    def describe(self) -> list[dict[str, Any]]:
        return [c.describe() for c in self.items]


def open_connections(settings: Settings, chat_app: Any, *, timings: Mapping[str, Any] | None = None) -> Connections:
    """Start the outbound connection of every mounted platform whose settings choose one, over
    the listeners of ``chat_app`` (its mounts' ``handle``), in registry order.

    Args:
        timings: per platform name, its connection timing override (tests make them
            milliseconds: Slack's ping interval in seconds, Feishu's ``Backoff``); None: defaults.

    Raises:
        prhub.config.SettingsError: a mode chosen without its credentials (e.g. ``PRHUB_SLACK_MODE=socket``
            without ``SLACK_APP_TOKEN``), or credentials the service refused (the message names its error code).
    """
    timings = timings or {}
    out = Connections()
    try:
        for name, p in platforms.registry().items():
            handle = chat_app.handle(name)
            if p.connect is None or handle is None:
                continue
            conn = p.connect(settings, handle, timings.get(name))
            if conn is not None:
                out.items.append(conn)
    except BaseException:
        out.stop()
        raise
    return out
