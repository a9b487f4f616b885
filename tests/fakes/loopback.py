"""The HTTP plumbing every fake platform shares: a threaded server on 127.0.0.1 (random port)
whose GET and POST requests go to the fake's ``_dispatch(handler, method)``."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


_count_lock = threading.Lock()


class LoopbackServer:
    """Mixin for fake servers: ``start``/``stop``, context manager, ``port`` and ``url``.

    Subclasses implement :meth:`_dispatch`; ``_http11`` keeps connections alive (HTTP/1.1 with
    Nagle off, so headers and body written separately do not stall on delayed ACKs).
    """

    _server: ThreadingHTTPServer | None = None
    _http11: bool = False
    tcp_connections: int = 0
    """TCP connections accepted so far (keep-alive clients reuse one)."""

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        """Answer one request (``method`` is ``GET`` or ``POST``)."""
        raise NotImplementedError

    def start(self, port: int = 0) -> Self:
        """Listen on 127.0.0.1 (``port``, default a random one) in a daemon thread."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            if fake._http11:
                protocol_version = "HTTP/1.1"
                disable_nagle_algorithm = True

            def setup(self) -> None:
                super().setup()
                with _count_lock:
                    fake.tcp_connections += 1

            def log_message(self, *_: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake._dispatch(self, "GET")

            def do_POST(self) -> None:
                fake._dispatch(self, "POST")

        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        server.daemon_threads = True
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"
