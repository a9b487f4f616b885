"""Slow HTTP clients: connections that each send one byte of a request every ``interval`` seconds (the
attack of issue 20 that held ``prhub serve`` down at 105 connections), and a probe of ``/healthz``
while they are held. Used by ``tests/e2e/test_slow_clients.py`` and ``benchmarks/slow_clients.py``."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request

REQUEST = (b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: 100000\r\n\r\n" + b"{" + b" " * 99_999)
"""What the slow clients trickle: headers, then a body, one byte at a time."""


class SlowClients:
    """``count`` connections to ``127.0.0.1:port``, each sending a byte of :data:`REQUEST` every
    ``interval`` seconds from one background thread, until :meth:`stop`.

    A connection the server closed stops being written to (:meth:`open_count` counts the others).
    """

    def __init__(self, port: int, count: int, interval: float) -> None:
        self.port, self.count, self.interval = port, count, interval
        self.socks: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, name="slow-clients", daemon=True)

    def start(self) -> SlowClients:
        """Open every connection (each sends its first byte at once), then trickle in the background."""
        for _ in range(self.count):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            s.sendall(REQUEST[:1])
            self.socks.append(s)
        self._thread.start()
        return self

    def _trickle(self) -> None:
        sent = 1
        open_ = list(self.socks)
        while not self._stop.wait(self.interval) and open_ and sent < len(REQUEST):
            for s in list(open_):
                try:
                    s.sendall(REQUEST[sent:sent + 1])
                except OSError:
                    open_.remove(s)
            sent += 1

    def open_count(self) -> int:
        """Connections the server still holds (a non-blocking peek: b"" or a reset means closed)."""
        alive = 0
        for s in self.socks:
            try:
                s.setblocking(False)
                alive += s.recv(1, socket.MSG_PEEK) != b""
            except BlockingIOError:
                alive += 1
            except OSError:
                pass
            finally:
                try:
                    s.setblocking(True)
                except OSError:
                    pass
        return alive

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        for s in self.socks:
            s.close()


def healthz(port: int, timeout: float = 3.0) -> tuple[int, float]:
    """``(HTTP status or 0 when no answer within timeout, seconds)`` of one ``GET /healthz``."""
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
            r.read()
            return r.status, time.monotonic() - t0
    except urllib.error.HTTPError as e:
        return e.code, time.monotonic() - t0
    except OSError:
        return 0, time.monotonic() - t0
