"""A fake Feishu/Lark Open API on 127.0.0.1 for lark-oapi tests, and helpers to sign inbound events.

Endpoints: ``POST /open-apis/auth/v3/tenant_access_token/internal``, ``GET /open-apis/bot/v3/info``,
``POST /open-apis/im/v1/messages?receive_id_type=...`` (create; the ``uuid`` de-duplicates sends
for one hour of the fake's clock), ``POST /open-apis/im/v1/messages/{id}/reply`` and ``POST
/open-apis/im/v1/images`` (``im.v1.image.create``: multipart ``image_type`` + ``image``, a PNG or
JPEG; answers an ``image_key``, recorded in :attr:`FakeFeishu.images`), ``POST /open-apis/im/v1/files``
(``im.v1.file.create``: multipart ``file_type`` (opus, mp4, pdf, doc, xls, ppt, stream), ``file_name``,
``file`` of 1 byte to 30 MB; answers a ``file_key``, recorded in :attr:`FakeFeishu.files`; a
``file`` message must name a ``file_key`` this app uploaded). A card whose ``img``
element names an ``img_key`` this app did not upload is rejected (code 230099). Like Feishu it
answers a non-zero ``code`` for what it rejects, with the thresholds of
:data:`tests.fakes.limits.RULES` (card JSON invalid or wrapped, a send whose request body is over
30,000 bytes, more than 5
markdown tables, missing or invalid token, wrong app secret), throttles on demand (HTTP 429 with
``x-ogw-ratelimit-reset``, or code 230020) and fails image uploads on demand
(:meth:`FakeFeishu.fail_images`: HTTP 500). Everything received is recorded.

:func:`event_request` builds what Feishu POSTs to the bot: the body (encrypted with the encrypt key
when one is set) and the ``X-Lark-*`` signature headers.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import hashlib
import itertools
import json
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from adapters.feishu.permissions import needed_permissions
from tests.fakes.event_push import FEISHU_EVENT_RETRIES, push_with_retries
from tests.fakes.loopback import LoopbackServer
from tests.fakes.limits import (
    FEISHU_BAD_APP_SECRET,
    FEISHU_CARD_INVALID,
    FEISHU_INVALID_TOKEN,
    FEISHU_MISSING_TOKEN,
    FEISHU_RATE_LIMIT,
    FEISHU_THROTTLED,
    RULES,
    limit,
)

UUID_WINDOW = 3600.0
FILE_TYPES = frozenset({"opus", "mp4", "pdf", "doc", "xls", "ppt", "stream"})
"""The ``file_type`` values ``im/v1/files`` accepts."""
MAX_FILE_BYTES = 30 * 1024 * 1024
"""Feishu's limit on one uploaded file (30 MB)."""
FEISHU_FILE_PARAM = 234001
"""``im/v1/files``: invalid request parameter (an unknown ``file_type``, no ``file_name``)."""
FEISHU_FILE_TOO_LARGE = 234006
"""``im/v1/files``: the file is larger than 30 MB."""
FEISHU_FILE_EMPTY = 234010
"""``im/v1/files``: the file is empty."""
FEISHU_BAD_CONTENT = 230001
"""``im/v1/messages``: invalid message content (a ``file`` message naming no uploaded ``file_key``)."""
FEISHU_NO_PERMISSION = 99991672
"""Feishu's "Access denied. One of the following scopes is required: [...]"."""
_SCOPE_OF = {
    "POST /open-apis/im/v1/messages": "im:message",
    "POST /open-apis/im/v1/messages/:id/reply": "im:message",
}
"""The permission each Open API call the fake serves requires (Feishu's API reference)."""
_TABLE_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", re.M)


def count_tables(card: Any) -> int:
    """Tables in a card: ``table`` components plus markdown tables (a ``|---|---|`` line)."""
    n = 0
    if isinstance(card, dict):
        if card.get("tag") == "table":
            n += 1
        if card.get("tag") in ("markdown", "lark_md") and isinstance(card.get("content"), str):
            n += len(_TABLE_ROW.findall(card["content"]))
        n += sum(count_tables(v) for v in card.values())
    elif isinstance(card, list):
        n += sum(count_tables(v) for v in card)
    return n


def img_keys(card: Any) -> list[str]:
    """Every ``img_key`` named in a card (``img`` elements and nested components)."""
    out: list[str] = []
    if isinstance(card, dict):
        if "img_key" in card:
            out.append(str(card["img_key"]))
        for v in card.values():
            out += img_keys(v)
    elif isinstance(card, list):
        for v in card:
            out += img_keys(v)
    return out


def parse_multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """``{field: (filename, bytes)}`` of a ``multipart/form-data`` body ({} when it is not one)."""
    if not content_type.startswith("multipart/form-data"):
        return {}
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
    out: dict[str, tuple[str | None, bytes]] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            out[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return out


def check_card(content: Any) -> tuple[int, str] | None:
    """The ``(code, msg)`` Feishu would give an interactive ``content`` (None when accepted)."""
    if not isinstance(content, str):
        return FEISHU_CARD_INVALID, "content must be a JSON string"
    try:
        card = json.loads(content)
    except ValueError:
        return FEISHU_CARD_INVALID, "card content is not valid JSON"
    if not isinstance(card, dict) or "card" in card or not ("elements" in card or "body" in card):
        return FEISHU_CARD_INVALID, "card content has no elements/body (or a card wrapper)"
    if count_tables(card) > limit("tables"):
        return int(RULES["tables"].error), "too many tables in the card"
    return None


@dataclass
class FakeFeishu(LoopbackServer):
    """The fake Feishu. Use as a context manager; :attr:`url` is the lark ``domain``.
    HTTP/1.1 with keep-alive; :attr:`tcp_connections` counts the TCP connections accepted."""

    _http11 = True

    app_id: str = "cli_test"
    app_secret: str = "feishu-test-secret"
    bot_open_id: str = "ou_BOT"
    clock: Callable[[], float] = time.time
    granted: frozenset[str] | None = None
    """Permissions the tenant granted (None: every one prhub needs). ``application/v6/scopes``
    reports them; sending a message, uploading an image and ``is_in_chat`` without theirs answer
    99991672 "Access denied", as Feishu does."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, str, dict[str, Any], int]] = field(default_factory=list)
    images: dict[str, dict[str, Any]] = field(default_factory=dict)
    body_sizes: list[int] = field(default_factory=list)
    """Bytes of each message-send request body received (create and reply), in order."""
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Uploaded files by ``file_key``: ``file_type``, ``file_name``, ``data``."""
    max_file_bytes: int = MAX_FILE_BYTES
    """Uploaded images by ``image_key``: ``image_type``, ``filename``, ``data``."""
    event_retries: tuple[float, ...] = FEISHU_EVENT_RETRIES
    """Seconds before each re-push of :meth:`push_event` (Feishu's: 15 s, 5 min, 1 h, 6 h)."""
    event_attempts: list[tuple[int, int]] = field(default_factory=list)
    """``(re-push number, HTTP status)`` of every :meth:`push_event` attempt."""
    _upload_failures: dict[str, int] = field(default_factory=dict)
    """Uploads to answer with HTTP 500, by kind (``image``, ``file``)."""
    _throttle: list[tuple[str, float]] = field(default_factory=list)
    _uuids: dict[str, tuple[float, str]] = field(default_factory=dict)
    _seq: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def has(self, permission: str) -> bool:
        """Whether the tenant granted ``permission``."""
        return self.granted is None or permission in self.granted

    @property
    def tenant_token(self) -> str:
        return "t-" + hashlib.sha256(f"{self.app_id}:{self.app_secret}".encode()).hexdigest()[:20]

    # -- lifecycle -----------------------------------------------------------------------------

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        self._handle(handler, method)

    # -- test controls -------------------------------------------------------------------------

    def throttle(self, kind: str = "429", retry_after: float = 2.0) -> None:
        """Throttle the next message send: ``"429"`` (HTTP 429, code 99991400, ``x-ogw-ratelimit-reset``)
        or ``"230020"`` (HTTP 200, code 230020)."""
        with self._lock:
            self._throttle.append((kind, retry_after))

    def fail_images(self, times: int = 1) -> None:
        """Answer the next ``times`` image uploads with HTTP 500 (code 99991000, internal error)."""
        with self._lock:
            self._upload_failures["image"] = self._upload_failures.get("image", 0) + times

    def fail_files(self, times: int = 1) -> None:
        """Answer the next ``times`` file uploads with HTTP 500 (code 99991000, internal error)."""
        with self._lock:
            self._upload_failures["file"] = self._upload_failures.get("file", 0) + times

    def file_messages(self) -> list[dict[str, Any]]:
        """The ``file`` messages sent, in order, each with its uploaded ``file`` record."""
        with self._lock:
            return [{**m, "file": self.files[json.loads(m["content"])["file_key"]]}
                    for m in self.messages if m["msg_type"] == "file"]

    def push_event(self, url: str, payload: dict[str, Any], *, encrypt_key: str) -> bool:
        """Deliver an event callback as Feishu does: encrypted and signed with ``encrypt_key`` (fresh
        timestamp per attempt), re-pushed after :attr:`event_retries` on anything but HTTP 200.
        Blocks until an attempt gets 200 (True) or the re-pushes are used up (False)."""
        return push_with_retries(url, lambda _n: event_request(payload, encrypt_key=encrypt_key), self.event_retries,
                                 ok=lambda s: s == 200, record=self.event_attempts)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()

    def replies_to(self, message_id: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("reply_to") == message_id]

    # -- serving -------------------------------------------------------------------------------

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _handle(self, h: BaseHTTPRequestHandler, verb: str) -> None:
        parsed = urllib.parse.urlparse(h.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if parsed.path in ("/open-apis/im/v1/images", "/open-apis/im/v1/files"):
            upload = self._image if parsed.path.endswith("/images") else self._file
            status, out, headers = upload(verb, h.headers.get("Content-Type", ""), raw, h.headers.get("Authorization", ""))
            with self._lock:
                self.calls.append((verb, parsed.path, {}, int(out.get("code", 0))))
            self._send(h, status, out, headers)
            return
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        if verb == "POST" and parsed.path.startswith("/open-apis/im/v1/messages"):
            with self._lock:
                self.body_sizes.append(len(raw))
        if verb == "POST" and parsed.path.startswith("/open-apis/im/v1/messages") and len(raw) > limit("card_bytes"):
            # Feishu counts the whole request body (the card is a JSON string inside it).
            status, out, headers = 400, {"code": int(RULES["card_bytes"].error), "msg": "message content is too long"}, None
            with self._lock:
                self.calls.append((verb, parsed.path, {}, int(out["code"])))
            self._send(h, status, out, headers)
            return
        status, out, headers = self._route(verb, parsed.path, query, body, h.headers.get("Authorization", ""))
        with self._lock:
            self.calls.append((verb, parsed.path, body if isinstance(body, dict) else {}, int(out.get("code", 0))))
        self._send(h, status, out, headers)

    def _route(self, verb: str, path: str, query: dict[str, str], body: Any, auth: str
               ) -> tuple[int, dict[str, Any], dict[str, str] | None]:
        if path == "/open-apis/auth/v3/tenant_access_token/internal":
            if not isinstance(body, dict) or body.get("app_id") != self.app_id or body.get("app_secret") != self.app_secret:
                return 400, {"code": FEISHU_BAD_APP_SECRET, "msg": "app secret invalid"}, None
            return 200, {"code": 0, "msg": "ok", "tenant_access_token": self.tenant_token, "expire": 7200}, None
        if not auth.startswith("Bearer ") or not auth[7:]:
            return 400, {"code": FEISHU_MISSING_TOKEN, "msg": "Missing access token for authorization"}, None
        if auth[7:] != self.tenant_token:
            return 400, {"code": FEISHU_INVALID_TOKEN, "msg": "Invalid access token for authorization"}, None
        if path == "/open-apis/application/v6/scopes" and verb == "GET":
            return 200, {"code": 0, "msg": "success", "data": {"scopes": [
                {"scope_name": name, "grant_status": 1 if self.has(name) else 2} for name in needed_permissions()]}}, None
        need = _SCOPE_OF.get(verb + " " + re.sub(r"/messages/[^/]+/reply$", "/messages/:id/reply", path))
        if need is not None and not self.has(need):
            return 400, {"code": FEISHU_NO_PERMISSION,
                         "msg": f"Access denied. One of the following scopes is required: [{need}]."}, None
        if path == "/open-apis/bot/v3/info" and verb == "GET":
            return 200, {"code": 0, "msg": "ok", "bot": {"open_id": self.bot_open_id, "app_name": "DigestBot"}}, None
        if not isinstance(body, dict):
            return 400, {"code": 99992402, "msg": "field validation failed: body is not JSON"}, None
        if path == "/open-apis/im/v1/messages" and verb == "POST":
            if query.get("receive_id_type") not in ("chat_id", "open_id", "union_id", "user_id", "email"):
                return 400, {"code": 99992402, "msg": "field validation failed: receive_id_type"}, None
            if not body.get("receive_id"):
                return 400, {"code": 99992402, "msg": "field validation failed: receive_id"}, None
            return self._message(body, target=str(body["receive_id"]), reply_to=None)
        m = re.fullmatch(r"/open-apis/im/v1/messages/([^/]+)/reply", path)
        if m and verb == "POST":
            parent = next((x for x in self.messages if x["message_id"] == m.group(1)), None)
            target = parent["target"] if parent else ""
            return self._message(body, target=target, reply_to=m.group(1))
        return 404, {"code": 404, "msg": "not found"}, None

    def _refuse_upload(self, verb: str, auth: str, kind: str) -> tuple[int, dict[str, Any], None] | None:
        """What Feishu answers an image or file upload before reading it: no or a wrong token, not a
        POST, no ``im:resource``, a failure asked for (:meth:`fail_images`, :meth:`fail_files`); None: go on."""
        if not auth.startswith("Bearer ") or not auth[7:]:
            return 400, {"code": FEISHU_MISSING_TOKEN, "msg": "Missing access token for authorization"}, None
        if auth[7:] != self.tenant_token:
            return 400, {"code": FEISHU_INVALID_TOKEN, "msg": "Invalid access token for authorization"}, None
        if verb != "POST":
            return 404, {"code": 404, "msg": "not found"}, None
        if not self.has("im:resource"):
            return 400, {"code": FEISHU_NO_PERMISSION,
                         "msg": "Access denied. One of the following scopes is required: [im:resource]."}, None
        with self._lock:
            failing = self._upload_failures.get(kind, 0) > 0
            if failing:
                self._upload_failures[kind] -= 1
        if failing:
            return 500, {"code": 99991000, "msg": "internal error"}, None
        return None

    def _image(self, verb: str, content_type: str, raw: bytes, auth: str
               ) -> tuple[int, dict[str, Any], dict[str, str] | None]:
        refused = self._refuse_upload(verb, auth, "image")
        if refused is not None:
            return refused
        form = parse_multipart(content_type, raw)
        image_type = form.get("image_type", (None, b""))[1].decode("utf-8", "replace")
        filename, data = form.get("image", (None, b""))
        if image_type not in ("message", "avatar"):
            return 400, {"code": 99992402, "msg": "field validation failed: image_type"}, None
        if not data.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")):
            return 400, {"code": 234011, "msg": "Can't recognize image format"}, None
        if len(data) > 10 * 1024 * 1024:
            return 400, {"code": 234006, "msg": "The image size exceeds the limit"}, None
        with self._lock:
            key = f"img_v2_fake{next(self._seq):06d}"
            self.images[key] = {"image_type": image_type, "filename": filename, "data": data}
        return 200, {"code": 0, "msg": "success", "data": {"image_key": key}}, None

    def _file(self, verb: str, content_type: str, raw: bytes, auth: str
              ) -> tuple[int, dict[str, Any], dict[str, str] | None]:
        refused = self._refuse_upload(verb, auth, "file")
        if refused is not None:
            return refused
        form = parse_multipart(content_type, raw)
        file_type = form.get("file_type", (None, b""))[1].decode("utf-8", "replace")
        file_name = form.get("file_name", (None, b""))[1].decode("utf-8", "replace")
        _filename, data = form.get("file", (None, b""))
        if file_type not in FILE_TYPES or not file_name or "file" not in form:
            return 400, {"code": FEISHU_FILE_PARAM, "msg": "Invalid request param: file_type, file_name or file"}, None
        if not data:
            return 400, {"code": FEISHU_FILE_EMPTY, "msg": "File's size can't be 0"}, None
        if len(data) > self.max_file_bytes:
            return 400, {"code": FEISHU_FILE_TOO_LARGE, "msg": "The file size exceeds the limit (30 MB)"}, None
        with self._lock:
            key = f"file_v3_fake{next(self._seq):06d}"
            self.files[key] = {"file_type": file_type, "file_name": file_name, "data": data}
        return 200, {"code": 0, "msg": "success", "data": {"file_key": key}}, None

    def _message(self, body: dict[str, Any], *, target: str, reply_to: str | None
                 ) -> tuple[int, dict[str, Any], dict[str, str] | None]:
        with self._lock:
            throttled = self._throttle.pop(0) if self._throttle else None
        if throttled is not None:
            kind, retry = throttled
            if kind == "429":
                return 429, {"code": FEISHU_RATE_LIMIT, "msg": "request trigger frequency limit"}, \
                    {"x-ogw-ratelimit-reset": str(int(retry))}
            return 200, {"code": FEISHU_THROTTLED, "msg": "The message is sent too frequently"}, None
        msg_type = body.get("msg_type")
        if msg_type not in ("text", "post", "interactive", "image", "file"):
            return 400, {"code": 230001, "msg": "invalid msg_type"}, None
        content = body.get("content")
        if msg_type == "interactive":
            err = check_card(content)
            if err:
                return 400, {"code": err[0], "msg": err[1]}, None
            with self._lock:
                unknown = [k for k in img_keys(json.loads(content)) if k not in self.images]
            if unknown:
                return 400, {"code": FEISHU_CARD_INVALID, "msg": f"card content failed: img_key {unknown[0]} not found"}, None
        if msg_type == "file":
            try:
                file_key = json.loads(content).get("file_key") if isinstance(content, str) else None
            except (ValueError, AttributeError):
                file_key = None
            with self._lock:
                known = file_key in self.files
            if not known:
                return 400, {"code": FEISHU_BAD_CONTENT, "msg": f"invalid message content: file_key {file_key!r} not found"}, None
        uuid = body.get("uuid")
        now = self.clock()
        with self._lock:
            if uuid:
                if len(str(uuid)) > 50:
                    return 400, {"code": 99992402, "msg": "field validation failed: uuid longer than 50"}, None
                seen = self._uuids.get(str(uuid))
                if seen is not None and now - seen[0] < UUID_WINDOW:
                    return 200, {"code": 0, "msg": "success", "data": {"message_id": seen[1]}}, None
            mid = f"om_fake{next(self._seq):06d}"
            if uuid:
                self._uuids[str(uuid)] = (now, mid)
            self.messages.append({"message_id": mid, "target": target, "reply_to": reply_to,
                                  "in_thread": bool(body.get("reply_in_thread")), "msg_type": msg_type,
                                  "content": content, "uuid": uuid,
                                  "card": json.loads(content) if msg_type == "interactive" else None})
        return 200, {"code": 0, "msg": "success", "data": {"message_id": mid, "chat_id": target}}, None


# ---------------------------------------------------------------------------------------------- inbound


def encrypt(encrypt_key: str, plaintext: str) -> str:
    """Feishu's event encryption: base64(iv + AES-256-CBC(sha256(key), PKCS#7(plaintext)))."""
    from Crypto.Cipher import AES

    key = hashlib.sha256(encrypt_key.encode()).digest()
    iv = os.urandom(16)
    data = plaintext.encode()
    pad = 16 - len(data) % 16
    data += bytes([pad]) * pad
    return base64.b64encode(iv + AES.new(key, AES.MODE_CBC, iv).encrypt(data)).decode()


def event_request(payload: dict[str, Any], *, encrypt_key: str = "", timestamp: str | None = None,
                  nonce: str = "n0nce", sign_key: str | None = None) -> tuple[bytes, dict[str, str]]:
    """``(body, headers)`` of a callback POST: encrypted (``{"encrypt": ...}``) when ``encrypt_key``
    is set, with ``X-Lark-Request-Timestamp``/``Nonce``/``Signature`` (sha256 of
    timestamp + nonce + key + body; ``sign_key`` signs with another key, to forge)."""
    text = json.dumps(payload, ensure_ascii=False)
    body = json.dumps({"encrypt": encrypt(encrypt_key, text)}).encode() if encrypt_key else text.encode()
    ts = timestamp or str(int(time.time()))
    headers = {"Content-Type": "application/json; charset=utf-8"}
    key = encrypt_key if sign_key is None else sign_key
    if key:
        headers.update({"X-Lark-Request-Timestamp": ts, "X-Lark-Request-Nonce": nonce,
                        "X-Lark-Signature": hashlib.sha256((ts + nonce + key).encode() + body).hexdigest()})
    return body, headers


def message_event(*, token: str, event_id: str = "ev_A", message_id: str = "om_TEST1", chat_id: str = "oc_GROUP",
                  chat_type: str = "group", text: str | None = "@_user_1 risks this week", content: str | None = None,
                  message_type: str = "text", mentions: list[dict[str, Any]] | None = None,
                  sender: str = "ou_ALICE", sender_type: str = "user", tenant_key: str = "tenant_T") -> dict[str, Any]:
    """An ``im.message.receive_v1`` callback payload (schema 2.0)."""
    if mentions is None:
        mentions = [{"key": "@_user_1", "id": {"open_id": "ou_BOT"}, "name": "DigestBot", "tenant_key": tenant_key}]
    return {
        "schema": "2.0",
        "header": {"event_id": event_id, "token": token, "create_time": str(int(time.time() * 1000)),
                   "event_type": "im.message.receive_v1", "tenant_key": tenant_key, "app_id": "cli_test"},
        "event": {
            "sender": {"sender_id": {"open_id": sender}, "sender_type": sender_type, "tenant_key": tenant_key},
            "message": {"message_id": message_id, "chat_id": chat_id, "chat_type": chat_type,
                        "message_type": message_type,
                        "content": content if content is not None else json.dumps({"text": text}, ensure_ascii=False),
                        "mentions": mentions, "create_time": str(int(time.time() * 1000))},
        },
    }
