"""Test harness for the chat endpoints: the bot's WSGI app served on 127.0.0.1, signed POSTs to it,
a clock the test moves, and the bot built by ``prhub.web.create_app`` against the fake platforms."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from werkzeug.serving import make_server

SLACK_SECRET = "slack-signing-secret-test"
FEISHU_TOKEN = "feishu-verification-token-test"
FEISHU_KEY = "feishu-encrypt-key-test"


class MovableClock:
    """A clock the test sets and moves (``now()`` aware UTC); never sleeps."""

    def __init__(self, start: datetime) -> None:
        self.t = start
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self.t

    def advance(self, delta: timedelta) -> None:
        with self._lock:
            self.t += delta


class Server:
    """A WSGI app on 127.0.0.1 (random port, threaded)."""

    def __init__(self, app: Any) -> None:
        self._srv = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self._srv.server_port}"
        self._thread = threading.Thread(target=self._srv.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._srv.shutdown()
        self._srv.server_close()


@dataclass
class Reply:
    status: int
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


def post(url: str, body: bytes, headers: dict[str, str]) -> Reply:
    """POST and time it (seconds until the whole response arrived)."""
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            data = resp.read()
            status = resp.status
    except urllib.error.HTTPError as exc:
        data = exc.read()
        status = exc.code
    return Reply(status, data, time.monotonic() - start)


def slack_headers(body: bytes, *, secret: str = SLACK_SECRET, timestamp: int | None = None,
                  content_type: str = "application/json", retry: int | None = None) -> dict[str, str]:
    """Slack's request headers with a real v0 signature (``timestamp`` default now)."""
    ts = str(timestamp if timestamp is not None else int(time.time()))
    sig = "v0=" + hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
    headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig}
    if retry:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    return headers


def slack_event(event: dict[str, Any], *, event_id: str, team: str = "T_TEST") -> bytes:
    return json.dumps({"token": "x", "team_id": team, "api_app_id": "A_APP", "type": "event_callback",
                       "event_id": event_id, "event_time": int(time.time()), "event": event}).encode()


def slack_form(payload: dict[str, Any]) -> bytes:
    return urllib.parse.urlencode(payload).encode()


@dataclass
class Bot:
    """The bot under test and its parts."""

    app: Any
    store: Any
    server: Server
    slack_pool: ThreadPoolExecutor
    feishu_pool: ThreadPoolExecutor
    extra: dict[str, Any] = field(default_factory=dict)

    def settle(self) -> None:
        """Wait until every listener/worker that has started is done (no sleeping on time)."""
        self.slack_pool.shutdown(wait=True)
        self.feishu_pool.shutdown(wait=True)

    def close(self) -> None:
        if self.extra.get("closed"):
            return
        self.extra["closed"] = True
        self.slack_pool.shutdown(wait=True)
        self.feishu_pool.shutdown(wait=True)
        self.server.stop()
        self.app.close()
        self.store.close()


def build_bot(db_url: str, *, clock: MovableClock, digest_provider: Any, slack: Any = None, feishu: Any = None,
              responder_wrap: Any = None, loaded: Any = None, **settings: Any) -> Bot:
    """``prhub.web.create_app`` against the fakes, served on 127.0.0.1 (with ``loaded``, a
    :class:`scheduler.config.LoadedConfig`: every repository of that config file)."""
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from prhub.config import load_settings
    from prhub.web import create_app

    values: dict[str, Any] = {"prhub_default_repo": "vllm-project/vllm", "prhub_public_url": "https://prhub.example.com"}
    if slack is not None:
        values.update(slack_bot_token=slack.token, slack_signing_secret=SLACK_SECRET, slack_api_url=slack.base_url)
    if feishu is not None:
        values.update(feishu_app_id=feishu.app_id, feishu_app_secret=feishu.app_secret,
                      feishu_verification_token=FEISHU_TOKEN, feishu_encrypt_key=FEISHU_KEY, feishu_api_url=feishu.url)
    reply_queue = settings.pop("reply_queue", 32)
    reply_retry = settings.pop("reply_retry", (2.0, 300.0, 2.0))
    values.update(settings)
    cfg: Any = load_settings(**values)
    if loaded is not None:
        from prhub.config import Config

        cfg = Config(file=loaded, env=cfg)
    store = SqlStore.open(db_url, clock=SYSTEM_CLOCK)
    slack_pool = ThreadPoolExecutor(max_workers=8)
    feishu_pool = ThreadPoolExecutor(max_workers=4)
    app = create_app(cfg, store, clock=clock, digest_provider=digest_provider,
                     executors={"slack": slack_pool, "feishu": feishu_pool}, reply_queue=reply_queue,
                     reply_retry=reply_retry)
    if responder_wrap is not None:
        responder_wrap(app)
    return Bot(app=app, store=store, server=Server(app), slack_pool=slack_pool, feishu_pool=feishu_pool)
