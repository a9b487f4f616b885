"""``OpenAIModelClient``: chat completions through the official ``openai`` Python SDK, within a deadline.

Works with any OpenAI-compatible server (``vllm serve``, Ollama, OpenAI, DeepSeek, Qwen): it calls
``POST {base_url}/chat/completions`` with ``response_format`` of type ``json_schema`` (strict
structured output) when the caller passes an answer schema, ``json_object`` otherwise or where the
server rejects structured output (HTTP 400), and ``temperature=0``. The SDK's own retries are off (``max_retries=0``); this client retries an HTTP
429 once, after the server's ``Retry-After`` seconds (capped at ``retry_after_cap_s`` and at the
time left), through an injected ``sleep`` so that tests never wait.

Bounds (the model may never hold up a post past its budget, issue 20):

- **Wall clock, not per read.** httpx's timeouts apply to each read, so a server that sends a
  byte every few seconds never times out. Each request runs in a worker thread that the caller
  waits for at most ``timeout_s`` (or the smaller ``timeout_s`` of the call: the run's time left);
  the response stream (:class:`_BoundedStream`) also stops at that deadline, so the abandoned
  worker ends at its next byte or read timeout.
- **Size.** The body is read as a stream and abandoned past ``max_answer_bytes`` (a Content-Length
  above it is refused before reading), error bodies included: memory stays bounded whatever the
  server sends.
- **Any failure is a ModelError.** A truncated or non-JSON envelope, an envelope of the wrong
  shape, a connection refused or reset, a timeout, an HTTP error: every one becomes a
  :class:`~chatbot.errors.ModelError` whose message names the host and the cause, never the key.
  A refusal (``message.refusal``, no content) is an answer with empty text.

:meth:`OpenAIModelClient.count_tokens` asks the server's ``POST /tokenize`` (``vllm serve`` has it at
the server root) for the exact count in the model's own tokens, and its context length.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import openai

from chatbot.errors import ModelError
from chatbot.ports import ModelAnswer, TokenCount

MAX_ANSWER_BYTES = 1024 * 1024
"""Default cap on one HTTP response body (1 MiB): a digest's answer is a few KiB of JSON."""


class AnswerTooLarge(httpx.ReadError):
    """The response body passed the size cap (raised inside the stream, so httpx and the SDK see a read error)."""


class DeadlinePassed(httpx.ReadTimeout):
    """The request's wall-clock deadline passed while the body was still arriving."""


@dataclass
class _Bounds:
    """The deadline (``time.monotonic`` seconds) and byte cap of the request running in this thread."""

    deadline: float
    max_bytes: int
    cancelled: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        if self.cancelled.is_set() or time.monotonic() > self.deadline:
            raise DeadlinePassed("the request's deadline passed")


_current = threading.local()


class _BoundedStream(httpx.SyncByteStream):
    """A response body that raises :class:`AnswerTooLarge` past ``max_bytes`` and
    :class:`DeadlinePassed` past the deadline, checked at every chunk."""

    def __init__(self, inner: httpx.SyncByteStream, bounds: _Bounds) -> None:
        self._inner = inner
        self._bounds = bounds

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self._inner:
            seen += len(chunk)
            if seen > self._bounds.max_bytes:
                raise AnswerTooLarge(f"the answer passed {self._bounds.max_bytes:,} bytes")
            self._bounds.check()
            yield chunk

    def close(self) -> None:
        self._inner.close()


class _BoundedTransport(httpx.BaseTransport):
    """httpx's transport whose responses are :class:`_BoundedStream` under the calling thread's bounds."""

    def __init__(self) -> None:
        self._inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        bounds: _Bounds | None = getattr(_current, "bounds", None)
        response = self._inner.handle_request(request)
        if bounds is None:  # pragma: no cover - every call of this client sets its bounds
            return response
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > bounds.max_bytes:
            response.close()
            raise AnswerTooLarge(f"the answer announces {int(length):,} bytes (cap {bounds.max_bytes:,})")
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_BoundedStream(response.stream, bounds), extensions=response.extensions)

    def close(self) -> None:
        self._inner.close()


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _cause(exc: BaseException) -> BaseException | None:
    """The :class:`AnswerTooLarge` or :class:`DeadlinePassed` behind ``exc`` (the SDK wraps them), if any."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, (AnswerTooLarge, DeadlinePassed)):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class _RateLimited(Exception):
    def __init__(self, wait: float | None) -> None:
        self.wait = wait


class _NoStructuredOutput(Exception):
    """The server answered a ``json_schema`` request with HTTP 400."""


class OpenAIModelClient:
    """A :class:`~chatbot.ports.ModelClient` over the ``openai`` SDK.

    Args:
        base_url: the server's API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the model name the server serves.
        api_key: the key (from the environment; ``"unused"`` for servers without one).
        timeout_s: wall-clock seconds per request (connect, send, every byte of the answer).
        retry_after_cap_s: longest ``Retry-After`` honoured (seconds); a longer one fails at once.
        max_answer_bytes: the cap on one response body (bytes); a larger answer is a ModelError.
        sleep: ``time.sleep`` or a test double (seconds).
    """

    def __init__(self, base_url: str, model: str, api_key: str, *, timeout_s: float = 60.0,
                 retry_after_cap_s: float = 30.0, max_answer_bytes: int = MAX_ANSWER_BYTES,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._http = httpx.Client(transport=_BoundedTransport(), timeout=timeout_s)
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout_s, max_retries=0,
                                     http_client=self._http)
        self._completions = self._client.chat.completions  # the SDK's lazy imports now, not inside a deadline
        self._model = model
        self._key = api_key or "unused"
        self._host = urlsplit(base_url).netloc or base_url
        self._root = base_url.rstrip("/").removesuffix("/v1")
        self._timeout = timeout_s
        self._cap = retry_after_cap_s
        self._max_bytes = max_answer_bytes
        self._sleep = sleep
        self._schemas = True

    @property
    def model(self) -> str:
        """The model name."""
        return self._model

    def complete(self, system: str, user: str, schema: dict[str, Any] | None = None, *,
                 timeout_s: float | None = None) -> ModelAnswer:
        """One JSON-object chat completion (``POST /chat/completions``); with ``schema``, structured
        output (``response_format`` ``json_schema``). A server that answers that request with HTTP 400
        is asked once more with ``json_object``, and from then on only so. Each request within the
        client's ``timeout_s``, all of it (a 429's wait and retry included) within the call's
        ``timeout_s`` wall-clock seconds (the run's time left; None: no further limit).

        Raises:
            ModelError: timeout, connection failure, 429 twice or with a Retry-After too long (past
                ``retry_after_cap_s`` or the time left), other HTTP errors, an answer past
                ``max_answer_bytes``, an envelope that is not a chat completion.
        """
        end = None if timeout_s is None else time.monotonic() + timeout_s
        for attempt in (1, 2):
            now = time.monotonic()
            budget = self._timeout if end is None else max(0.0, min(self._timeout, end - now))
            deadline = now + budget
            try:
                return self._bounded(lambda: self._create(system, user, schema, deadline), deadline, budget)
            except _NoStructuredOutput:
                self._schemas = False  # no structured output here: a JSON object, checked just the same
                continue
            except _RateLimited as limited:
                wait = limited.wait
                if attempt == 2 or wait is None or wait > self._cap or (end is not None and time.monotonic() + wait >= end):
                    raise ModelError(f"model server {self._host}: rate-limited (HTTP 429)") from None
                self._sleep(wait)
        raise ModelError(f"model server {self._host}: rate-limited (HTTP 429)")  # pragma: no cover

    def count_tokens(self, text: str, *, timeout_s: float | None = None) -> TokenCount | None:
        """``text``'s length in the model's own tokens and the model's context length, from the server's
        ``POST /tokenize`` (vLLM); None when the server cannot count (no such route, an error, a timeout)."""
        budget = self._timeout if timeout_s is None else min(self._timeout, timeout_s)
        deadline = time.monotonic() + budget

        def ask() -> TokenCount | None:
            r = self._http.post(f"{self._root}/tokenize", json={"model": self._model, "prompt": text},
                                headers={"Authorization": f"Bearer {self._key}"},
                                timeout=max(0.001, deadline - time.monotonic()))
            if r.status_code != 200:
                return None
            data = json.loads(r.content)
            count, context = data.get("count"), data.get("max_model_len")
            if type(count) is not int or count < 0:
                return None
            return TokenCount(tokens=count, context=context if type(context) is int and context > 0 else None)

        try:
            return self._bounded(ask, deadline, budget)
        except ModelError:
            return None

    # -- internals -------------------------------------------------------------------------------

    def _bounded(self, call: Callable[[], Any], deadline: float, budget: float) -> Any:
        """``call()`` in a worker thread under this request's bounds; waits at most until ``deadline``
        (``budget`` seconds after the request began, named in the error)."""
        bounds = _Bounds(deadline, self._max_bytes)
        box: dict[str, Any] = {}

        def work() -> None:
            _current.bounds = bounds
            try:
                box["value"] = call()
            except BaseException as exc:  # handed to the caller below
                box["error"] = exc

        worker = threading.Thread(target=work, name="prhub-model-request", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            bounds.cancelled.set()  # the stream stops at its next chunk; the thread is left to end
            raise ModelError(f"model server {self._host}: no complete answer in {budget:.3g} s")
        if "error" in box:
            raise self._error(box["error"], budget)
        return box["value"]

    def _create(self, system: str, user: str, schema: dict[str, Any] | None, deadline: float) -> ModelAnswer:
        structured = schema is not None and self._schemas
        fmt: Any = {"type": "json_schema", "json_schema": schema} if structured else {"type": "json_object"}
        try:
            resp = self._completions.create(
                model=self._model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format=fmt,
                temperature=0,
                timeout=max(0.001, deadline - time.monotonic()),
            )
        except openai.BadRequestError:
            if not structured:
                raise
            raise _NoStructuredOutput() from None
        except openai.RateLimitError as exc:
            raise _RateLimited(_retry_after(exc)) from None
        choice = resp.choices[0] if resp.choices else None
        message = choice.message if choice is not None else None
        text = message.content if message is not None else None
        usage = resp.usage
        if text is not None and not isinstance(text, str):
            raise TypeError("message.content is not a string")
        return ModelAnswer(text=text or "", prompt_tokens=int(usage.prompt_tokens or 0) if usage else 0,
                           completion_tokens=int(usage.completion_tokens or 0) if usage else 0)

    def _error(self, exc: BaseException, budget: float) -> BaseException:
        """The ModelError (or the rate-limit signal) for whatever the worker raised."""
        if isinstance(exc, (_RateLimited, _NoStructuredOutput, ModelError)):
            return exc
        cause = _cause(exc)
        where = f"model server {self._host}"
        if isinstance(cause, AnswerTooLarge):
            return ModelError(f"{where}: answer larger than {self._max_bytes:,} bytes")
        if isinstance(cause, DeadlinePassed) or isinstance(exc, openai.APITimeoutError):
            return ModelError(f"{where}: no complete answer in {budget:.3g} s")
        if isinstance(exc, openai.APIConnectionError) and isinstance(exc.__cause__, httpx.ConnectError):
            return ModelError(f"{where}: cannot connect (refused or unreachable)")
        if isinstance(exc, openai.APIStatusError):
            return ModelError(f"{where}: HTTP {exc.status_code}")
        if isinstance(exc, openai.APIError):
            return ModelError(f"{where}: {type(exc).__name__}")
        if isinstance(exc, (ValueError, TypeError, AttributeError, KeyError, IndexError)):
            return ModelError(f"{where}: the answer is not a chat completion ({type(exc).__name__})")
        if isinstance(exc, httpx.HTTPError):
            return ModelError(f"{where}: {type(exc).__name__}")
        if isinstance(exc, Exception):
            return ModelError(f"{where}: {type(exc).__name__}")
        return exc  # KeyboardInterrupt, SystemExit: not ours to swallow
