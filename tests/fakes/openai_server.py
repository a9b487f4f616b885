"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (what ``vllm serve`` exposes).

``POST /v1/chat/completions`` answers with the next step of the script; each step is one of
:class:`Reply` (HTTP 200 with a chat completion whose message content is ``content``),
:class:`ToolCall` (HTTP 200 whose message calls one of the request's ``tools``: function calling),
:class:`Status` (an error status, JSON error body as OpenAI sends it, optional ``Retry-After``),
:class:`Answer` (HTTP 200 whose content a function of the request body computes), or
:class:`Stall` (sleeps longer than the client's timeout, then answers). Like the real API it
rejects a request without a Bearer key (401), without ``model`` or ``messages`` (400), with a
``response_format`` type other than ``json_object``/``json_schema``/``text`` (400), and a
``json_schema`` the API would refuse (:func:`schema_problem`, 400; with ``structured=False``, as a
server without structured output, every ``json_schema``). Every accepted request body is kept in
``requests``, every refused ``json_schema`` one in ``rejected``.

Broken servers and proxies, as scripted steps: :class:`Truncated` (a 200 whose JSON envelope is cut
short, Content-Length matching), :class:`Garbage` (a 200 whose body is not a completion at all, e.g.
a proxy's HTML page), :class:`Trickle` (a 200 that then sends one byte every ``interval_s``),
:class:`Huge` (a 200 with a body of ``size`` bytes, generated as it is sent, never held),
:class:`Refusal` (a completion whose message is a refusal with no content) and :class:`Hangup`
(the connection closed without an answer). A server that refuses connections is a closed port
(:func:`closed_port_url`).

``POST /tokenize`` (what ``vllm serve`` exposes at the server root, beside ``/v1``) counts the
tokens of ``prompt`` with ``tokenizer`` and answers ``{"count", "max_model_len", "tokens"}``;
without a ``tokenizer`` it is 404, as on servers that cannot count.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from collections.abc import Callable
from typing import Any

from tests.fakes.loopback import LoopbackServer


@dataclass(frozen=True)
class Reply:
    content: str
    prompt_tokens: int = 1200
    completion_tokens: int = 300


@dataclass(frozen=True)
class Status:
    status: int
    retry_after: str | None = None
    message: str = "error"


@dataclass(frozen=True)
class Answer:
    reply: Callable[[dict[str, Any]], str]
    prompt_tokens: int = 200
    completion_tokens: int = 40


@dataclass(frozen=True)
class Stall:
    seconds: float
    content: str = "{}"


@dataclass(frozen=True)
class ToolCall:
    """HTTP 200 whose message calls the function ``name`` with ``arguments`` (a JSON text, sent as
    is: a test may send one that is not JSON); ``name=""`` answers ``content`` with no tool call."""

    name: str
    arguments: str = "{}"
    content: str | None = None



@dataclass(frozen=True)
class Truncated:
    """HTTP 200 whose chat-completion JSON is cut after ``keep`` of its bytes."""

    content: str = "{}"
    keep: float = 0.5


@dataclass(frozen=True)
class Garbage:
    """HTTP 200 with ``body`` as is (not a chat completion)."""

    body: bytes = b"<html><body>502 Bad Gateway</body></html>"
    content_type: str = "text/html"


@dataclass(frozen=True)
class Trickle:
    """HTTP 200 headers announcing ``length`` bytes, then one byte every ``interval_s`` seconds."""

    interval_s: float = 0.5
    length: int = 100_000


@dataclass(frozen=True)
class Huge:
    """HTTP 200 with a ``size``-byte body: the start of a completion, then spaces, written in 64 KiB
    chunks; ``chunked``: sent with ``Transfer-Encoding: chunked`` (no Content-Length to refuse early)."""

    size: int = 300 * 1024 * 1024
    chunked: bool = False


@dataclass(frozen=True)
class Refusal:
    """A completion whose message carries ``refusal`` and no content (what OpenAI sends for a refusal)."""

    refusal: str = "I can't help with that."


@dataclass(frozen=True)
class Hangup:
    """The connection closed after the request, with no answer."""


Step = Reply | Status | Stall | Answer | ToolCall | Truncated | Garbage | Trickle | Huge | Refusal | Hangup


def closed_port_url() -> str:
    """A ``/v1`` base URL on 127.0.0.1 where nothing listens (the connection is refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_UNSUPPORTED = ("default", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
                "patternProperties", "minProperties", "maxProperties")


def schema_problem(spec: Any) -> str | None:
    """Why the API would refuse ``response_format.json_schema`` (None when it takes it), as OpenAI checks
    it: a ``name`` of 1-64 letters, digits, ``_`` or ``-``; a ``schema`` object; with ``strict``, every
    object closed (``additionalProperties: false``) and listing every property in ``required``, and
    no keyword strict mode does not support (``default``, ``minLength``, ``pattern``, ...)."""
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not _NAME.match(spec["name"]):
        return "Invalid 'response_format.json_schema.name': expected a string of 1-64 characters [a-zA-Z0-9_-]."
    schema = spec.get("schema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return f"Invalid schema for response_format '{spec['name']}': schema must be a JSON Schema of 'type: \"object\"'."
    if not spec.get("strict"):
        return None

    def walk(node: Any, where: str) -> str | None:
        if isinstance(node, list):
            return next((p for i, x in enumerate(node) if (p := walk(x, f"{where}[{i}]"))), None)
        if not isinstance(node, dict):
            return None
        for key in _UNSUPPORTED:
            if key in node:
                return f"In context={where}, '{key}' is not permitted."
        if node.get("type") == "object":
            if node.get("additionalProperties") is not False:
                return f"In context={where}, 'additionalProperties' is required to be supplied and to be false."
            missing = [k for k in node.get("properties", {}) if k not in node.get("required", [])]
            if missing:
                return (f"In context={where}, 'required' is required to be supplied and to be an array including "
                        f"every key in properties. Missing '{missing[0]}'.")
        return next((p for k, v in node.items() if (p := walk(v, f"{where}.{k}"))), None)

    problem = walk(schema, "()")
    return f"Invalid schema for response_format '{spec['name']}': {problem}" if problem else None


class FakeOpenAI(LoopbackServer):
    """The fake server; ``script`` is consumed in order (the last step repeats)."""

    _http11 = True

    def __init__(self, script: list[Step], key: str = "sk-test", *, structured: bool = True,
                 tokenizer: Callable[[str], int] | None = None, max_model_len: int = 8192) -> None:
        self.script = list(script)
        self.key = key
        self.structured = structured
        self.tokenizer = tokenizer
        self.max_model_len = max_model_len
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.tokenize_requests: list[dict[str, Any]] = []
        self.times: list[float] = []
        self.bytes_sent = 0
        """Bytes of :class:`Huge` and :class:`Trickle` bodies written before the client stopped reading."""
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        try:
            h.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _error(self, h: BaseHTTPRequestHandler, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(h, status, {"error": {"message": message, "type": "invalid_request_error", "code": None}}, headers)

    def _dispatch(self, h: BaseHTTPRequestHandler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if method == "POST" and h.path.rstrip("/") == "/tokenize" and self.tokenizer is not None:
            return self._tokenize(h, raw)
        if method != "POST" or h.path.rstrip("/") != "/v1/chat/completions":
            return self._error(h, 404, f"no route {method} {h.path}")
        if h.headers.get("Authorization") != f"Bearer {self.key}":
            return self._error(h, 401, "Incorrect API key provided")
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return self._error(h, 400, "body is not JSON")
        if not body.get("model") or not isinstance(body.get("messages"), list) or not body["messages"]:
            return self._error(h, 400, "model and messages are required")
        fmt = (body.get("response_format") or {}).get("type", "text")
        if fmt not in ("text", "json_object", "json_schema"):
            return self._error(h, 400, f"unknown response_format type {fmt!r}")
        if fmt == "json_schema":
            problem = "response_format json_schema is not supported" if not self.structured else \
                schema_problem(body["response_format"].get("json_schema"))
            if problem:
                with self._lock:
                    self.rejected.append(body)
                return self._error(h, 400, problem)
        with self._lock:
            self.requests.append(body)
            self.times.append(time.monotonic())
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Status):
            headers = {"Retry-After": step.retry_after} if step.retry_after is not None else None
            return self._error(h, step.status, step.message, headers)
        if isinstance(step, ToolCall):
            if not isinstance(body.get("tools"), list) or not body["tools"]:
                return self._error(h, 400, "a tool call was scripted but the request offers no tools")
            message: dict[str, Any] = {"role": "assistant", "content": step.content}
            if step.name:
                message["tool_calls"] = [{"id": f"call_{len(self.requests)}", "type": "function",
                                          "function": {"name": step.name, "arguments": step.arguments}}]
            return self._send(h, 200, {
                "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 1767225600,
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "tool_calls" if step.name else "stop", "message": message}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320},
            })
        if isinstance(step, (Truncated, Garbage, Trickle, Huge, Refusal, Hangup)):
            return self._broken(h, step, body)
        if isinstance(step, Stall):
            time.sleep(step.seconds)
            content = step.content
            pt, ct = 1, 1
        elif isinstance(step, Answer):
            content, pt, ct = step.reply(body), step.prompt_tokens, step.completion_tokens
        else:
            content, pt, ct = step.content, step.prompt_tokens, step.completion_tokens
        self._send(h, 200, self._completion(body, {"role": "assistant", "content": content}, pt, ct))

    def _completion(self, body: dict[str, Any], message: dict[str, Any], pt: int, ct: int) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 1767225600,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
        }

    def _tokenize(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        assert self.tokenizer is not None
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return self._error(h, 400, "body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
            return self._error(h, 400, "prompt is required")
        with self._lock:
            self.tokenize_requests.append(body)
        count = self.tokenizer(body["prompt"])
        self._send(h, 200, {"count": count, "max_model_len": self.max_model_len, "tokens": list(range(count))})

    def _broken(self, h: BaseHTTPRequestHandler, step: Step, body: dict[str, Any]) -> None:
        if isinstance(step, Hangup):
            h.close_connection = True
            h.connection.shutdown(2)
            return
        if isinstance(step, Refusal):
            return self._send(h, 200, self._completion(body, {"role": "assistant", "content": None,
                                                               "refusal": step.refusal}, 10, 8))
        if isinstance(step, (Truncated, Garbage)):
            if isinstance(step, Truncated):
                full = json.dumps(self._completion(body, {"role": "assistant", "content": step.content}, 10, 8)).encode()
                raw, ctype = full[: int(len(full) * step.keep)], "application/json"
            else:
                raw, ctype = step.body, step.content_type
            h.send_response(200)
            h.send_header("Content-Type", ctype)
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw)
            return
        length = step.length if isinstance(step, Trickle) else step.size
        chunked = isinstance(step, Huge) and step.chunked
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked") if chunked else h.send_header("Content-Length", str(length))
        h.end_headers()

        def write(data: bytes) -> None:
            h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)

        head = b'{"id":"chatcmpl-x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"'
        sent = 0
        try:
            if isinstance(step, Trickle):
                while sent < length:
                    write(head[sent:sent + 1] if sent < len(head) else b" ")
                    h.wfile.flush()
                    sent += 1
                    time.sleep(step.interval_s)
            else:
                chunk = b" " * 65536
                write(head)
                sent = len(head)
                while sent < length:
                    n = min(len(chunk), length - sent)
                    write(chunk[:n])
                    sent += n
                if chunked:
                    h.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with self._lock:
                self.bytes_sent += sent
            h.close_connection = True
