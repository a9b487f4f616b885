"""Outbound event connections of the chat bot: Slack Socket Mode and the Feishu/Lark long connection.

Both let a bot behind NAT receive events without a public URL. They reuse the listeners of the HTTP
app built by :func:`prhub.web.create_app` (``ChatApp.slack_bolt_app``, ``ChatApp.feishu_chat``), so
answers, de-duplication and subscriptions are the same in every mode. Which one runs follows the
settings (:attr:`prhub.config.Settings.slack_socket_mode`, ``feishu_long_connection``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from prhub.config import Settings, SettingsError

log = logging.getLogger(__name__)


class Connection(Protocol):
    """A started outbound connection: ``stop()`` ends it, ``describe()`` says how it is."""

    def stop(self) -> None: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass
class Timings:
    """Connection timings (tests make them milliseconds).

    Attributes:
        slack_ping_seconds: Socket Mode health-check interval (reconnects happen at this pace).
        feishu: reconnect/ping overrides of the long connection (None: the server's ``ClientConfig``).
    """

    slack_ping_seconds: float = 10.0
    feishu: Any = None


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


def open_connections(settings: Settings, chat_app: Any, *, timings: Timings | None = None) -> Connections:
    """Start Socket Mode (when :attr:`Settings.slack_socket_mode`) and the Feishu long connection
    (when :attr:`Settings.feishu_long_connection`) for the listeners of ``chat_app``.

    Raises:
        prhub.config.SettingsError: a mode chosen without its credentials (e.g. ``PRHUB_SLACK_MODE=socket``
            without ``SLACK_APP_TOKEN``).
            Also: Slack refused the app token (the message names Slack's error code).
    """
    timings = timings or Timings()
    out = Connections()
    try:
        if settings.slack_socket_mode and getattr(chat_app, "slack_bolt_app", None) is not None:
            settings.require("SLACK_APP_TOKEN")
            from adapters.slack.socket_mode import SlackSocketMode

            sm = SlackSocketMode(chat_app.slack_bolt_app, app_token=settings.secret("slack_app_token"),
                                 ping_interval=timings.slack_ping_seconds)
            try:
                sm.start()
            except Exception as exc:  # SlackApiError: the token was refused
                sm.stop()
                error = getattr(getattr(exc, "response", None), "get", lambda *_: None)("error") or type(exc).__name__
                raise SettingsError(f"SLACK_APP_TOKEN was refused by apps.connections.open ({error}): use the app-level "
                                    "token (xapp-...) with the connections:write scope") from None
            out.items.append(sm)
        if settings.feishu_long_connection and getattr(chat_app, "feishu_chat", None) is not None:
            from adapters.feishu.long_connection import Backoff, FeishuLongConnection, lark_dispatcher

            assert settings.feishu_app_id is not None
            dispatcher = lark_dispatcher(chat_app.feishu_chat)
            lc = FeishuLongConnection(dispatcher, app_id=settings.feishu_app_id,
                                      app_secret=settings.secret("feishu_app_secret"), domain=settings.feishu_api_url,
                                      backoff=timings.feishu or Backoff())
            lc.start()
            out.items.append(lc)
    except BaseException:
        out.stop()
        raise
    return out
