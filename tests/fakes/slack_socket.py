"""A fake Slack that speaks Socket Mode, on 127.0.0.1: :class:`FakeSlackSocket` is the fake Web API
(:class:`tests.fakes.slack_server.FakeSlack`) plus ``apps.connections.open`` and a WebSocket server.

What it does, as Slack does (https://docs.slack.dev/apis/events-api/using-socket-mode/):

- ``apps.connections.open`` takes only the **app-level** token (``xapp-…``; a bot token gets
  ``not_allowed_token_type``, a wrong one ``invalid_auth``) and answers a one-use
  ``ws://127.0.0.1:PORT/link/?ticket=…`` URL; a WebSocket handshake without a valid ticket is refused
  (HTTP 401).
- A new connection first gets ``{"type": "hello", "num_connections": N, ...}``.
- :meth:`FakeSlackSocket.deliver` sends an envelope (``events_api``, ``slash_commands``,
  ``interactive``) to **one** connection (round robin); the app must answer
  ``{"envelope_id": ...}`` within :attr:`ack_timeout` seconds, else the envelope goes again to
  another connection (``retry_attempt`` + 1, ``retry_reason: "timeout"``), at most
  :attr:`max_retries` times.
- :meth:`drop` closes a connection without warning; :meth:`refresh` sends
  ``{"type": "disconnect", "reason": "refresh_requested"}`` first; :meth:`lose_acks` makes the
  acks of a connection vanish (as if the network lost them).

Everything is recorded: :attr:`envelopes` (every sending: id, connection, attempt) and :attr:`acks`.
"""

from __future__ import annotations

import json
import secrets
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from websockets.sync.server import ServerConnection

from tests.fakes.slack_server import FakeSlack
from tests.fakes.websocket import HubControls, SocketHub


METHOD_SCOPES: dict[str, tuple[str, ...]] = {
    "chat.postMessage": ("chat:write",),
    "conversations.history": ("channels:history", "groups:history", "im:history"),
    "conversations.replies": ("channels:history", "groups:history", "im:history"),
    "conversations.info": ("channels:read", "groups:read", "im:read"),
    "conversations.open": ("im:write",),
    "files.getUploadURLExternal": ("files:write",),
    "files.completeUploadExternal": ("files:write",),
    "views.publish": (),
    "users.info": ("users:read",),
}
"""The scope Slack's method reference names per method (public, private, DM channel), written from
Slack's docs independently of prhub's own table."""


@dataclass
class FakeSlackSocket(HubControls, FakeSlack):
    """Fake Slack Web API + Socket Mode server. Use as a context manager (starts both)."""

    app_token: str = "xapp-1-A_APP-test"
    ack_timeout: float = 3.0
    """Seconds an envelope may stay unacknowledged before it is delivered again (Slack: 3 s)."""
    max_retries: int = 3
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    """Every sending: ``envelope_id``, ``type``, ``conn`` (connection number), ``attempt``."""
    acks: list[dict[str, Any]] = field(default_factory=list)
    """Every ack received: ``envelope_id``, ``conn``, ``payload`` (when the app sent one)."""
    opened: int = 0
    """``apps.connections.open`` calls answered ok."""
    scopes: frozenset[str] | None = None
    """Bot scopes granted (None: every scope). Sent as ``x-oauth-scopes``; a method without its scope
    answers ``missing_scope`` with ``needed``/``provided``, as Slack does."""
    hub: SocketHub | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def _refuse_handshake(self, conn: ServerConnection) -> Any:
        return conn.respond(401, "invalid ticket\n")


    # -- apps.connections.open -----------------------------------------------------------------

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        if self.scopes is not None:
            headers = {**(headers or {}), "x-oauth-scopes": ",".join(sorted(self.scopes))}
        super()._send(h, status, body, headers)

    def _args(self, h: BaseHTTPRequestHandler) -> dict[str, Any]:
        cached = getattr(h, "_args_read", None)
        return dict(cached) if cached is not None else super()._args(h)

    def _missing_scope(self, method: str, args: dict[str, Any]) -> str | None:
        if self.scopes is None or method not in METHOD_SCOPES:
            return None
        kind = {"G": 1, "D": 2}.get(str(args.get("channel") or "C")[:1], 0)
        alternatives = METHOD_SCOPES[method]
        needed = alternatives[min(kind, len(alternatives) - 1)] if alternatives else None
        return needed if needed and needed not in self.scopes else None

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        path = urllib.parse.urlparse(h.path).path
        if path.startswith("/api/") and path != "/api/apps.connections.open" and self.scopes is not None:
            method = path[len("/api/"):]
            args = self._args(h)
            needed = self._missing_scope(method, args)
            if needed:
                with self._lock:
                    self.calls.append((method, args, "missing_scope"))
                self._send(h, 200, {"ok": False, "error": "missing_scope", "needed": needed,
                                    "provided": ",".join(sorted(self.scopes))})
                return
            h._args_read = args  # type: ignore[attr-defined]  # the body is read once
        try:
            self._serve(h, path)
        finally:  # the handler lives as long as a keep-alive connection: the next request has its own body
            h.__dict__.pop("_args_read", None)

    def _serve(self, h: BaseHTTPRequestHandler, path: str) -> None:
        if path != "/api/apps.connections.open":
            super()._handle(h)
            return
        args = self._args(h)
        auth = h.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else str(args.get("_token") or "")
        if not token:
            error: str | None = "not_authed"
        elif token.startswith("xoxb-") or token.startswith("xoxp-"):
            error = "not_allowed_token_type"
        elif token != self.app_token:
            error = "invalid_auth"
        else:
            error = None
        body: dict[str, Any]
        if error:
            body = {"ok": False, "error": error}
        else:
            assert self.hub is not None
            ticket = self.hub.ticket()
            with self._lock:
                self.opened += 1
            body = {"ok": True, "url": f"ws://127.0.0.1:{self.ws_port}/link/?ticket={ticket}&app_id=A_APP"}
        with self._lock:
            self.calls.append(("apps.connections.open", args, error))
        self._send(h, 200, body)

    # -- the WebSocket side --------------------------------------------------------------------

    def _session(self, hub: SocketHub, conn: ServerConnection, conn_id: int) -> None:
        conn.send(json.dumps({"type": "hello", "num_connections": len(hub.connections()),
                              "debug_info": {"host": "fake-slack", "build_number": 1,
                                             "approximate_connection_time": 18060},
                              "connection_info": {"app_id": "A_APP"}}))
        for raw in conn:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            envelope_id = msg.get("envelope_id") if isinstance(msg, dict) else None
            if envelope_id and hub.acked(envelope_id, conn_id):
                with self._lock:
                    self.acks.append({"envelope_id": envelope_id, "conn": conn_id, "payload": msg.get("payload")})

    # -- test controls -------------------------------------------------------------------------

    def deliver(self, payload: dict[str, Any], *, type: str = "events_api", to: int | None = None) -> str:
        """Send an envelope carrying ``payload`` to connection ``to`` (default: the next one, round
        robin); returns its ``envelope_id``."""
        envelope_id = secrets.token_hex(12)
        envelope = {"envelope_id": envelope_id, "payload": payload, "type": type,
                    "accepts_response_payload": type != "events_api", "retry_attempt": 0, "retry_reason": ""}
        self._push(envelope, to, set())
        return envelope_id

    def _push(self, envelope: dict[str, Any], to: int | None, tried: set[int]) -> None:
        assert self.hub is not None
        conn_id = self.hub.pick(to, tried)
        conn = self.hub.track(envelope["envelope_id"], envelope, envelope["retry_attempt"], conn_id, tried)
        with self._lock:
            self.envelopes.append({"envelope_id": envelope["envelope_id"], "type": envelope["type"], "conn": conn_id,
                                   "attempt": envelope["retry_attempt"]})
        if conn is not None:
            try:
                conn.send(json.dumps(envelope))
            except Exception:  # noqa: BLE001 - closed under us: the timeout redelivers
                pass

    def _resend(self, envelope: dict[str, Any], attempt: int, tried: set[int]) -> None:
        self._push(dict(envelope, retry_attempt=attempt, retry_reason="timeout"), None, tried)

    def refresh(self, conn_id: int) -> None:
        """Ask connection ``conn_id`` to reconnect (``disconnect``/``refresh_requested``), then close it."""
        assert self.hub is not None
        with self.hub.lock:
            conn = self.hub.conns.get(conn_id)
        if conn is not None:
            conn.send(json.dumps({"type": "disconnect", "reason": "refresh_requested",
                                  "debug_info": {"host": "fake-slack"}}))
            conn.close()

    def acked(self, envelope_id: str) -> bool:
        with self._lock:
            return any(a["envelope_id"] == envelope_id for a in self.acks)
