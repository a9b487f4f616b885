"""The HTTP server of ``prhub serve``: waitress, with a deadline per request and room for slow clients.

waitress reads every request whole on its one I/O thread before a worker runs it, so a slow client
costs a connection, never a worker; but it keeps at most ``connection_limit`` connections (default
100) and drops only *idle* ones (``channel_timeout``): 105 connections each sending a header byte
every 2 s held the bot down (issue 20: ``/healthz`` 0 of 3). Here:

- :class:`DeadlineChannel`: a request must arrive whole (headers and body) within
  ``request_deadline`` seconds of its first byte, else the connection is closed (checked every
  second by the server's maintenance pass; one log line a minute counts the drops);
- ``connection_limit`` (``server.connection_limit``, default 1,000) far above what one bot needs
  (Slack and Feishu send a few callbacks at a time), the open-files limit raised to fit it, and
  ``poll()`` instead of ``select()`` (no 1,024-descriptor ceiling).

A reverse proxy in front (nginx, a cloud load balancer) adds what one process cannot: buffering whole
requests before they reach prhub, per-client rate and connection limits, TLS.
"""

from __future__ import annotations

import logging
import resource
import time
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server

log = logging.getLogger(__name__)

DEFAULT_CONNECTION_LIMIT = 1000
DEFAULT_REQUEST_DEADLINE = 10.0
"""Seconds from a request's first byte until it must be read whole (a 1 MiB body at 100 KB/s fits)."""


class DeadlineChannel(HTTPChannel):  # type: ignore[misc]
    """waitress's channel, remembering when the request being read began (:data:`reading`)."""

    reading: tuple[Any, float] | None = None
    """``(request parser, monotonic start)`` of the request being read; None between requests."""

    def received(self, data: bytes) -> bool:
        out = bool(super().received(data))
        req = self.request
        if req is None:
            self.reading = None
        elif self.reading is None or self.reading[0] is not req:
            self.reading = (req, time.monotonic())
        return out


def late_channels(server: Any, deadline: float, now: float) -> list[Any]:
    """The channels of ``server`` reading one request for more than ``deadline`` seconds (monotonic ``now``)."""
    late = []
    for channel in list(server.active_channels.values()):
        reading = getattr(channel, "reading", None)
        if reading is not None and channel.request is reading[0] and now - reading[1] > deadline:
            late.append(channel)
    return late


def _with_deadline(server: Any, deadline: float) -> None:
    """Make ``server`` (a waitress TCP server) use :class:`DeadlineChannel` and close, in its
    maintenance pass, the channels past ``deadline``."""
    server.channel_class = DeadlineChannel
    idle = server.maintenance

    def maintenance(now: float) -> None:
        idle(now)
        late = late_channels(server, deadline, time.monotonic())
        for channel in late:
            channel.will_close = True  # closed by its next handle_write, as waitress closes idle ones
        if late:
            log.warning("closed %d connection(s) still sending one request after %g s", len(late), deadline)

    server.maintenance = maintenance


def create_http_server(app: Any, *, host: str, port: int, threads: int, max_request_bytes: int,
                       connection_limit: int = DEFAULT_CONNECTION_LIMIT,
                       request_deadline: float = DEFAULT_REQUEST_DEADLINE, idle_timeout: int = 60) -> Any:
    """A waitress server for ``app`` on ``host:port`` (see the module docstring).

    Args:
        threads: worker threads.
        max_request_bytes: waitress's ``max_request_body_size`` (the guard's limit too).
        connection_limit: connections held at most (more wait in the listen backlog).
        request_deadline: seconds a request may take to arrive whole.
        idle_timeout: seconds a keep-alive connection may sit idle (waitress's ``channel_timeout``).

    Raises:
        OSError: the address cannot be bound.
    """
    _fit_open_files(connection_limit)
    server = create_server(app, host=host, port=port, threads=threads, ident="prhub",
                           max_request_body_size=max_request_bytes, connection_limit=connection_limit,
                           channel_timeout=idle_timeout, cleanup_interval=1, asyncore_use_poll=True)
    targets = [server] if isinstance(server, BaseWSGIServer) else [
        s for s in server.map.values() if isinstance(s, BaseWSGIServer)]  # several addresses: one server each
    for s in targets:
        _with_deadline(s, request_deadline)
    return server


def _fit_open_files(connections: int) -> None:
    """Raise the soft open-files limit to hold ``connections`` sockets plus 256 (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        if new > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
