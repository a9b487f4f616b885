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


Step = Reply | Status | Stall | Answer | ToolCall

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

    def __init__(self, script: list[Step], key: str = "sk-test", *, structured: bool = True) -> None:
        self.script = list(script)
        self.key = key
        self.structured = structured
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.times: list[float] = []
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
        if isinstance(step, Stall):
            time.sleep(step.seconds)
            content = step.content
            pt, ct = 1, 1
        elif isinstance(step, Answer):
            content, pt, ct = step.reply(body), step.prompt_tokens, step.completion_tokens
        else:
            content, pt, ct = step.content, step.prompt_tokens, step.completion_tokens
        self._send(h, 200, {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 1767225600,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
        })
