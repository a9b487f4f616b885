"""The WebSocket plumbing the Socket Mode and long-connection fakes share: a ``websockets`` server on
127.0.0.1 (random port) that admits one-use tickets, the registry of open connections, round-robin
choice of the connection an event goes to, lost acks and dropped connections on demand, and the
redelivery of what was not acknowledged in time (to another connection, as the platforms do)."""

from __future__ import annotations

import itertools
import secrets
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.sync.server import Server, ServerConnection, serve


@dataclass
class Pending:
    """A delivery waiting for its ack: what to send again, how often it was sent, and where."""

    item: Any
    attempt: int
    sent_at: float
    tried: set[int]


class SocketHub:
    """The WebSocket side of a platform fake.

    Args:
        session: ``(hub, connection, conn_id)`` serving one accepted connection until it closes.
        refuse: ``(connection) -> response`` for a handshake without a valid ticket.
        resend: ``(item, attempt, tried)`` delivering an unacknowledged item again.
        ack_timeout: seconds before an unacknowledged item is sent again.
        max_retries: redeliveries at most.
    """

    def __init__(self, *, session: Callable[[SocketHub, ServerConnection, int], None],
                 refuse: Callable[[ServerConnection], Any], resend: Callable[[Any, int, set[int]], None],
                 ack_timeout: float, max_retries: int) -> None:
        self._session = session
        self._refuse = refuse
        self._resend = resend
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.lock = threading.Lock()
        self.conns: dict[int, ServerConnection] = {}
        self.lost_acks: set[int] = set()
        self._tickets: set[str] = set()
        self._pending: dict[str, Pending] = {}
        self._seq = itertools.count(1)
        self._rr = itertools.count()
        self._stopping = threading.Event()
        self._server: Server | None = None

    def start(self) -> None:
        self._server = serve(self._serve, "127.0.0.1", 0, process_request=self._check, ping_interval=None)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        threading.Thread(target=self._redeliver_loop, daemon=True).start()

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            for conn in list(self.conns.values()):
                try:
                    conn.close()
                except Exception:  # noqa: BLE001 - already gone
                    pass
            self._server.shutdown()
            self._server = None

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.socket.getsockname()[1])

    def ticket(self) -> str:
        """A new one-use ticket for the connection URL."""
        t = secrets.token_hex(8)
        with self.lock:
            self._tickets.add(t)
        return t

    def _check(self, conn: ServerConnection, request: Any) -> Any:
        query = urllib.parse.parse_qs(urllib.parse.urlparse(request.path).query)
        ticket = (query.get("ticket") or [""])[0]
        with self.lock:
            ok = ticket in self._tickets
            self._tickets.discard(ticket)
        return None if ok else self._refuse(conn)

    def _serve(self, conn: ServerConnection) -> None:
        conn_id = next(self._seq)
        with self.lock:
            self.conns[conn_id] = conn
        try:
            self._session(self, conn, conn_id)
        except Exception:  # noqa: BLE001 - the connection went away
            pass
        finally:
            with self.lock:
                self.conns.pop(conn_id, None)

    # -- deliveries ----------------------------------------------------------------------------

    def connections(self) -> list[int]:
        with self.lock:
            return sorted(self.conns)

    def pick(self, to: int | None, avoid: set[int]) -> int | None:
        """Connection ``to`` if open, else the next open one not in ``avoid`` (round robin)."""
        ids = self.connections()
        if to is not None:
            return to if to in ids else None
        fresh = [i for i in ids if i not in avoid] or ids
        return fresh[next(self._rr) % len(fresh)] if fresh else None

    def track(self, key: str, item: Any, attempt: int, conn_id: int | None, tried: set[int]) -> ServerConnection | None:
        """Remember ``item`` as sent to ``conn_id`` (awaiting an ack under ``key``); the connection."""
        with self.lock:
            self._pending[key] = Pending(item, attempt, time.monotonic(), tried | {conn_id or 0})
            return self.conns.get(conn_id or -1)

    def acked(self, key: str, conn_id: int) -> bool:
        """Record the ack of ``key`` from ``conn_id``; False when that connection's acks are lost."""
        with self.lock:
            if conn_id in self.lost_acks:
                return False
            self._pending.pop(key, None)
            return True

    def _redeliver_loop(self) -> None:
        while not self._stopping.wait(0.02):
            now = time.monotonic()
            due: list[Pending] = []
            with self.lock:
                for key, p in list(self._pending.items()):
                    if now - p.sent_at >= self.ack_timeout:
                        del self._pending[key]
                        if p.attempt < self.max_retries:
                            due.append(p)
            for p in due:
                self._resend(p.item, p.attempt + 1, p.tried)

    # -- failures on demand --------------------------------------------------------------------

    def drop(self, conn_id: int) -> None:
        """Cut connection ``conn_id`` (no close frame, as a network drop)."""
        with self.lock:
            conn = self.conns.get(conn_id)
        if conn is not None:
            try:
                conn.socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def lose_acks(self, conn_id: int) -> None:
        """From now on, acks sent on connection ``conn_id`` never arrive."""
        with self.lock:
            self.lost_acks.add(conn_id)


class HubControls:
    """Lifecycle and test controls of a fake that holds a :class:`SocketHub` in ``hub``: the fake
    provides ``_session``, ``_refuse_handshake``, ``_resend``, ``ack_timeout``, ``max_retries`` and
    ``wait_for``; its HTTP side is the next class in the MRO."""

    hub: SocketHub | None

    @property
    def ws_port(self) -> int:
        assert self.hub is not None, "not started"
        return self.hub.port

    def connections(self) -> list[int]:
        """Numbers of the open connections, oldest first."""
        assert self.hub is not None, "not started"
        return self.hub.connections()

    def wait_connections(self, n: int, timeout: float = 10.0) -> list[int]:
        """Wait until at least ``n`` connections are open; their numbers."""
        ok = self.wait_for(lambda: len(self.connections()) >= n, timeout)  # type: ignore[attr-defined]
        assert ok, f"{self.connections()} connected, want {n}"
        return self.connections()

    def drop(self, conn_id: int) -> None:
        """Cut connection ``conn_id`` at once (no close frame, no disconnect message)."""
        assert self.hub is not None, "not started"
        self.hub.drop(conn_id)

    def lose_acks(self, conn_id: int) -> None:
        """From now on, acks sent on connection ``conn_id`` never arrive."""
        assert self.hub is not None, "not started"
        self.hub.lose_acks(conn_id)

    # -- lifecycle of the fake (HTTP side first, then the WebSocket side) ------------------------

    def start(self) -> Any:
        super().start()  # type: ignore[misc]
        self.hub = SocketHub(session=self._session, refuse=self._refuse_handshake,  # type: ignore[attr-defined]
                             resend=self._resend, ack_timeout=self.ack_timeout,  # type: ignore[attr-defined]
                             max_retries=self.max_retries)  # type: ignore[attr-defined]
        self.hub.start()
        return self

    def stop(self) -> None:
        if self.hub is not None:
            self.hub.stop()
            self.hub = None
        super().stop()  # type: ignore[misc]
