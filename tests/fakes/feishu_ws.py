"""A fake Feishu that speaks the long connection, on 127.0.0.1: :class:`FakeFeishuWs` is the fake
Open API (:class:`tests.fakes.feishu_server.FakeFeishu`) plus ``POST /callback/ws/endpoint`` and a
WebSocket server exchanging the protobuf frames of lark-oapi's ws client (``pbbp2.Frame``).

As Feishu does:

- ``/callback/ws/endpoint`` takes ``{"AppID", "AppSecret"}``; a wrong pair gets a non-zero code
  (the SDK gives up: ClientException). It answers a one-use ``ws://127.0.0.1:PORT/ws/v2?device_id=…
  &service_id=…&ticket=…`` URL and a ``ClientConfig`` (:attr:`client_config`); a handshake without a
  valid ticket is refused with ``handshake-status``/``handshake-msg`` headers.
- :meth:`FakeFeishuWs.deliver` sends an event as DATA frame(s) (headers ``type=event``,
  ``message_id``, ``trace_id``, ``sum``, ``seq``; ``parts`` > 1 splits the payload as Feishu does for
  big events) to **one** connection (round robin). The answer frame (same headers, payload
  ``{"code": 200, "data": base64(result)}``) is the ack; without one within :attr:`ack_timeout` s
  the event goes again to another connection, at most :attr:`max_retries` times.
- ``ping`` CONTROL frames get a ``pong`` (with :attr:`client_config` as payload).
- :meth:`drop` closes a connection without warning; :meth:`lose_acks` loses a connection's answers.

Recorded: :attr:`frames_sent` (message_id, connection, attempt), :attr:`ws_acks` (message_id,
connection, code, decoded ``data``), :attr:`pings`.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from lark_oapi.ws.pb.pbbp2_pb2 import Frame
from websockets.datastructures import Headers
from websockets.http11 import Response
from websockets.sync.server import ServerConnection

from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.websocket import HubControls, SocketHub

SERVICE_ID = 33554678


@dataclass
class _Event:
    payload: bytes
    message_id: str
    parts: int


def _frame(method: int, headers: dict[str, str], payload: bytes = b"", seq: int = 0) -> bytes:
    f = Frame()
    f.SeqID = seq
    f.LogID = seq
    f.service = SERVICE_ID
    f.method = method
    for k, v in headers.items():
        h = f.headers.add()
        h.key = k
        h.value = v
    f.payload = payload
    return bytes(f.SerializeToString())


@dataclass
class FakeFeishuWs(HubControls, FakeFeishu):
    """Fake Feishu Open API + long-connection server. Use as a context manager."""

    ack_timeout: float = 3.0
    max_retries: int = 3
    client_config: dict[str, Any] = field(default_factory=lambda: {
        "ReconnectCount": -1, "ReconnectInterval": 120, "ReconnectNonce": 30, "PingInterval": 120})
    frames_sent: list[dict[str, Any]] = field(default_factory=list)
    ws_acks: list[dict[str, Any]] = field(default_factory=list)
    pings: int = 0
    endpoint_calls: int = 0
    bot_chats: set[str] | None = None
    """Chats the bot is in (``im/v1/chats/{id}/members/is_in_chat``); None: every chat."""
    hub: SocketHub | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    # -- the endpoint --------------------------------------------------------------------------

    def _route(self, verb: str, path: str, query: dict[str, str], body: Any, auth: str
               ) -> tuple[int, dict[str, Any], dict[str, str] | None]:
        m = re.fullmatch(r"/open-apis/im/v1/chats/([^/]+)/members/is_in_chat", path)
        if m and verb == "GET":
            if auth[7:] != self.tenant_token:
                return 400, {"code": 99991663, "msg": "Invalid access token for authorization"}, None
            if not self.has("im:chat:readonly"):
                return 400, {"code": 99991672,
                             "msg": "Access denied. One of the following scopes is required: [im:chat:readonly]."}, None
            inside = self.bot_chats is None or m.group(1) in self.bot_chats
            return 200, {"code": 0, "msg": "success", "data": {"is_in_chat": inside}}, None
        if path != "/callback/ws/endpoint":
            return super()._route(verb, path, query, body, auth)
        if verb != "POST" or not isinstance(body, dict):
            return 400, {"code": 99992402, "msg": "field validation failed"}, None
        if body.get("AppID") != self.app_id or body.get("AppSecret") != self.app_secret:
            return 200, {"code": 10014, "msg": "app secret invalid"}, None
        assert self.hub is not None
        ticket = self.hub.ticket()
        with self._lock:
            self.endpoint_calls += 1
        url = (f"ws://127.0.0.1:{self.ws_port}/ws/v2?fpid=1&aid=1&device_id=dev{secrets.token_hex(4)}"
               f"&access_key=ak&service_id={SERVICE_ID}&ticket={ticket}")
        return 200, {"code": 0, "msg": "ok", "data": {"URL": url, "ClientConfig": self.client_config}}, None

    # -- the WebSocket side --------------------------------------------------------------------

    @staticmethod
    def _refuse_handshake(conn: ServerConnection) -> Response:
        headers = Headers({"handshake-status": "514", "handshake-msg": "ticket invalid",
                           "handshake-autherrcode": "1000040351", "Content-Length": "0"})
        return Response(403, "Forbidden", headers, b"")

    def _session(self, hub: SocketHub, conn: ServerConnection, conn_id: int) -> None:
        for raw in conn:
            if not isinstance(raw, bytes):
                continue
            f = Frame()
            f.ParseFromString(raw)
            headers = {h.key: h.value for h in f.headers}
            if f.method == 0 and headers.get("type") == "ping":
                with self._lock:
                    self.pings += 1
                conn.send(_frame(0, {"type": "pong"}, json.dumps(self.client_config).encode()))
            elif f.method == 1 and headers.get("message_id"):
                self._ack(hub, conn_id, headers["message_id"], f.payload)

    def _ack(self, hub: SocketHub, conn_id: int, message_id: str, payload: bytes) -> None:
        try:
            resp = json.loads(payload)
        except ValueError:
            resp = {}
        data = resp.get("data")
        decoded = None
        if data:
            try:
                decoded = json.loads(base64.b64decode(data))
            except ValueError:
                decoded = data
        if resp.get("code") == 200 and not hub.acked(message_id, conn_id):
            return  # this connection's answers are lost
        with self._lock:
            self.ws_acks.append({"message_id": message_id, "conn": conn_id, "code": resp.get("code"), "data": decoded})

    # -- test controls -------------------------------------------------------------------------

    def deliver(self, event: dict[str, Any], *, to: int | None = None, parts: int = 1) -> str:
        """Send ``event`` (an event body such as :func:`tests.fakes.feishu_server.message_event`)
        to connection ``to`` (default: round robin) in ``parts`` frames; returns the frame
        ``message_id``."""
        message_id = "msg_" + secrets.token_hex(8)
        self._push(_Event(json.dumps(event, ensure_ascii=False).encode(), message_id, parts), 0, to, set())
        return message_id

    def _push(self, ev: _Event, attempt: int, to: int | None, tried: set[int]) -> None:
        assert self.hub is not None
        conn_id = self.hub.pick(to, tried)
        conn = self.hub.track(ev.message_id, ev, attempt, conn_id, tried)
        with self._lock:
            self.frames_sent.append({"message_id": ev.message_id, "conn": conn_id, "attempt": attempt})
        if conn is None:
            return
        size = -(-len(ev.payload) // ev.parts)
        trace = secrets.token_hex(6)
        try:
            for seq in range(ev.parts):
                conn.send(_frame(1, {"type": "event", "message_id": ev.message_id, "trace_id": trace,
                                     "sum": str(ev.parts), "seq": str(seq)},
                                 ev.payload[seq * size:(seq + 1) * size], seq=seq + 1))
        except Exception:  # noqa: BLE001 - closed under us: the timeout redelivers
            pass

    def _resend(self, ev: _Event, attempt: int, tried: set[int]) -> None:
        self._push(ev, attempt, None, tried)

    def acks_of(self, message_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return [a for a in self.ws_acks if a["message_id"] == message_id]
