"""Slack Socket Mode: the bolt app's listeners over a WebSocket that the bot opens (no public URL).

slack-bolt's :class:`SocketModeHandler` (slack_sdk's built-in client) calls ``apps.connections.open``
with the **app-level** token (``SLACK_APP_TOKEN``, ``xapp-…``, scope ``connections:write``), connects
to the ``wss://`` URL it returns, acknowledges every envelope by its ``envelope_id`` (bolt sends the
ack as soon as the listener calls ``ack()``; the answer is computed afterwards), and opens a new
connection when Slack asks for a refresh or the connection drops (a health check every
``ping_interval`` seconds).

The listeners are the same as in HTTP mode (:class:`adapters.slack.app.SlackChat`), so the same
persistent de-duplication applies: Slack delivers an envelope to one of the app's connections and,
when it is not acknowledged within 3 s, again (``retry_attempt`` + 1) to another — with two
replicas connected, the second copy finds the event already claimed and posts nothing.
"""

from __future__ import annotations

import logging
import socket
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

log = logging.getLogger(__name__)


class SlackSocketMode:
    """One Socket Mode connection of the bolt ``app``.

    Args:
        app: the bolt app of :func:`adapters.slack.app.create_slack_app` (its ``client`` is used for
            ``apps.connections.open``, so ``SLACK_API_URL`` applies).
        app_token: ``xapp-…`` (``SLACK_APP_TOKEN``).
        ping_interval: seconds between health checks of the connection (and reconnect attempts);
            10 by default, small in tests.
        concurrency: threads that run the envelope handlers.
    """

    def __init__(self, app: App, *, app_token: str, ping_interval: float = 10.0, concurrency: int = 10) -> None:
        self.handler = SocketModeHandler(app, app_token=app_token, ping_interval=ping_interval,
                                         concurrency=concurrency, logger=logging.getLogger("adapters.slack.socket"))

    def start(self) -> None:
        """Connect (returns at once; the client's threads receive and reconnect).

        Raises:
            slack_sdk.errors.SlackApiError: ``apps.connections.open`` refused the token
                (``invalid_auth``, ``not_allowed_token_type``).
        """
        self.handler.connect()
        log.info("slack: Socket Mode connected")

    @property
    def connected(self) -> bool:
        """The WebSocket is open."""
        return bool(self.handler.client.is_connected())

    def stop(self) -> None:
        """Close the connection and stop the client's threads (no reconnect)."""
        client = self.handler.client
        client.auto_reconnect_enabled = False
        sock = getattr(client.current_session, "sock", None)
        if sock is not None:  # wake the receiving thread now (it holds the lock close() needs)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        try:
            self.handler.close()
        except Exception:  # noqa: BLE001 - closing a broken connection
            log.debug("slack: Socket Mode close failed", exc_info=True)

    def describe(self) -> dict[str, Any]:
        """``{"platform": "slack", "mode": "socket", "connected": bool}`` (for ``/healthz``)."""
        return {"platform": "slack", "mode": "socket", "connected": self.connected}
