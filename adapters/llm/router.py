"""``ModelRouter``: the optional model router of chat questions (when ``llm:`` is configured).

The model maps a message to one of the registry's typed queries through function calling: each
intent is a tool whose parameters are its query model's JSON schema (without ``intent`` and
``lang``, which the tool name and the message give). The tool call is validated by the same
pydantic models (:func:`chatbot.queries.query_adapter`) and by the rules' names
(:func:`chatbot.reading.known_names`); the answer is then built by code from the facts, exactly
as for a parsed question — the model writes no text a user sees. A bad, absent or failed tool
call gives None, and the caller reads the message with the parser instead. Results (None too)
are cached per normalised message (:func:`chatbot.queries.clean_text`), at most ``cache_size``.

Requests go through the ``openai`` SDK (``tools``, ``tool_choice="required"``, ``temperature=0``,
no SDK retries, a short timeout: a chat answer must not wait on the model).
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import openai
from pydantic import ValidationError

from chatbot.i18n import text_lang
from chatbot.intent import Intent, QueryBase
from chatbot.module_names import ModuleIndex
from chatbot.queries import clean_text, query_adapter
from chatbot.reading import known_names

log = logging.getLogger(__name__)

SYSTEM = ("You route questions about a software repository's merged pull requests to exactly one tool. "
          "Call the one tool whose answer fits the question best, with only the arguments the question states. "
          "Module, topic and label arguments are ids from the lists in the tool descriptions.")
"""The system message (the tools carry the rest)."""


def tool_specs(intents: Sequence[Intent[Any]], index: ModuleIndex) -> list[dict[str, Any]]:
    """One function tool per intent: name, help line, and the query model's JSON schema without
    ``intent`` and ``lang``; the descriptions list the rules' module, topic and label ids."""
    ids = (f" Module ids: {', '.join(index.ids)}. Topic ids: "
           f"{', '.join(dict.fromkeys(t for n in index.topic_names() if (t := index.topic(n))))}. "
           f"Label ids: {', '.join(index.label_aliases())}.")
    out = []
    for intent in intents:
        schema = intent.query.model_json_schema()
        props = {k: v for k, v in schema.get("properties", {}).items() if k not in ("intent", "lang")}
        params: dict[str, Any] = {"type": "object", "properties": props,
                                  "required": [r for r in schema.get("required", []) if r in props]}
        if "$defs" in schema:
            params["$defs"] = schema["$defs"]
        out.append({"type": "function", "function": {"name": intent.name, "description": (intent.help_line("en") or
                    (intent.query.__doc__ or intent.name).strip().split("\n")[0]) + ids, "parameters": params}})
    return out


class ModelRouter:
    """Routes a chat message to a typed query by function calling (see the module docstring).

    Args:
        base_url: the server's API root (``http://127.0.0.1:8000/v1``).
        model: the served model name.
        api_key: the key (``""``: none); never logged.
        intents: the registry (one tool each).
        modules: the repository's module, topic and label names.
        timeout_s: seconds per request.
        cache_size: normalised messages remembered.
    """

    def __init__(self, base_url: str, model: str, api_key: str, *, intents: Sequence[Intent[Any]], modules: ModuleIndex,
                 timeout_s: float = 10.0, cache_size: int = 512) -> None:
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout_s, max_retries=0)
        self._model = model
        self._host = urlsplit(base_url).netloc or base_url
        self._names = {i.name for i in intents}
        self._tools = tool_specs(intents, modules)
        self._adapter = query_adapter(intents)
        self._modules = modules
        self._cache: OrderedDict[str, QueryBase | None] = OrderedDict()
        self._size = cache_size

    def __call__(self, text: str) -> QueryBase | None:
        """The query the model picks for ``text``, or None (the parser reads it then)."""
        key = clean_text(text)
        if not key:
            return None
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        q = self._route(key)
        self._cache[key] = q
        while len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return q

    def _route(self, text: str) -> QueryBase | None:
        try:
            resp = self._client.chat.completions.create(
                model=self._model, temperature=0, tools=self._tools, tool_choice="required",  # type: ignore[arg-type]
                messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}])
        except openai.APIError as exc:
            log.warning("chat router %s: %s; the parser reads the message", self._host, type(exc).__name__)
            return None
        calls = (resp.choices[0].message.tool_calls or []) if resp.choices else []
        call = calls[0] if calls else None
        fn = getattr(call, "function", None)
        if fn is None or fn.name not in self._names:
            log.info("chat router %s: no usable tool call; the parser reads the message", self._host)
            return None
        try:
            args = json.loads(fn.arguments or "{}")
            if not isinstance(args, dict):
                return None
            q = self._adapter.validate_python({**args, "intent": fn.name, "lang": text_lang(text)})
        except (ValueError, ValidationError, RecursionError):
            log.info("chat router %s: tool %s with invalid arguments; the parser reads the message", self._host, fn.name)
            return None
        return q if isinstance(q, QueryBase) and known_names(q, self._modules) else None
