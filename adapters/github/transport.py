"""The PyGithub client the source talks through: request counting and the rate-limit/retry policy.

Every HTTP request goes through PyGithub (``github.Github`` and its ``Requester``). PyGithub's own
retry is switched off (``retry=None``: one HTTP request per call) so that every request is counted and
every wait goes through :class:`RetryPolicy` with an injectable sleeper:

* primary rate limit (``X-RateLimit-Remaining: 0`` + ``X-RateLimit-Reset``, or a GraphQL
  ``RATE_LIMITED`` error): wait until the reset when that is within ``max_wait`` seconds, else raise
  :class:`chatbot.errors.RateLimitedError` carrying ``reset_at``;
* secondary rate limit (403/429 with ``Retry-After``, or the "secondary rate limit" message): wait
  ``Retry-After`` seconds (60 without the header) and continue;
* 401, or 403 without rate-limit signs: :class:`chatbot.errors.SourcePermissionError`, no retry;
* 5xx, connection errors and timeouts: bounded retries with exponential backoff (tenacity).

The token is handed to PyGithub's ``Auth.Token`` and never logged, repr'd or put in an error.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import requests
import requests.adapters
from github import Auth, Github, GithubException
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass, Requester
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from chatbot.errors import RateLimitedError, SourceError, SourcePermissionError
from chatbot.ports import Clock

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.github.com"
Sleeper = Callable[[float], None]


class RequestCounter:
    """Thread-safe count of HTTP requests sent (responses ``304 Not Modified`` excluded)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value = 0
        self.not_modified = 0

    def record(self, status: int) -> None:
        """Count one response with HTTP ``status``."""
        with self._lock:
            if status == 304:
                self.not_modified += 1
            else:
                self.value += 1


class _CountingAdapter(requests.adapters.HTTPAdapter):
    def __init__(self, counter: RequestCounter, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._counter = counter

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        try:
            response = super().send(request, *args, **kwargs)
        except requests.RequestException:
            self._counter.record(0)  # the request went out (or tried to): it counts
            raise
        self._counter.record(response.status_code)
        return response


def _counting(base: type, counter: RequestCounter) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        base.__init__(self, *args, **kwargs)
        self.adapter = _CountingAdapter(counter, max_retries=self.retry, pool_connections=self.pool_size,
                                        pool_maxsize=self.pool_size)
        self.session.mount("http://", self.adapter)
        self.session.mount("https://", self.adapter)

    return type(f"Counting{base.__name__}", (base,), {"__init__": __init__})


def counting_github(token: str | None, base_url: str, counter: RequestCounter, *, timeout: int = 30,
                    per_page: int = 100) -> Github:
    """A ``github.Github`` whose every HTTP request is counted in ``counter``.

    Args:
        token: a GitHub token (``GITHUB_TOKEN``), or None for unauthenticated requests.
        base_url: REST base URL: ``https://api.github.com`` or ``https://HOST/api/v3`` (Enterprise);
            GraphQL goes to PyGithub's derived URL (``/graphql``, ``/api/graphql``).
        counter: receives one count per HTTP response (304s excluded) or failed send.
        timeout: socket timeout per request, seconds.
        per_page: REST page size (PyGithub paginated lists), 1-100.

    Raises:
        SourceError: this PyGithub version does not let the counting transport be installed.
    """
    gh = Github(auth=Auth.Token(token) if token else None, base_url=base_url.rstrip("/"), timeout=timeout,
                per_page=per_page, retry=None, seconds_between_requests=None, seconds_between_writes=None)
    requester = gh.requester
    # PyGithub builds its connection lazily from this per-instance class; install counting subclasses
    # of its own connection classes (the transport stays PyGithub's, only the session adapter counts).
    if not hasattr(requester, "_Requester__connectionClass"):
        raise SourceError("unsupported PyGithub version: cannot count requests (pin PyGithub 2.x)")
    http_cls = _counting(HTTPRequestsConnectionClass, counter)
    https_cls = _counting(HTTPSRequestsConnectionClass, counter)
    requester._Requester__connectionClass = https_cls if base_url.startswith("https:") else http_cls  # type: ignore[attr-defined]
    requester._Requester__httpConnectionClass = http_cls  # type: ignore[attr-defined]
    requester._Requester__httpsConnectionClass = https_cls  # type: ignore[attr-defined]
    return gh


class _Retry(Exception):
    """Internal: the request may be retried after ``wait`` seconds."""

    def __init__(self, wait: float, reason: str) -> None:
        super().__init__(reason)
        self.wait = wait
        self.reason = reason


def _header(headers: Any, name: str) -> str | None:
    if not headers:
        return None
    for k, v in dict(headers).items():
        if str(k).lower() == name:
            return str(v)
    return None


def _message(data: Any) -> str:
    if isinstance(data, dict):
        msg = data.get("message")
        if not msg and isinstance(data.get("errors"), list) and data["errors"]:
            first = data["errors"][0]
            msg = first.get("message") if isinstance(first, dict) else str(first)
        return " ".join(str(msg or "").split())[:200]
    return ""


@dataclass
class RetryPolicy:
    """How long to wait and how often to retry.

    Attributes:
        max_wait: longest wait for a rate-limit reset or ``Retry-After``, seconds (default 600 = 10 min).
        attempts: attempts per request for transient failures (5xx, network), including the first.
        backoff: first backoff, seconds; doubles per retry (1, 2, 4, ...), capped at 60.
        secondary_wait: wait for a secondary limit without ``Retry-After``, seconds.
        rate_attempts: attempts per request across rate-limit waits.
        sleeper: called with seconds to wait (``time.sleep``; tests inject a recorder).
        clock: the :class:`chatbot.ports.Clock` rate-limit resets are measured on (aware UTC;
            ``prhub/clock.py``'s in production, tests inject a fixed one). Required.
    """

    max_wait: float = 600.0
    attempts: int = 5
    backoff: float = 1.0
    secondary_wait: float = 60.0
    rate_attempts: int = 4
    sleeper: Sleeper = time.sleep
    clock: Clock = field(kw_only=True)
    waits: list[float] = field(default_factory=list)
    """Every wait actually requested, seconds (for logs and tests)."""

    def _rate_limited(self, reset: str | None, what: str) -> BaseException:
        try:
            reset_at = datetime.fromtimestamp(int(float(reset)), timezone.utc) if reset else None
        except (ValueError, OverflowError):
            reset_at = None
        if reset_at is None:
            return _Retry(self.secondary_wait, f"{what}: no reset time given")
        wait = max((reset_at - self.clock.now()).total_seconds(), 0.0) + 1.0
        if wait > self.max_wait:
            return RateLimitedError(
                f"GitHub rate-limited until {reset_at:%H:%M} UTC ({what}); the wait of {wait / 60:.0f} min exceeds "
                f"the {self.max_wait / 60:.0f} min cap: try again after the reset",
                reset_at,
            )
        return _Retry(wait, f"{what}: waiting {wait:.0f} s for the reset at {reset_at:%H:%M:%S} UTC")

    def classify(self, exc: BaseException, what: str) -> BaseException:
        """Turn a PyGithub/requests failure of request ``what`` into ``_Retry`` or one of our errors."""
        if isinstance(exc, GithubException):
            status = exc.status
            headers = exc.headers or {}
            msg = _message(exc.data)
            retry_after = _header(headers, "retry-after")
            remaining = _header(headers, "x-ratelimit-remaining")
            low = msg.lower()
            if status in (403, 429) and retry_after is not None:
                try:
                    wait = max(float(retry_after), 0.0)
                except ValueError:
                    wait = self.secondary_wait
                if wait > self.max_wait:
                    reset_at = self.clock.now() + timedelta(seconds=wait)
                    return RateLimitedError(
                        f"GitHub rate-limited until {reset_at:%H:%M} UTC (secondary limit, Retry-After {wait:.0f} s "
                        f"exceeds the {self.max_wait:.0f} s cap): try again after that", reset_at)
                return _Retry(wait, f"{what}: secondary rate limit, Retry-After {wait:.0f} s")
            if status in (403, 429) and (remaining == "0" or low.startswith("api rate limit exceeded")):
                return self._rate_limited(_header(headers, "x-ratelimit-reset"), f"{what}: primary rate limit")
            if status in (403, 429) and ("secondary rate limit" in low or status == 429):
                return _Retry(self.secondary_wait, f"{what}: secondary rate limit, no Retry-After")
            if status == 401:
                return SourcePermissionError(
                    f"GitHub rejected the token (HTTP 401 {msg or 'Bad credentials'}) on {what}: set a valid GITHUB_TOKEN")
            if status == 403:
                return SourcePermissionError(
                    f"GitHub refused access (HTTP 403: {msg or 'forbidden'}) on {what}: give the token read access "
                    "to the repository's pull requests (no retry)")
            if status == 404:
                return SourceError(f"GitHub answered 404 on {what}: check the repository name and the base URL")
            if status >= 500:
                return _Retry(0.0, f"{what}: HTTP {status}")
            return SourceError(f"GitHub answered HTTP {status} on {what}: {msg or 'no message'}")
        if isinstance(exc, (requests.ConnectionError, requests.Timeout)):
            return _Retry(0.0, f"{what}: {type(exc).__name__}")
        return exc

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        wait = exc.wait if isinstance(exc, _Retry) else 0.0
        if wait <= 0.0:  # transient: exponential backoff
            wait = min(self.backoff * 2 ** (state.attempt_number - 1), 60.0)
        log.warning("GitHub %s; retrying in %.0f s (attempt %d)", getattr(exc, "reason", exc), wait,
                    state.attempt_number + 1)
        self.waits.append(wait)
        return wait

    def call(self, fn: Callable[[], Any], what: str) -> Any:
        """Run ``fn`` (one PyGithub request) under the policy; ``what`` names it in logs and errors.

        Raises:
            RateLimitedError: the reset (or ``Retry-After``) is further away than ``max_wait``.
            SourcePermissionError: HTTP 401, or 403 without rate-limit signs.
            SourceError: other 4xx, or still failing after the bounded retries.
        """
        def attempt() -> Any:
            try:
                return fn()
            except (GithubException, requests.RequestException) as exc:
                outcome = self.classify(exc, what)
                raise outcome from None

        def stop(state: RetryCallState) -> bool:
            exc = state.outcome.exception() if state.outcome else None
            limit = self.attempts if isinstance(exc, _Retry) and exc.wait <= 0.0 else self.rate_attempts
            return stop_after_attempt(max(limit, 1))(state)

        try:
            for try_ in Retrying(retry=retry_if_exception_type(_Retry), stop=stop, wait=self._wait,
                                 sleep=self.sleeper, reraise=True):
                with try_:
                    return attempt()
        except _Retry as exc:
            raise SourceError(f"GitHub kept failing ({exc.reason}); gave up after bounded retries: try again later") from None
        raise AssertionError("unreachable")  # pragma: no cover


class QueryTooHeavy(Exception):
    """A GraphQL request timed out or got HTTP 502/504: GitHub's answer to a query too heavy to finish
    in its ~10 s budget. Raised only when the caller can make the query lighter (``graphql(heavy=True)``)."""


HEAVY_STATUSES = (502, 504)
"""HTTP statuses GitHub sends when a query ran out of time (with a client timeout: ``requests.Timeout``)."""


def graphql(requester: Requester, policy: RetryPolicy, query: str, variables: dict[str, Any], what: str,
            *, heavy: bool = False) -> dict[str, Any]:
    """One ``POST /graphql`` through PyGithub's requester, under ``policy``; returns the ``data`` object.

    Args:
        heavy: raise :class:`QueryTooHeavy` at once on a timeout or HTTP 502/504 instead of retrying the
            same query (the caller asks for less, e.g. a smaller page).

    Raises:
        QueryTooHeavy: only with ``heavy=True``, as above (the failed request is counted).
        RateLimitedError / SourcePermissionError / SourceError: as :meth:`RetryPolicy.call`; GraphQL
            errors (other than ``RATE_LIMITED``) become :class:`SourceError` naming the first message.
    """
    def send() -> dict[str, Any]:
        try:
            headers, data = requester.requestJsonAndCheck("POST", requester.graphql_url,
                                                          input={"query": query, "variables": variables})
        except GithubException as exc:
            if heavy and exc.status in HEAVY_STATUSES:
                raise QueryTooHeavy(f"{what}: HTTP {exc.status}") from None
            raise
        except requests.Timeout as exc:
            if heavy:
                raise QueryTooHeavy(f"{what}: {type(exc).__name__}") from None
            raise
        errors = data.get("errors") if isinstance(data, dict) else None
        if errors:
            kinds = {e.get("type") for e in errors if isinstance(e, dict)}
            if "RATE_LIMITED" in kinds:
                raise GithubException(403, {"message": "API rate limit exceeded (GraphQL)"},
                                                      {**headers, "x-ratelimit-remaining": "0"})
            raise SourceError(f"GitHub rejected the query on {what}: {_message(data)}")
        if not isinstance(data, dict) or not isinstance(data.get("data"), dict):
            raise SourceError(f"GitHub answered {what} without data")
        return data["data"]

    return policy.call(send, what)
