"""The HTTP guard in front of every ``prhub serve`` endpoint (WSGI middleware).

- **Body limit before the body is read** (issue 9, failure 2): a ``Content-Length`` above
  ``max_bytes`` (``server.max_request_bytes``, default 1 MiB) is answered 413 without reading a
  byte; a body without a length (chunked) is read up to ``max_bytes + 1`` bytes and refused when
  longer. waitress gets the same limit (``max_request_body_size``), so it never buffers more.
- **Refused requests log one line each**, without body or traceback, at most ``burst`` lines per
  ``window`` seconds (then one line counting the lines left out), so a flood cannot fill the disk.
- **No traceback page**: an exception escaping the app is one log line with its class and a JSON
  500; an error status the app answers with an HTML page of its own (Flask's 404/405), and any 5xx
  that is not JSON (bolt's empty 500 when a middleware raised), is answered ``{"error": "<reason>"}``
  instead (plain-text 4xx answers are kept), so every error a client sees is JSON (issue 20). The
  Flask apps behind it set :data:`FLASK_CONFIG` (``PROPAGATE_EXCEPTIONS``) so that their
  exceptions reach the guard instead of Flask's HTML page and traceback log.
- Every response carries ``X-Content-Type-Options: nosniff``.
- :func:`quiet_sdk_loggers`: slack_bolt logs a whole request body at INFO for every badly
  signed request and lark-oapi an ERROR traceback for every forged one; their loggers are set to
  WARNING and every record they emit is cut to one line of at most 300 characters, without traceback.
  While the guard serves a request, lark-oapi's records are dropped: for a forged or malformed
  ``POST /feishu/events`` it logs ERROR lines with internal text (``invalid ciphertext length``)
  twice (its own handler and the root logger); the guard's one rate-limited refusal line says it all.
- waitress logs ``Task queue depth is N`` at WARNING for every request queued behind busy threads
  (1,090 lines in 5 s at 32 concurrent senders); :func:`quiet_sdk_loggers` lets one such line
  through per minute, counting the ones left out. Besides the flood, every line is written by
  waitress's accept loop itself: a log sink that stops reading (a full pipe) then stops the whole
  server, SIGTERM included (the signal handler runs on that thread).
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from prhub import platforms

log = logging.getLogger(__name__)

DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
"""Default request body limit (bytes): 1 MiB, above any Slack or Feishu event or card callback."""

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_SUMMARISED = ("waitress.queue", "prhub.serving")
_serving = threading.local()
_MAX_LINE = 300


class RefusalLog:
    """One log line per refused request, at most ``burst`` per ``window`` seconds.

    Args:
        burst: lines per window.
        window: seconds.
        clock: monotonic seconds (tests inject one).
    """

    def __init__(self, burst: int = 20, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.window = window
        self._clock = clock
        self._lock = threading.Lock()
        self._start = clock()
        self._count = 0
        self._dropped = 0

    def refused(self, method: str, path: str, status: int, why: str, peer: str) -> None:
        """Log ``refused METHOD PATH: STATUS WHY (from PEER)`` unless this window's lines are used up."""
        with self._lock:
            now = self._clock()
            if now - self._start >= self.window:
                if self._dropped:
                    log.warning("refused requests: %d more in the last %.0f s not logged", self._dropped, self.window)
                self._start, self._count, self._dropped = now, 0, 0
            if self._count >= self.burst:
                self._dropped += 1
                return
            self._count += 1
        log.warning("refused %s %s: %d %s (from %s)", method[:10], _clip(path, 100), status, _clip(why, 120), peer[:64])


def _clip(text: str, n: int) -> str:
    text = text.replace("\n", " ").replace("\r", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            413: "Payload Too Large", 429: "Too Many Requests", 500: "Internal Server Error",
            503: "Service Unavailable"}


FLASK_CONFIG = {"PROPAGATE_EXCEPTIONS": True}
"""Config of every Flask app behind the guard: an exception propagates to :class:`RequestGuard`
(one log line, a JSON 500) instead of Flask's traceback log and HTML page."""


def answer(start_response: Callable[..., Any], status: int, text: str, headers: Iterable[tuple[str, str]] = ()) -> list[bytes]:
    """Answer ``status`` with a one-line JSON body ``{"error": text}``."""
    body = (json.dumps({"error": text}, ensure_ascii=False) + "\n").encode("utf-8")
    start_response(f"{status} {_REASONS.get(status, 'Error')}",
                   [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                    ("X-Content-Type-Options", "nosniff"), *headers])
    return [body]


def _close(body: Iterable[bytes]) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()


class RequestGuard:
    """WSGI middleware: body limit, refused-request log, no traceback pages.

    Args:
        app: the wrapped WSGI app.
        max_bytes: request body limit in bytes (413 above it).
        refusals: where refused requests (status 4xx except 404, and 5xx) are logged.
    """

    def __init__(self, app: WSGIApp, *, max_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
                 refusals: RefusalLog | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.refusals = refusals or RefusalLog()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        method = str(environ.get("REQUEST_METHOD", "GET"))
        path = str(environ.get("PATH_INFO", "") or "/")
        peer = str(environ.get("REMOTE_ADDR", "?"))
        raw_length = str(environ.get("CONTENT_LENGTH") or "").strip()
        if raw_length:
            if not raw_length.isdigit():
                self.refusals.refused(method, path, 400, "bad Content-Length", peer)
                return answer(start_response, 400, "bad Content-Length")
            if int(raw_length) > self.max_bytes:
                self.refusals.refused(method, path, 413, f"body of {int(raw_length)} bytes over the limit", peer)
                return answer(start_response, 413, f"request body over {self.max_bytes} bytes",
                             [("Connection", "close")])
        elif "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower():
            stream = environ.get("wsgi.input")
            data = stream.read(self.max_bytes + 1) if stream is not None else b""
            if len(data) > self.max_bytes:
                self.refusals.refused(method, path, 413, "chunked body over the limit", peer)
                return answer(start_response, 413, f"request body over {self.max_bytes} bytes",
                             [("Connection", "close")])
            environ["wsgi.input"] = io.BytesIO(data)
            environ["CONTENT_LENGTH"] = str(len(data))

        held: list[str] = []
        started = False
        calling = True

        def watching(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            nonlocal started
            code = int(status.split(" ", 1)[0]) if status[:3].isdigit() else 0
            if code >= 400 and code != 404:
                self.refusals.refused(method, path, code, status[4:] or "refused", peer)
            if not any(k.lower() == "x-content-type-options" for k, _ in headers):
                headers = [*headers, ("X-Content-Type-Options", "nosniff")]
            if calling and not started and ((code >= 400 and _has_type(headers, "html"))
                                            or (code >= 500 and not _has_type(headers, "json"))):
                held.append(status)  # answered as JSON when the app returns (its own page dropped)
                return lambda _data: None
            started = True
            return start_response(status, headers, exc_info) if exc_info is not None else start_response(status, headers)

        _serving.active = True
        try:
            body = self.app(environ, watching)
            calling = False
            if held:
                _close(body)
                code = int(held[-1][:3])
                return answer(start_response, code, held[-1][4:].strip() or _REASONS.get(code, "error"))
            return body
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback page
            log.error("%s %s: %s: %s", method[:10], _clip(path, 100), type(exc).__name__, _clip(str(exc), 200))
            return answer(start_response, 500, "internal error", [("Connection", "close")])
        finally:
            _serving.active = False


def _has_type(headers: Iterable[tuple[str, str]], kind: str) -> bool:
    return any(k.lower() == "content-type" and kind in v.lower() for k, v in headers)


class _OneLine(logging.Filter):
    """Cuts a record to one line of at most 300 characters and drops its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot format is kept as its template
            msg = str(record.msg)
        record.msg = _clip(msg, _MAX_LINE)
        record.args = None
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


class _NotInRequest(logging.Filter):
    """Drops a record emitted while :class:`RequestGuard` serves a request on this thread."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(_serving, "active", False)


class OncePer(logging.Filter):
    """Lets one record through per ``window`` seconds; the next one that passes says how many
    were left out in between (``… (N more in the last 60 s)``).

    Args:
        window: seconds.
        clock: monotonic seconds (tests inject one).
    """

    def __init__(self, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.window = window
        self._clock = clock
        self._lock = threading.Lock()
        self._last: float | None = None
        self._dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        with self._lock:
            now = self._clock()
            if self._last is not None and now - self._last < self.window:
                self._dropped += 1
                return False
            self._last, dropped, self._dropped = now, self._dropped, 0
        if dropped:
            try:
                msg = record.getMessage()
            except Exception:  # noqa: BLE001 - a record that cannot format is kept as its template
                msg = str(record.msg)
            record.msg, record.args = f"{msg} ({dropped} more in the last {self.window:.0f} s)", None
        return True


def quiet_sdk_loggers() -> None:
    """Set the registered platforms' SDK loggers (``Platform.loggers``: slack_bolt's, lark-oapi's) to
    WARNING, each record one line (idempotent); ``Platform.request_loggers`` are dropped inside requests.
    The SDKs' own handlers (lark-oapi adds one) are filtered as well. waitress's queue-depth
    warning passes once a minute (:class:`OncePer`)."""
    for name in _SUMMARISED:
        logger = logging.getLogger(name)
        if not any(isinstance(f, OncePer) for f in logger.filters):
            logger.addFilter(OncePer())
    for p in platforms.registry().values():
        for name in p.loggers:
            logger = logging.getLogger(name)
            logger.setLevel(logging.WARNING)
            if not any(isinstance(f, _OneLine) for f in logger.filters):
                logger.addFilter(_OneLine())
            if name in p.request_loggers and not any(isinstance(f, _NotInRequest) for f in logger.filters):
                logger.addFilter(_NotInRequest())
