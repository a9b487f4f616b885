"""The chat bot's web entry point: settings + store -> one WSGI app with the Slack and Feishu endpoints.

``create_app(settings, store)`` mounts::

    POST /slack/events, /slack/commands, /slack/actions   bolt (when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set)
    POST /feishu/events, /feishu/card                      lark-oapi dispatcher (when FEISHU_APP_ID, FEISHU_APP_SECRET
                                                           and FEISHU_ENCRYPT_KEY are set: Feishu signs only with the key)
    GET  /healthz                                          "ok"
    anything else                                          ``fallback`` (e.g. the report pages), else 404

Socket Mode and the Feishu long connection use the same listeners (``ChatApp.slack_bolt_app``,
``ChatApp.feishu_chat``); :mod:`prhub.connections` opens them.

Every request goes through :class:`prhub.guard.RequestGuard` (body limit before reading, one
line per refused request, no traceback pages); ``ChatApp.platforms`` says, per platform, whether
its HTTP endpoints are up and why not.

``create_deliveries(settings)`` gives the scheduler its ``ChatDelivery`` per configured platform.
Importing this module connects to nothing; the SDKs load only for the platforms configured.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from prhub.clock import SYSTEM_CLOCK
from chatbot.inbound import ChatService
from chatbot.queries import DigestProvider, ModuleIndex, Responder, WindowDigests
from chatbot.weeks import IsoWeek
from prhub import bootstrap
from prhub.guard import DEFAULT_MAX_REQUEST_BYTES, RequestGuard, quiet_sdk_loggers
from prhub.settings import Settings

if TYPE_CHECKING:
    from adapters.storage import SqlStore
    from chatbot.ports import ChatDelivery

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

    def __init__(self, store: Any, retention: timedelta, every: timedelta = timedelta(minutes=10)) -> None:
        self.store = store
        self.retention = retention
        self.every = every
        self._last: datetime | None = None
        self._lock = threading.Lock()

    def claim_event(self, platform: str, key: str, now: datetime) -> bool:
        """Claim ``key`` (see ``SqlStore.claim_event``); purges first when due."""
        with self._lock:
            due = self._last is None or now - self._last >= self.every
            if due:
                self._last = now
        if due:
            try:
                self.store.purge_events(now, self.retention)
            except Exception:  # noqa: BLE001 - a failed purge must not lose the event
                log.warning("purging processed events failed", exc_info=True)
        return bool(self.store.claim_event(platform, key, now))


def report_url_fn(settings: Settings, repo: str) -> Callable[[IsoWeek], str | None] | None:
    """``week -> {PRHUB_PUBLIC_URL}/reports/{owner}/{name}/{week}``, or None without a public URL."""
    base = settings.prhub_public_url
    if not base:
        return None
    return lambda week: f"{base}/reports/{repo}/{week}"


def create_responder(settings: Settings, store: SqlStore | None, *, clock: Any = None,
                     digest_provider: DigestProvider | None = None) -> Responder:
    """The query engine for the default repository: digests from ``digest_provider`` or the store.

    Raises:
        chatbot.errors.InputError: no digest provider and no store, or bad rules.
    """
    from chatbot.errors import InputError

    now = _now_fn(clock)
    repo = settings.prhub_default_repo
    rules = bootstrap.rules_for(repo, None)
    if digest_provider is None:
        if store is None:
            raise InputError("the chat bot needs the PR store (PRHUB_DATABASE_URL) or a digest provider")
        digest_provider = WindowDigests(lambda s, e: store.merged_between(repo, s, e), repo=repo, rules=rules,
                                        clock=now, tz=settings.prhub_tz)
    return Responder(digest_provider=digest_provider, clock=now, repo=repo, tz=settings.prhub_tz,
                     modules=ModuleIndex(rules), subscriptions=store, report_url=report_url_fn(settings, repo),
                     default_lang=settings.prhub_default_lang, observe=_observe_query)


def _observe_query(seconds: float) -> None:
    """Feed the query counter and latency histogram of ``GET /metrics``."""
    from scheduler.metrics import METRICS

    METRICS.observe_query(seconds)


def create_deliveries(settings: Settings) -> dict[str, ChatDelivery]:
    """``{"slack": SlackDelivery, "feishu": FeishuDelivery}`` for the platforms configured."""
    out: dict[str, Any] = {}
    if settings.slack_bot_token:
        from adapters.slack.delivery import SlackDelivery, web_client

        out["slack"] = SlackDelivery(web_client(settings.secret("slack_bot_token"), base_url=settings.slack_api_url))
    if settings.feishu_enabled:
        from adapters.feishu.delivery import FeishuDelivery, lark_client

        assert settings.feishu_app_id is not None
        out["feishu"] = FeishuDelivery(lark_client(settings.feishu_app_id, settings.secret("feishu_app_secret"),
                                                   domain=settings.feishu_api_url))
    return out


OVERLOADED: contextvars.ContextVar[bool] = contextvars.ContextVar("prhub_overloaded", default=False)
"""True inside a reply run inline because the reply queue was full (the answer is then "busy")."""


class BoundedExecutor(Executor):
    """A bounded reply queue: at most ``capacity`` replies queued or running on ``inner``; when it
    is full, the task runs at once in the caller's thread with :data:`OVERLOADED` set, so the chat
    pipeline answers "busy, try again in a minute" in milliseconds instead of queueing for minutes.

    Args:
        inner: the worker pool.
        capacity: replies queued or running at most (default ``4 × server threads``).
    """

    def __init__(self, inner: Executor, capacity: int) -> None:
        self.inner = inner
        self.capacity = capacity
        self._slots = threading.BoundedSemaphore(capacity)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if not self._slots.acquire(blocking=False):
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
    """The WSGI app: routes by path prefix to the Slack and Feishu apps (paths kept whole).

    Attributes:
        slack: the Slack Flask app (None when Slack is not configured); ``slack_bolt_app`` its bolt App.
        feishu: the Feishu Flask app (None when not configured); ``feishu_chat`` its handlers.
        responder: the query engine both platforms share (None without chat).
    """

    def __init__(self, *, slack: WSGIApp | None = None, feishu: WSGIApp | None = None,
                 fallback: WSGIApp | None = None, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        self.slack = slack
        self.feishu = feishu
        self.fallback = fallback
        self.slack_bolt_app: Any = None
        self.feishu_chat: Any = None
        self.responder: Responder | None = None
        self.chat: ChatService | None = None
        self.platforms: dict[str, str] = {}
        """``{"slack": "ok", "feishu": "off: FEISHU_ENCRYPT_KEY is not set ..."}`` (for ``/healthz``)."""
        self.probe = PlatformProbe(self.platforms)
        self.reply_executors: dict[str, BoundedExecutor] = {}
        """The bounded reply queue of each platform."""
        self.guard = RequestGuard(self._route, max_bytes=max_request_bytes)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        return self.guard(environ, start_response)

    def _route(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        if path.startswith("/slack/") and self.slack is not None:
            return self.slack(environ, start_response)
        if path.startswith("/feishu/") and self.feishu is not None:
            return self.feishu(environ, start_response)
        if path == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        if self.fallback is not None:
            return self.fallback(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"not found\n"]


def create_app(settings: Settings, store: SqlStore | None, *, clock: Any = None,
               digest_provider: DigestProvider | None = None, fallback: WSGIApp | None = None,
               feishu_executor: Any = None, slack_executor: Any = None,
               max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
               platform_retry: tuple[float, float] = (5.0, 300.0), reply_queue: int = 32) -> ChatApp:
    """Build the chat bot's WSGI app (see the module docstring for the routes).

    Args:
        settings: from :func:`prhub.settings.load_settings`.
        store: the SQL store (subscriptions, event de-duplication, PRs). Required for chat.
        clock: a ``Clock`` (``.now()``) or a ``now()`` callable; default the system clock (UTC).
        digest_provider: digests per week (default: read from the store).
        fallback: WSGI app for other paths (the report pages).
        feishu_executor: where Feishu answers run (default: a 4-thread pool).
        slack_executor: where bolt runs listeners after the ack (default: bolt's pool).
        max_request_bytes: request body limit (``server.max_request_bytes``); larger bodies get 413.
        platform_retry: first and largest wait (seconds) between connection checks of a platform
            that cannot connect at start (``server.platform_retry_seconds``).
        reply_queue: replies queued or running per platform at most (``server.reply_queue``); beyond
            it the bot answers "busy" at once (:class:`BoundedExecutor`).

    Raises:
        prhub.settings.SettingsError: a platform half configured (e.g. a token without its secret).
        chatbot.errors.InputError: chat configured without a store.
    """
    from chatbot.errors import InputError

    now = _now_fn(clock)
    quiet_sdk_loggers()
    app = ChatApp(fallback=fallback, max_request_bytes=max_request_bytes)
    app.probe.first, app.probe.cap = platform_retry
    if not (settings.slack_bot_token or settings.slack_signing_secret or settings.slack_app_token
            or settings.feishu_app_id):
        return app
    if store is None:
        raise InputError("the chat bot needs the PR store: set PRHUB_DATABASE_URL")
    responder = create_responder(settings, store, clock=now, digest_provider=digest_provider)
    app.responder = responder
    events = PurgingEventLog(store, timedelta(hours=settings.prhub_event_retention_hours))
    chat = ChatService(responders=[responder], events=events, clock=now,
                       admins={"slack": settings.admins("slack"), "feishu": settings.admins("feishu")},
                       busy=OVERLOADED.get)
    slack_executor = BoundedExecutor(slack_executor or ThreadPoolExecutor(8, thread_name_prefix="prhub-slack"),
                                     reply_queue)
    feishu_executor = BoundedExecutor(feishu_executor or ThreadPoolExecutor(4, thread_name_prefix="prhub-feishu"),
                                      reply_queue)
    app.reply_executors = {"slack": slack_executor, "feishu": feishu_executor}
    app.chat = chat
    if settings.slack_bot_token or settings.slack_signing_secret or settings.slack_app_token:
        settings.require_slack()
        from adapters.slack.app import check_slack, create_slack_app, create_slack_wsgi

        bolt = create_slack_app(bot_token=settings.secret("slack_bot_token"),
                                signing_secret=settings.secret("slack_signing_secret"), chat=chat,
                                api_url=settings.slack_api_url, listener_executor=slack_executor)
        if settings.slack_signing_secret:  # HTTP endpoints (Socket Mode needs no signing secret)
            app.slack = create_slack_wsgi(bolt)
        app.platforms["slack"] = "starting"
        app.probe.watch("slack", lambda: check_slack(bolt))
        app.slack_bolt_app = bolt
    if settings.feishu_app_id or settings.feishu_app_secret:
        settings.require_feishu()
        from adapters.feishu.app import FeishuChat, create_feishu_dispatcher, create_feishu_wsgi
        from adapters.feishu.delivery import FeishuDelivery, lark_client

        assert settings.feishu_app_id is not None
        delivery = FeishuDelivery(lark_client(settings.feishu_app_id, settings.secret("feishu_app_secret"),
                                              domain=settings.feishu_api_url))
        handlers = FeishuChat(delivery=delivery, chat=chat, bot_open_id=settings.feishu_bot_open_id,
                              executor=feishu_executor)
        dispatcher = create_feishu_dispatcher(handlers, encrypt_key=settings.secret("feishu_encrypt_key"),
                                              verification_token=settings.secret("feishu_verification_token"))
        app.feishu_chat = handlers
        encrypt_key = settings.secret("feishu_encrypt_key")
        if encrypt_key:  # HTTP callbacks (the long connection needs neither key nor token)
            app.feishu = create_feishu_wsgi(dispatcher, encrypt_key=encrypt_key)
        if encrypt_key or not settings.feishu_verification_token:
            app.platforms["feishu"] = "starting"
            app.probe.watch("feishu", delivery.bot_open_id)
        else:
            app.platforms["feishu"] = ("off: FEISHU_ENCRYPT_KEY is not set (Feishu signs callbacks only with it): "
                                       "the /feishu endpoints are not mounted")
            log.warning("feishu: %s", app.platforms["feishu"])
    return app
