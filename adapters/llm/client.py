"""``OpenAIModelClient``: chat completions through the official ``openai`` Python SDK.

Works with any OpenAI-compatible server (``vllm serve``, Ollama, OpenAI, DeepSeek, Qwen): it calls
``POST {base_url}/chat/completions`` with ``response_format`` of type ``json_schema`` (strict
structured output) when the caller passes an answer schema, ``json_object`` otherwise or where the
server rejects structured output (HTTP 400), and ``temperature=0``. The SDK's own retries are off (``max_retries=0``); this client retries an HTTP
429 once, after the server's ``Retry-After`` seconds (capped at ``retry_after_cap_s``), through an
injected ``sleep`` so that tests never wait. Every SDK error becomes a
:class:`~chatbot.errors.ModelError` whose message names the host and the status, never the key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import openai

from chatbot.errors import ModelError
from chatbot.ports import ModelAnswer


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIModelClient:
    """A :class:`~chatbot.ports.ModelClient` over the ``openai`` SDK.

    Args:
        base_url: the server's API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the model name the server serves.
        api_key: the key (from the environment; ``"unused"`` for servers without one).
        timeout_s: seconds per request (connect + read).
        retry_after_cap_s: longest ``Retry-After`` honoured (seconds); a longer one fails at once.
        sleep: ``time.sleep`` or a test double (seconds).
    """

    def __init__(self, base_url: str, model: str, api_key: str, *, timeout_s: float = 60.0,
                 retry_after_cap_s: float = 30.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout_s, max_retries=0)
        self._model = model
        self._host = urlsplit(base_url).netloc or base_url
        self._cap = retry_after_cap_s
        self._sleep = sleep
        self._schemas = True

    @property
    def model(self) -> str:
        """The model name."""
        return self._model

    def complete(self, system: str, user: str, schema: dict[str, Any] | None = None) -> ModelAnswer:
        """One JSON-object chat completion (``POST /chat/completions``); with ``schema``, structured
        output (``response_format`` ``json_schema``). A server that answers that request with HTTP 400
        is asked once more with ``json_object``, and from then on only so.

        Raises:
            ModelError: timeout, connection failure, 429 twice or with a too-long Retry-After, other HTTP errors.
        """
        for attempt in (1, 2):
            structured = schema is not None and self._schemas
            fmt: Any = {"type": "json_schema", "json_schema": schema} if structured else {"type": "json_object"}
            try:
                resp = self._client.chat.completions.create(
                    model=self._model,
                    messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                    response_format=fmt,
                    temperature=0,
                )
            except openai.BadRequestError:
                if not structured:
                    raise ModelError(f"model server {self._host}: HTTP 400") from None
                self._schemas = False  # no structured output here: a JSON object, checked just the same
                continue
            except openai.RateLimitError as exc:
                wait = _retry_after(exc)
                if attempt == 2 or wait is None or wait > self._cap:
                    raise ModelError(f"model server {self._host}: rate-limited (HTTP 429)") from None
                self._sleep(wait)
                continue
            except openai.APITimeoutError:
                raise ModelError(f"model server {self._host}: no answer in time") from None
            except openai.APIStatusError as exc:
                raise ModelError(f"model server {self._host}: HTTP {exc.status_code}") from None
            except openai.APIError as exc:
                raise ModelError(f"model server {self._host}: {type(exc).__name__}") from None
            choice = resp.choices[0] if resp.choices else None
            text = (choice.message.content or "") if choice is not None else ""
            usage = resp.usage
            return ModelAnswer(text=text, prompt_tokens=usage.prompt_tokens if usage else 0,
                               completion_tokens=usage.completion_tokens if usage else 0)
        raise ModelError(f"model server {self._host}: rate-limited (HTTP 429)")  # pragma: no cover
