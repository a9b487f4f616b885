"""The chat bot's web entry point: settings + store -> one WSGI app with every chat platform's endpoints.

``create_app(config, store)`` mounts (``config``: :func:`prhub.config.load`; every configured
repository is answered about, a channel about the repository its destination is bound to)::

    POST /<platform>/...   each registered platform's endpoints (``Platform.mount``: /slack/events,
                           /slack/commands, /slack/actions with a signing secret; /feishu/events,
                           /feishu/card with the encrypt key)
    GET  /healthz                                          "ok"
    anything else                                          ``fallback`` (e.g. the report pages), else 404

Outbound connections (Socket Mode, the Feishu long connection) use the same listeners
(``ChatApp.handle(name)``); :mod:`prhub.connections` opens them.

Every request goes through :class:`prhub.guard.RequestGuard` (body limit before reading, one
line per refused request, no traceback pages); ``ChatApp.platforms`` says, per platform, whether
its HTTP endpoints are up and why not.

The platforms come from the registry (``prhub/platforms.py``). ``create_deliveries(settings)``
gives the scheduler its ``ChatDelivery`` per configured platform.
Importing this module connects to nothing; the SDKs load only for the platforms configured.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from prhub.clock import SYSTEM_CLOCK
from scheduler import claims
from scheduler.owner import ProcessOwner
from chatbot.cards import CardLimits
from chatbot.inbound import ActionHandler, ChatService, ReportFiles
from chatbot.pr_history import StoreHistory
from chatbot.queries import DigestProvider, ModuleIndex, Responder, WindowDigests
from chatbot.repo_mention import path_roots
from chatbot.weeks import IsoWeek
from prhub import platforms
from prhub.guard import DEFAULT_MAX_REQUEST_BYTES, RequestGuard, quiet_sdk_loggers
from prhub.llm import chat_router
from prhub.outbox import StoreOutbox
from chatbot.rules import Rules
from prhub.config import Config, Settings

if TYPE_CHECKING:
    from adapters.storage import SqlStore
    from chatbot.ports import ChatDelivery, FileUpload

log = logging.getLogger(__name__)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _now_fn(clock: Any) -> Callable[[], datetime]:
    if clock is None:
        return SYSTEM_CLOCK.now
    if hasattr(clock, "now"):
        return clock.now  # type: ignore[no-any-return]
    return clock  # type: ignore[no-any-return]


class PurgingEventLog:
    """The store's ``claim_event``, purging records older than the retention every ``every``.

    Args:
        store: has ``claim_event(platform, key, now)`` and ``purge_events(now, retention)``.
        retention: how long events are remembered (>= 7 h; ``PRHUB_EVENT_RETENTION_HOURS``).
        every: how often a claim also purges.
    """

    def __init__(self, store: Any, retention: timedelta, every: timedelta = timedelta(minutes=10),
                 owner: ProcessOwner | None = None, stale: timedelta = claims.CLAIM_STALE) -> None:
        self.store = store
        self.retention = retention
        self.every = every
        self.owner = owner or ProcessOwner()
        self.stale = stale
        self._last: datetime | None = None
        self._lock = threading.Lock()

    def _reclaimable(self, now: datetime) -> Callable[[str | None, datetime, bool], bool]:
        """The store's take-over test at ``now``: :func:`scheduler.claims.reclaimable` with this
        process's liveness checks and :attr:`stale`."""
        def test(owner: str | None, received_at: datetime, answered: bool) -> bool:
            return claims.reclaimable(owner, received_at, answered, now, self.owner, self.stale)
        return test

    def mark_event_answered(self, platform: str, key: str, now: datetime) -> None:
        """See ``SqlStore.mark_event_answered``."""
        self.store.mark_event_answered(platform, key, now)

    def claim_event(self, platform: str, key: str, now: datetime) -> bool:
        """Claim ``key`` (see ``SqlStore.claim_event``); purges first when due."""
        with self._lock:
            due = self._last is None or now - self._last >= self.every
            if due:
                self._last = now
        if due:
            try:
                self.store.purge_events(now, self.retention)
            except Exception as exc:  # noqa: BLE001 - a failed purge must not lose the event
                why = getattr(exc, "user_message", None) or type(exc).__name__
                log.warning("purging processed events failed (next try in %s): %s", self.every, why)
        return bool(self.store.claim_event(platform, key, now, owner=self.owner.token,
                                           reclaimable=self._reclaimable(now)))


def report_url_fn(settings: Settings, repo: str) -> Callable[[IsoWeek], str | None] | None:
    """``week -> {PRHUB_PUBLIC_URL}/reports/{owner}/{name}/{week}``, or None without a public URL."""
    base = settings.prhub_public_url
    if not base:
        return None
    return lambda week: f"{base}/reports/{repo}/{week}"


def as_config(settings: Settings | Config) -> Config:
    """``settings`` as the one :class:`prhub.config.Config` (bare settings: no file, zero-config)."""
    return settings if isinstance(settings, Config) else Config(file=None, env=settings)


def create_responders(settings: Settings | Config, store: SqlStore | None, *, clock: Any = None,
                      digest_provider: DigestProvider | None = None) -> list[Responder]:
    """One query engine per configured repository, in the config's order (the first answers direct
    messages), each with that repository's rules and week zone and its own digests from the store.

    Args:
        settings: the configuration (or bare settings: ``PRHUB_DEFAULT_REPO``/``PRHUB_TZ``).
        store: the PR store (``merged_between``) and subscription book.
        clock: a ``Clock`` or ``now()`` callable (default the system clock).
        digest_provider: digests of the first repository instead of the store's (tests); the
            store's repositories also get the store as their :class:`~chatbot.pr_history.PRHistory`.

    Raises:
        chatbot.errors.InputError: no digest provider and no store, or bad rules.
    """
    from chatbot.errors import InputError

    config = as_config(settings)
    now = _now_fn(clock)
    env = config.env
    out: list[Responder] = []
    llm = config.file.config.llm if config.file is not None else None
    for i, r in enumerate(config.chat_repositories):
        provider = digest_provider if i == 0 else None
        history = None
        if provider is None:
            if store is None:
                raise InputError("the chat bot needs the PR store (PRHUB_DATABASE_URL) or a digest provider")
            provider = WindowDigests(_store_window(store, r.repo), repo=r.repo, rules=r.rules, clock=now, tz=r.tz,
                                      version=_store_version(store, r.repo))
            history = _ReusedSpanHistory(store, r.repo)
        out.append(Responder(digest_provider=provider, clock=now, repo=r.repo, tz=r.tz, modules=ModuleIndex(r.rules),
                             subscriptions=store, report_url=report_url_fn(env, r.repo),
                             default_lang=env.prhub_default_lang, observe=_observe_query, history=history,
                             buttons=True, limits=CardLimits(top_risks=r.top_risks),
                             router=chat_router(llm, ModuleIndex(r.rules)) if llm is not None else None))
    return out


def _store_window(store: SqlStore, repo: str) -> Callable[[datetime, datetime], Any]:
    return lambda start, end: store.merged_between(repo, start, end)


VERSION_REUSE_S = 1.0
"""Seconds a read of the stored PRs' version or span is reused while this process stores no PR
(:func:`_reused`): how late a PR another process stores may reach chat answers."""

_T = TypeVar("_T")


def _reused(store: SqlStore, read: Callable[..., _T]) -> Callable[..., _T]:
    """``read(*args)``, reused for :data:`VERSION_REUSE_S` per ``args`` while this process stores no
    PR (``store.pr_writes()`` unchanged): after a PR this process stores (the webhook, the sync job
    in ``prhub serve``) the next call reads again; a PR another process stores is read within a
    second."""
    memo: dict[tuple[Any, ...], tuple[_T, int, float]] = {}

    def cached(*args: Any) -> _T:
        writes, now = store.pr_writes(), time.monotonic()
        hit = memo.get(args)
        if hit is not None and hit[1] == writes and now - hit[2] < VERSION_REUSE_S:
            return hit[0]
        value = read(*args)
        if len(memo) >= 256:
            memo.clear()
        memo[args] = (value, writes, now)
        return value

    return cached


def _store_version(store: SqlStore, repo: str) -> Callable[[datetime, datetime], str]:
    """``version(start, end)`` of ``repo``'s stored PRs for the chat's digest cache: the store's
    ``window_version`` through :func:`_reused` (every question asked it, 1.25 store round trips a
    question on the mixed set: issue 20)."""
    return _reused(store, lambda start, end: store.window_version(repo, start, end))


class _ReusedSpanHistory(StoreHistory):
    """:class:`StoreHistory` whose :meth:`merged_span` goes through :func:`_reused` (every answer
    without PRs for its week says the stored span: 0.54 store round trips a question, issue 20)."""

    def __init__(self, store: SqlStore, repo: str) -> None:
        super().__init__(store, repo)
        self._span = _reused(store, lambda: store.merged_span(repo))

    def merged_span(self) -> tuple[datetime, datetime] | None:
        """See :meth:`chatbot.pr_history.PRHistory.merged_span`."""
        return self._span()


def chat_routes(config: Config) -> dict[tuple[str, str], str]:
    """``(platform, target) -> repo`` of every configured destination (a chat listed under two
    repositories belongs to the first)."""
    routes: dict[tuple[str, str], str] = {}
    for r in config.chat_repositories:
        for dest in r.destinations:
            routes.setdefault(dest, r.repo)
    return routes


def _observe_query(seconds: float) -> None:
    """Feed the query counter and latency histogram of ``GET /metrics``."""
    from scheduler.metrics import METRICS

    METRICS.observe_query(seconds)


def create_deliveries(settings: Settings) -> dict[str, ChatDelivery]:
    """One :class:`ChatDelivery` per registered platform whose credentials are set, by name."""
    return {p.name: p.delivery(settings) for p in platforms.registry().values() if p.can_send(settings)}


def chat_admins(settings: Settings) -> dict[str, frozenset[str]]:
    """Per platform name, the user ids allowed to subscribe a channel."""
    return {p.name: p.admins(settings) for p in platforms.registry().values()}


def create_chat_service(settings: Settings | Config, store: SqlStore | None, *, clock: Any = None,
                        digest_provider: DigestProvider | None = None,
                        handlers: Mapping[str, ActionHandler] | None = None,
                        outbox: StoreOutbox | None = None) -> ChatService:
    """The one chat pipeline every platform's endpoints feed (see :class:`ChatService`): every
    configured repository, each channel routed to the repository its destination is bound to;
    replies that fail to send go to ``outbox``.

    Raises:
        chatbot.errors.InputError: no store (chat needs it for de-duplication and subscriptions).
    """
    from chatbot.errors import InputError

    if store is None:
        raise InputError("the chat bot needs the PR store: set PRHUB_DATABASE_URL")
    config = as_config(settings)
    now = _now_fn(clock)
    responders = create_responders(config, store, clock=now, digest_provider=digest_provider)
    events = PurgingEventLog(store, timedelta(hours=config.env.prhub_event_retention_hours))
    roots = frozenset().union(*(path_roots(r.rules) for r in config.chat_repositories))
    files = None if config.env.prhub_public_url else chat_report_files(config, store)
    return ChatService(responders=responders, events=events, clock=now, admins=chat_admins(config.env),
                       routes=chat_routes(config), busy=OVERLOADED.get, path_roots=roots,
                       handlers=handlers, outbox=outbox, files=files)


def chat_report_files(config: Config, store: SqlStore) -> ReportFiles:
    """``(repo, week, lang) -> FileUpload``: the full report a chat answer posts as a file where no
    public URL links to the report pages (:meth:`prhub.report.StoreReports.file`: the PDF, cached per
    stored version; each configured repository with its rules and week zone).

    The returned function raises InputError for a repository that is not configured or a week with
    no stored PRs."""
    from chatbot.errors import InputError
    from prhub.report import StoreReports

    reports = {r.repo.casefold(): StoreReports(store, tz=r.tz, rules_for=lambda _repo, rules=r.rules: rules, cache_size=4)
               for r in config.chat_repositories}

    def file(repo: str, week: str, lang: str) -> FileUpload:
        one = reports.get(repo.casefold())
        if one is None:
            raise InputError(f"{repo} is not a configured repository")
        return one.file(repo, week, lang)

    return file


OVERLOADED: contextvars.ContextVar[bool] = contextvars.ContextVar("prhub_overloaded", default=False)
"""True inside a reply run inline because the reply queue was full (the answer is then "busy")."""


REPLY_WAIT_S = 0.5
"""How long an HTTP thread waits for a slot of a full reply queue before answering "busy"
(:class:`BoundedExecutor`); well inside Slack's 3 s for the ack."""


class BoundedExecutor(Executor):
    """A bounded reply queue: at most ``capacity`` replies queued or running on ``inner``; when it
    is full, the caller waits up to ``wait`` seconds for a slot, then the task runs in the caller's
    thread with :data:`OVERLOADED` set, so the chat pipeline answers "busy, try again in a minute"
    within ``wait`` instead of queueing for minutes.

    The wait holds the caller's HTTP thread (and so the platform's ack): a crowd whose next message
    waits for the ack is slowed to the rate replies are made instead of being shed (issue 20: 20 and
    50 Slack senders on PostgreSQL got 6-7% "busy" answers with no wait, 0% with 0.5 s, reply p99
    within 1.4 s). At most ``waiters`` callers wait at once; the others are answered "busy" at once,
    so a flood cannot hold every HTTP thread (and /healthz) for ``wait`` per request.

    Args:
        inner: the worker pool.
        capacity: replies queued or running at most (default ``4 × server threads``).
        wait: seconds a caller waits for a slot of a full queue (0: none).
        waiters: callers that may wait at once (0: none).
    """

    def __init__(self, inner: Executor, capacity: int, *, wait: float = 0.0, waiters: int = 0) -> None:
        self.inner = inner
        self.capacity = capacity
        self.wait = wait
        self._slots = threading.BoundedSemaphore(capacity)
        self._waiting = threading.BoundedSemaphore(waiters) if waiters > 0 and wait > 0 else None

    def _slot(self) -> bool:
        """Take a slot, waiting up to :attr:`wait` for one when a waiter's turn is free."""
        if self._slots.acquire(blocking=False):
            return True
        if self._waiting is None or not self._waiting.acquire(blocking=False):
            return False
        try:
            return self._slots.acquire(timeout=self.wait)
        finally:
            self._waiting.release()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if not self._slot():
            done: Future[Any] = Future()
            token = OVERLOADED.set(True)
            try:
                done.set_result(fn(*args, **kwargs))
            except Exception as exc:  # noqa: BLE001 - handed back through the future, like a pool
                done.set_exception(exc)
            finally:
                OVERLOADED.reset(token)
            return done
        try:
            fut = self.inner.submit(fn, *args, **kwargs)
        except BaseException:
            self._slots.release()
            raise
        fut.add_done_callback(lambda _f: self._slots.release())
        return fut

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)


class PlatformProbe:
    """Start-up isolation: checks each chat platform on a background thread, retrying with
    exponential backoff (``first`` seconds doubling up to ``cap``) until it answers, and keeps
    ``platforms[name]`` at ``ok`` or ``retrying: <one line>`` (``/healthz`` shows it). A platform
    that cannot connect never stops the others, the scheduler or the report pages.

    Args:
        platforms: the shared status map (``ChatApp.platforms``).
        first, cap: backoff in seconds.
    """

    def __init__(self, platforms: dict[str, str], *, first: float = 5.0, cap: float = 300.0) -> None:
        self.platforms = platforms
        self.first = first
        self.cap = cap
        self.stopped = threading.Event()
        self.threads: list[threading.Thread] = []

    def watch(self, name: str, check: Callable[[], None]) -> None:
        """Run ``check`` (raises on failure) until it passes, on a daemon thread named after ``name``."""
        def loop() -> None:
            wait = self.first
            while not self.stopped.is_set():
                try:
                    check()
                except Exception as exc:  # noqa: BLE001 - any failure is one line and a retry
                    why = " ".join(str(getattr(exc, "user_message", None) or type(exc).__name__).split())[:200]
                    self.platforms[name] = f"retrying: {why}; next try in {wait:g} s"
                    log.warning("%s: cannot connect (%s): retrying in %g s", name, why, wait)
                    if self.stopped.wait(wait):
                        return
                    wait = min(self.cap, wait * 2)
                    continue
                if self.platforms.get(name, "").startswith("retrying"):
                    log.info("%s: connected", name)
                self.platforms[name] = "ok"
                return

        t = threading.Thread(target=loop, name=f"prhub-probe-{name}", daemon=True)
        self.threads.append(t)
        t.start()

    def stop(self) -> None:
        """Stop retrying (shutdown)."""
        self.stopped.set()


class ChatApp:
    """The WSGI app: routes by path prefix to each mounted platform's endpoints (paths kept whole).

    Attributes:
        mounts: platform name -> its :class:`prhub.platforms.Mount` (prefix, WSGI app, handle).
        chat: the chat pipeline every platform shares (None without chat).
        responder: the default repository's query engine (None without chat).
    """

    def __init__(self, *, fallback: WSGIApp | None = None, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        self.mounts: dict[str, platforms.Mount] = {}
        self.fallback = fallback
        self.responder: Responder | None = None
        self.chat: ChatService | None = None
        self.platforms: dict[str, str] = {}
        """Per platform name, ``ok``, ``starting``, ``retrying: why`` or ``off: why`` (for ``/healthz``)."""
        self.probe = PlatformProbe(self.platforms)
        self.reply_executors: dict[str, BoundedExecutor] = {}
        """The bounded reply queue of each platform."""
        self.outbox: StoreOutbox | None = None
        """Replies that failed to send, posted again by its worker (started with the mounts)."""
        self.guard = RequestGuard(self._route, max_bytes=max_request_bytes)

    def close(self) -> None:
        """Stop the background threads (platform probes, the reply outbox's worker)."""
        self.probe.stop()
        if self.outbox is not None:
            self.outbox.stop()

    def handle(self, platform: str) -> Any:
        """The mounted platform's handle (e.g. the bolt App), or None."""
        mount = self.mounts.get(platform)
        return mount.handle if mount is not None else None

    def endpoints(self, platform: str) -> WSGIApp | None:
        """The mounted platform's HTTP endpoints (None: not mounted, or events over a connection only)."""
        mount = self.mounts.get(platform)
        return mount.app if mount is not None else None

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        return self.guard(environ, start_response)

    def _route(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        for mount in self.mounts.values():
            if mount.app is not None and path.startswith(mount.prefix):
                return mount.app(environ, start_response)
        if path == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        if self.fallback is not None:
            return self.fallback(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"not found\n"]


def create_app(settings: Settings | Config, store: SqlStore | None, *, clock: Any = None,
               digest_provider: DigestProvider | None = None, fallback: WSGIApp | None = None,
               executors: Mapping[str, Any] | None = None,
               max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
               platform_retry: tuple[float, float] = (5.0, 300.0), reply_queue: int = 64,
               reply_workers: int = 16, server_threads: int = 8, reply_wait: float = REPLY_WAIT_S,
               handlers: Mapping[str, ActionHandler] | None = None,
               reply_retry: tuple[float, float, float] = (2.0, 300.0, 2.0)) -> ChatApp:
    """Build the chat bot's WSGI app (see the module docstring for the routes).

    Every registered platform (``prhub/platforms.py``) whose inbound settings are set is mounted
    around one shared :class:`ChatService`.

    Args:
        settings: the configuration (:func:`prhub.config.load`), or bare settings
            (:func:`prhub.config.load_settings`: one repository, ``PRHUB_DEFAULT_REPO``).
        store: the SQL store (subscriptions, event de-duplication, PRs). Required for chat.
        clock: a ``Clock`` (``.now()``) or a ``now()`` callable; default the system clock (UTC).
        digest_provider: digests per week (default: read from the store).
        fallback: WSGI app for other paths (the report pages).
        executors: per platform name, where its replies run (default: a pool of ``reply_workers``
            threads named ``prhub-<platform>``); each is bounded by ``reply_queue``.
        max_request_bytes: request body limit (``server.max_request_bytes``); larger bodies get 413.
        platform_retry: first and largest wait (seconds) between connection checks of a platform
            that cannot connect at start (``server.platform_retry_seconds``).
        reply_queue: replies queued or running per platform at most (``server.reply_queue``); beyond
            it the bot answers "busy" (:class:`BoundedExecutor`).
        reply_workers: threads answering per platform (``server.reply_workers``, default 2 × threads).
        server_threads: the HTTP server's threads (a "busy" answer is posted from one of them), so
            a platform's API connection pool keeps ``reply_workers + server_threads`` connections
            alive: fewer made urllib3 discard connections under a crowd ("Connection pool is full").
            Half of them (at least one) may wait ``reply_wait`` seconds for a slot of a full queue
            before answering "busy" (:class:`BoundedExecutor`).
        handlers: chat handlers of buttons that are not questions (the weekly post's Approve /
            Skip: :meth:`scheduler.approval.Approvals.handlers`).
        reply_retry: first and largest wait between sends of a reply that failed, and how often the
            outbox is read (seconds; :class:`prhub.outbox.StoreOutbox`).

    Raises:
        prhub.config.SettingsError: a platform half configured (e.g. a token without its secret).
        chatbot.errors.InputError: chat configured without a store.
    """
    quiet_sdk_loggers()
    config = as_config(settings)
    settings = config.env
    app = ChatApp(fallback=fallback, max_request_bytes=max_request_bytes)
    app.probe.first, app.probe.cap = platform_retry
    wanted = [p for p in platforms.registry().values() if p.mount is not None and p.wants_inbound(settings)]
    if not wanted:
        return app
    first, cap, poll = reply_retry
    outbox = StoreOutbox(store, first=first, cap=cap, poll=poll) if store is not None else None
    chat = create_chat_service(config, store, clock=clock, digest_provider=digest_provider, handlers=handlers,
                               outbox=outbox)
    given = executors or {}
    app.reply_executors = {p.name: BoundedExecutor(given.get(p.name) or ThreadPoolExecutor(
        reply_workers, thread_name_prefix=f"prhub-{p.name}"), reply_queue, wait=reply_wait,
        waiters=max(1, server_threads // 2)) for p in wanted}
    app.chat = chat
    app.responder = chat.default
    for p in wanted:
        assert p.mount is not None
        mount = p.mount(settings, chat, {"executor": app.reply_executors[p.name],
                                         "pool_size": reply_workers + server_threads})
        app.mounts[p.name] = mount
        if mount.check is not None:
            app.platforms[p.name] = "starting"
            app.probe.watch(p.name, mount.check)
        elif mount.status:
            app.platforms[p.name] = mount.status
            log.warning("%s: %s", p.name, mount.status)
    _start_outbox(app, outbox)
    return app


def _start_outbox(app: ChatApp, outbox: StoreOutbox | None) -> None:
    """Give the outbox each mounted platform's ``resend`` and start its worker (replies queued before a
    restart are sent as soon as the platform answers)."""
    if outbox is None:
        return
    for name, mount in app.mounts.items():
        if mount.resend is not None:
            outbox.senders[name] = mount.resend
    app.outbox = outbox
    outbox.start()
