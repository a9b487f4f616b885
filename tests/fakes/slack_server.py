"""A fake Slack Web API on 127.0.0.1 for slack_sdk / slack-bolt tests.

Methods: ``auth.test``, ``chat.postMessage`` (returns ``ts``), ``views.publish`` (the App Home view,
checked like Slack: :func:`check_view`), ``conversations.replies``, ``conversations.history`` (with
``metadata`` when ``include_all_metadata``), ``conversations.open``; the external file upload of
``files_upload_v2``: ``files.getUploadURLExternal`` (an upload URL on this server), ``POST
/upload/<file id>`` (the bytes; length checked) and ``files.completeUploadExternal`` (shares the
uploaded files into ``channel_id``, in ``thread_ts`` when given; recorded in :attr:`FakeSlack.files`;
refusing a file over :attr:`FakeSlack.max_file_bytes`, an upload whose bytes differ from the
announced ``length``, a file id never uploaded and a channel the bot is not in, ``not_in_channel``);
plus ``POST /response/<id>`` standing in for slash-command ``response_url``\\ s. Like Slack it answers HTTP 200 with
``{"ok": false, "error": ...}`` for what it rejects, using the thresholds of
:data:`tests.fakes.limits.RULES` (too many blocks, long section/header/fields, too much block
text, missing or long fallback ``text``, unparseable blocks, missing or wrong token), and HTTP 429
with ``Retry-After`` on demand (:meth:`FakeSlack.rate_limit`), HTTP 500 on demand (:meth:`FakeSlack.fail`).
Everything received is recorded.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.event_push import SLACK_EVENT_RETRIES, push_with_retries
from tests.fakes.loopback import LoopbackServer
from tests.fakes.limits import SLACK_BAD_JSON, SLACK_INVALID_AUTH, SLACK_MISSING_TEXT, SLACK_NOT_AUTHED, RULES, limit


def _text_len(block: dict[str, Any]) -> int:
    total = 0
    t = block.get("text")
    if isinstance(t, dict):
        total += len(str(t.get("text", "")))
    for f in block.get("fields") or ():
        total += len(str(f.get("text", ""))) if isinstance(f, dict) else 0
    for e in block.get("elements") or ():
        if isinstance(e, dict):
            et = e.get("text")
            total += len(str(et.get("text", ""))) if isinstance(et, dict) else len(str(et or ""))
    return total


def check_message(args: dict[str, Any]) -> str | None:
    """The error Slack would give a ``chat.postMessage`` with ``args`` (None when accepted)."""
    blocks = args.get("blocks")
    if isinstance(blocks, str):
        try:
            blocks = json.loads(blocks)
        except ValueError:
            return SLACK_BAD_JSON
    if blocks is not None and not isinstance(blocks, list):
        return SLACK_BAD_JSON
    text = args.get("text")
    if not isinstance(text, str) or not text.strip():
        return SLACK_MISSING_TEXT
    if len(text) > limit("fallback"):
        return RULES["fallback"].error
    blocks = blocks or []
    if len(blocks) > limit("blocks"):
        return RULES["blocks"].error
    for b in blocks:
        if not isinstance(b, dict) or "type" not in b:
            return SLACK_BAD_JSON
        kind = b["type"]
        if kind == "header":
            t = b.get("text") or {}
            if t.get("type") != "plain_text" or not 1 <= len(str(t.get("text", ""))) <= limit("header"):
                return RULES["header"].error
        elif kind == "section":
            t = b.get("text")
            fields = b.get("fields")
            if t is None and not fields:
                return RULES["section"].error
            if t is not None and not 1 <= len(str(t.get("text", ""))) <= limit("section"):
                return RULES["section"].error
            if fields is not None:
                if len(fields) > limit("fields"):
                    return RULES["fields"].error
                if any(not 1 <= len(str(f.get("text", ""))) <= limit("field") for f in fields):
                    return RULES["field"].error
        elif kind == "context":
            if not b.get("elements") or len(b["elements"]) > 10:
                return "invalid_blocks"
        elif kind == "actions":
            if not b.get("elements") or len(b["elements"]) > 25:
                return "invalid_blocks"
            if any(check_element(e) for e in b["elements"]):
                return "invalid_blocks"
        elif kind not in ("divider", "image", "rich_text"):
            return "invalid_blocks"
    if sum(_text_len(b) for b in blocks) > limit("total"):
        return RULES["total"].error
    meta = args.get("metadata")
    if meta is not None:
        if isinstance(meta, str):
            try:
                meta = json.loads(meta)
            except ValueError:
                return "invalid_metadata_format"
        if not isinstance(meta, dict) or not meta.get("event_type") or not isinstance(meta.get("event_payload"), dict):
            return "invalid_metadata_format"
    return None


def _plain(t: Any, most: int) -> bool:
    return isinstance(t, dict) and t.get("type") == "plain_text" and 1 <= len(str(t.get("text", ""))) <= most


def check_element(e: Any) -> str | None:
    """Why Slack would refuse an interactive element (a button or a static_select), else None.

    Button: plain_text ``text`` of 1-75 chars, ``action_id`` at most 255, ``value`` at most 2,000,
    ``url`` at most 3,000. static_select: ``placeholder`` plain_text, 1-100 ``options`` each with
    plain_text ``text`` of 1-75 chars and a ``value`` of 1-150 chars, unique values.
    """
    if not isinstance(e, dict) or len(str(e.get("action_id", ""))) > 255:
        return "invalid_blocks"
    if e.get("type") == "button":
        if not _plain(e.get("text"), 75) or len(str(e.get("value", ""))) > 2000 or len(str(e.get("url", ""))) > 3000:
            return "invalid_blocks"
        return None
    if e.get("type") == "static_select":
        options = e.get("options")
        if not _plain(e.get("placeholder"), 150) or not isinstance(options, list) or not 1 <= len(options) <= 100:
            return "invalid_blocks"
        values = [o.get("value") for o in options if isinstance(o, dict)]
        if len(values) != len(options) or len(set(values)) != len(values):
            return "invalid_blocks"
        if any(not _plain(o.get("text"), 75) or not 1 <= len(str(o.get("value") or "")) <= 150 for o in options):
            return "invalid_blocks"
        return None
    return "invalid_blocks"


def check_view(view: Any) -> str | None:
    """The error Slack would give ``views.publish`` for ``view`` (None when accepted): a JSON
    object of ``type`` ``home`` with 1-100 ``blocks`` (header, section, context, divider,
    actions; block ids unique, at most 255), section text 1-3,000 chars, a section
    ``accessory`` a valid element, ``private_metadata`` at most 3,000 and ``callback_id`` at most
    255 chars (Slack: ``invalid_arguments``)."""
    if isinstance(view, str):
        try:
            view = json.loads(view)
        except ValueError:
            return "invalid_arguments"
    if not isinstance(view, dict) or view.get("type") != "home":
        return "invalid_arguments"
    blocks = view.get("blocks")
    if not isinstance(blocks, list) or not 1 <= len(blocks) <= 100:
        return "invalid_arguments"
    if len(str(view.get("private_metadata", ""))) > 3000 or len(str(view.get("callback_id", ""))) > 255:
        return "invalid_arguments"
    ids = [b.get("block_id") for b in blocks if isinstance(b, dict) and b.get("block_id")]
    if len(set(ids)) != len(ids) or any(len(str(i)) > 255 for i in ids):
        return "invalid_arguments"
    for b in blocks:
        if not isinstance(b, dict):
            return "invalid_arguments"
        if b.get("type") == "section":
            if "accessory" in b and check_element(b["accessory"]):
                return "invalid_arguments"
            b = {k: v for k, v in b.items() if k != "accessory"}
        if check_message({"text": "view", "blocks": [b]}) is not None:
            return "invalid_arguments"
    return None


@dataclass
class FakeSlack(LoopbackServer):
    """The fake Slack. Use as a context manager; :attr:`base_url` is the Web API base for ``WebClient``.
    HTTP/1.1 with keep-alive, as Slack; :attr:`tcp_connections` counts the TCP connections accepted."""

    _http11 = True

    token: str = "xoxb-test-token"
    team_id: str = "T_TEST"
    bot_user_id: str = "U_BOT"
    bot_id: str = "B_BOT"
    posts: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any], str | None]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    views: list[dict[str, Any]] = field(default_factory=list)
    """Home views published (``views.publish``): ``{"user_id", "view"}``, in order."""
    files: list[dict[str, Any]] = field(default_factory=list)
    """Files shared by ``files.completeUploadExternal``: id, title, channel, thread_ts, filename, data."""
    not_member: set[str] = field(default_factory=set)
    """Channels ``conversations.info`` reports the bot is not a member of (``C_MISSING*``: not found)."""
    _uploads: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_file_bytes: int = 1024 ** 3
    """Slack's limit on one file (1 GB): ``files.getUploadURLExternal`` refuses a larger ``length``
    with ``file_too_large`` (the fake's name: Slack's reference names no error for it)."""
    event_retries: tuple[float, ...] = SLACK_EVENT_RETRIES
    """Seconds before each retry of :meth:`send_event` (Slack's: at once, 1 min, 5 min)."""
    event_attempts: list[tuple[int, int]] = field(default_factory=list)
    """``(retry number, HTTP status)`` of every :meth:`send_event` attempt."""
    _failures: dict[str, int] = field(default_factory=dict)
    _limits: dict[str, list[float]] = field(default_factory=dict)
    _held: dict[str, threading.Event] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)
    """Calls that arrived while their method was held (:meth:`hold`), by method name."""
    _seq: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- lifecycle -----------------------------------------------------------------------------

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        self._handle(handler)

    @property
    def base_url(self) -> str:
        return self.url + "/api/"

    def send_event(self, url: str, body: bytes, *, secret: str) -> bool:
        """Deliver an Events API request as Slack does: signed with ``secret`` (fresh timestamp per
        attempt), retried on anything but a 2xx after :attr:`event_retries` with ``X-Slack-Retry-Num``.
        Blocks until an attempt succeeds (True) or the retries are used up (False)."""
        def attempt(n: int) -> tuple[bytes, dict[str, str]]:
            ts = str(int(time.time()))
            sig = "v0=" + hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
            headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig}
            if n:
                headers.update({"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_error"})
            return body, headers

        return push_with_retries(url, attempt, self.event_retries, ok=lambda s: 200 <= s < 300,
                                 record=self.event_attempts)

    def response_url(self, name: str = "cmd") -> str:
        return f"{self.url}/response/{name}"

    # -- test controls -------------------------------------------------------------------------

    def rate_limit(self, method: str, *retry_after: float) -> None:
        """Answer the next ``len(retry_after)`` calls of ``method`` with HTTP 429 and these ``Retry-After``."""
        with self._lock:
            self._limits.setdefault(method, []).extend(retry_after)

    def fail(self, method: str, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` (``files.getUploadURLExternal``, ``upload``
        for the upload URL, ``files.completeUploadExternal``, ...) with HTTP 500."""
        with self._lock:
            self._failures[method] = self._failures.get(method, 0) + times

    def hold(self, method: str) -> None:
        """Make calls of ``method`` wait (recorded in :attr:`held`) until :meth:`release`; a released
        call is dropped unanswered and unrecorded, as if the caller had died before sending it (a
        slow Slack that the test kills the caller during)."""
        with self._lock:
            self._held[method] = threading.Event()

    def release(self, method: str) -> None:
        """End :meth:`hold` of ``method``: waiting calls are dropped, later ones are served."""
        with self._lock:
            gate = self._held.pop(method, None)
        if gate is not None:
            gate.set()

    def _failing(self, method: str) -> bool:
        with self._lock:
            left = self._failures.get(method, 0)
            if left:
                self._failures[method] = left - 1
            return bool(left)

    def files_in(self, channel: str) -> list[dict[str, Any]]:
        return [f for f in self.files if f["channel"] == channel]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Poll ``predicate`` until true or ``timeout`` seconds pass."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()

    def posts_to(self, channel: str) -> list[dict[str, Any]]:
        return [p for p in self.posts if p["channel"] == channel]

    # -- serving -------------------------------------------------------------------------------

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _args(self, h: BaseHTTPRequestHandler) -> dict[str, Any]:
        parsed = urllib.parse.urlparse(h.path)
        args: dict[str, Any] = {k: v[-1] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        ctype = h.headers.get("Content-Type", "")
        if raw and "json" in ctype:
            body = json.loads(raw)
            if isinstance(body, dict):
                args.update(body)
        elif raw:
            args.update({k: v[-1] for k, v in urllib.parse.parse_qs(raw.decode()).items()})
        if "token" in args and not h.headers.get("Authorization"):
            args["_token"] = args.pop("token")
        return args

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        path = urllib.parse.urlparse(h.path).path
        if path.startswith("/upload/"):
            self._upload(h, path[len("/upload/"):])
            return
        args = self._args(h)
        if path.startswith("/response/"):
            with self._lock:
                self.responses.append({"path": path, **args})
            self._send(h, 200, {"ok": True})
            return
        if not path.startswith("/api/"):
            self._send(h, 404, {"ok": False, "error": "unknown_method"})
            return
        method = path[len("/api/"):]
        auth = h.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else args.get("_token")
        with self._lock:
            gate = self._held.get(method)
            if gate is not None:
                self.held.append(method)
        if gate is not None:
            gate.wait(60)
            h.close_connection = True
            return
        if self._failing(method):
            with self._lock:
                self.calls.append((method, args, "http_500"))
            self._send(h, 500, {"ok": False, "error": "internal_error"})
            return
        with self._lock:
            pending = self._limits.get(method)
            retry = pending.pop(0) if pending else None
        if retry is not None:
            self.calls.append((method, args, "ratelimited"))
            self._send(h, 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(int(retry))})
            return
        error: str | None
        if not token:
            error = SLACK_NOT_AUTHED
        elif token != self.token:
            error = SLACK_INVALID_AUTH
        else:
            error = None
        result: dict[str, Any] = {}
        if error is None:
            fn = getattr(self, "_m_" + method.replace(".", "_"), None)
            if fn is None:
                error = "unknown_method"
            else:
                error, result = fn(args)
        with self._lock:
            self.calls.append((method, args, error))
        self._send(h, 200, {"ok": False, "error": error} if error else {"ok": True, **result})

    # -- methods -------------------------------------------------------------------------------

    def _m_auth_test(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        return None, {"url": "https://test.slack.com/", "team": "Test", "user": "prhub", "team_id": self.team_id,
                      "user_id": self.bot_user_id, "bot_id": self.bot_id, "is_enterprise_install": False}

    def _m_conversations_info(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        channel = str(args.get("channel") or "")
        if not channel or channel.startswith("C_MISSING"):
            return "channel_not_found", {}
        return None, {"channel": {"id": channel, "is_member": channel not in self.not_member,
                                  "is_im": channel.startswith("D"), "name": channel.lower()}}

    def _m_conversations_open(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        users = str(args.get("users") or "")
        if not users:
            return "users_not_found", {}
        return None, {"channel": {"id": "D" + users.split(",")[0].lstrip("UW")}}

    def _m_chat_postMessage(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        channel = str(args.get("channel") or "")
        if not channel or channel.startswith("C_MISSING"):
            return "channel_not_found", {}
        error = check_message(args)
        if error:
            return error, {}
        blocks = args.get("blocks")
        if isinstance(blocks, str):
            blocks = json.loads(blocks)
        meta = args.get("metadata")
        if isinstance(meta, str):
            meta = json.loads(meta)
        with self._lock:
            ts = f"{int(time.time())}.{next(self._seq):06d}"
            post = {"channel": channel, "ts": ts, "text": args.get("text"), "blocks": blocks or [],
                    "thread_ts": args.get("thread_ts"), "metadata": meta}
            self.posts.append(post)
        return None, {"channel": channel, "ts": ts, "message": {"text": args.get("text"), "ts": ts}}

    def _m_views_publish(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        user = str(args.get("user_id") or "")
        if not user:
            return "invalid_arguments", {}
        if user.startswith("U_MISSING"):
            return "user_not_found", {}
        view = args.get("view")
        error = check_view(view)
        if error:
            return error, {}
        if isinstance(view, str):
            view = json.loads(view)
        with self._lock:
            self.views.append({"user_id": user, "view": view})
            n = len(self.views)
        return None, {"view": {"id": f"V{n:04d}", "type": "home", **view}}

    def home_of(self, user: str) -> dict[str, Any] | None:
        """The last home view published for ``user`` (None: none)."""
        with self._lock:
            mine = [v["view"] for v in self.views if v["user_id"] == user]
        return mine[-1] if mine else None

    def _m_conversations_replies(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        channel = str(args.get("channel") or "")
        ts = str(args.get("ts") or "")
        with_meta = str(args.get("include_all_metadata", "")).lower() in ("1", "true")
        thread = [p for p in self.posts if p["channel"] == channel and (p["ts"] == ts or p["thread_ts"] == ts)]
        if not any(p["ts"] == ts for p in thread):
            return "thread_not_found", {}
        out = []
        for p in thread:  # oldest first, the parent first
            m = {"type": "message", "ts": p["ts"], "thread_ts": ts, "text": p["text"], "bot_id": self.bot_id}
            if with_meta and p["metadata"]:
                m["metadata"] = p["metadata"]
            out.append(m)
        return None, {"messages": out, "has_more": False, "response_metadata": {"next_cursor": ""}}

    def _m_conversations_history(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        channel = str(args.get("channel") or "")
        oldest = float(args.get("oldest") or 0)
        latest = float(args.get("latest") or 1e12)
        with_meta = str(args.get("include_all_metadata", "")).lower() in ("1", "true")
        out = []
        for p in reversed(self.posts):
            if p["channel"] != channel or (p["thread_ts"] and p["thread_ts"] != p["ts"]):
                continue
            if not oldest <= float(p["ts"]) <= latest:
                continue
            m = {"type": "message", "ts": p["ts"], "text": p["text"], "bot_id": self.bot_id}
            if with_meta and p["metadata"]:
                m["metadata"] = p["metadata"]
            out.append(m)
        return None, {"messages": out, "has_more": False, "response_metadata": {"next_cursor": ""}}

    # -- files_upload_v2 -----------------------------------------------------------------------

    def _upload(self, h: BaseHTTPRequestHandler, file_id: str) -> None:
        """``POST`` of the file bytes to the URL from ``files.getUploadURLExternal`` (no token)."""
        length = int(h.headers.get("Content-Length") or 0)
        data = h.rfile.read(length) if length else b""
        with self._lock:
            pending = self._uploads.get(file_id)
        if self._failing("upload"):
            status, body = 500, b"internal error"
        elif pending is None or h.command != "POST":
            status, body = 404, b"unknown upload"
        elif len(data) != pending["length"]:
            status, body = 400, b"length mismatch"
        else:
            with self._lock:
                pending["data"] = data
            status, body = 200, f"OK - {len(data)}".encode()
        with self._lock:
            self.calls.append(("upload", {"file_id": file_id, "bytes": len(data)}, None if status == 200 else f"http_{status}"))
        h.send_response(status)
        h.send_header("Content-Type", "text/plain; charset=utf-8")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def _m_files_getUploadURLExternal(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        filename = str(args.get("filename") or "")
        try:
            length = int(args.get("length") or 0)
        except ValueError:
            length = 0
        if not filename or length <= 0:
            return "invalid_arguments", {}
        if length > self.max_file_bytes:
            return "file_too_large", {}
        with self._lock:
            file_id = f"F{next(self._seq):08d}"
            self._uploads[file_id] = {"filename": filename, "length": length, "alt_txt": args.get("alt_txt"), "data": None}
        return None, {"upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}

    def _m_files_completeUploadExternal(self, args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        raw = args.get("files")
        try:
            items = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return "invalid_arguments", {}
        if not isinstance(items, list) or not items or not all(isinstance(i, dict) and i.get("id") for i in items):
            return "invalid_arguments", {}
        channel = str(args.get("channel_id") or "")
        thread_ts = args.get("thread_ts") or None
        if thread_ts and not channel:
            return "invalid_arguments", {}
        if channel.startswith("C_MISSING"):
            return "channel_not_found", {}
        if channel in self.not_member:
            return "not_in_channel", {}
        with self._lock:
            # a thread is a posted message, or a message (a user's question) the bot has replied under
            if thread_ts and not any(p["channel"] == channel and thread_ts in (p["ts"], p["thread_ts"]) for p in self.posts):
                return "invalid_thread_ts", {}
            out = []
            for item in items:
                pending = self._uploads.get(str(item["id"]))
                if pending is None or pending["data"] is None:
                    return "file_not_found", {}
            for item in items:
                pending = self._uploads.pop(str(item["id"]))
                title = str(item.get("title") or pending["filename"])
                if channel:
                    self.files.append({"id": item["id"], "title": title, "channel": channel, "thread_ts": thread_ts,
                                       "filename": pending["filename"], "alt_txt": pending["alt_txt"],
                                       "data": pending["data"]})
                out.append({"id": item["id"], "title": title, "name": pending["filename"],
                            "size": len(pending["data"])})
        return None, {"files": out}
