"""Wiring of the optional LLM writer: settings from the config's ``llm:`` or the environment.

``PRHUB_LLM_BASE_URL``, ``PRHUB_LLM_MODEL`` and ``PRHUB_LLM_API_KEY`` configure it without a
config file (``prhub digest --llm``); a config's ``llm:`` section wins for the weekly job, with
the key read from its ``api_key_env``. The key never reaches logs, cards or errors.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TextIO

from chatbot.errors import InputError
from chatbot.models import DigestText
from chatbot.ports import SummaryCache
from scheduler.config import LLMSettings


def llm_settings(configured: LLMSettings | None = None, env: dict[str, str] | None = None) -> LLMSettings | None:
    """The writer's settings: ``configured`` (a config's ``llm:``), else the environment, else None."""
    environ = os.environ if env is None else env
    if configured is not None:
        return configured
    base, model = environ.get("PRHUB_LLM_BASE_URL"), environ.get("PRHUB_LLM_MODEL")
    if base and model:
        return LLMSettings(base_url=base, model=model)
    return None


def write_with_model(d: DigestText, settings: LLMSettings, *, cache: SummaryCache | None = None,
                     env: dict[str, str] | None = None, report: TextIO | None = None) -> DigestText:
    """``d`` with the model's validated sentences (:func:`chatbot.writer.write_prose`).

    Prints one line on ``report`` (stderr by default): model, tokens, seconds, and whether the
    sentences were used, partly used, or replaced by the rule-written text.
    """
    from adapters.llm.client import OpenAIModelClient
    from chatbot.writer import write_prose

    environ = os.environ if env is None else env
    key = environ.get(settings.api_key_env, "")
    client = OpenAIModelClient(settings.base_url, settings.model, key, timeout_s=settings.timeout_s)
    out = write_prose(d, client, max_input_tokens=settings.max_input_tokens, cache=cache)
    info = out.prose
    if info is not None:
        stream = report if report is not None else sys.stderr
        origin = "cache, 0 tokens" if info.cached else f"{info.prompt_tokens:,} prompt + {info.completion_tokens:,} completion tokens"
        stream.write(f"prhub: LLM writer {settings.model}: {info.source} ({info.kept} sentences kept, "
                     f"{info.replaced} rule-written; {origin}; {info.seconds:.1f} s)\n")
    return out


def require_llm(env: dict[str, str] | None = None) -> LLMSettings:
    """Settings for ``--llm``.

    Raises:
        InputError: neither the config nor PRHUB_LLM_BASE_URL and PRHUB_LLM_MODEL configure a model.
    """
    settings = llm_settings(None, env)
    if settings is None:
        raise InputError("--llm needs a model: set PRHUB_LLM_BASE_URL (e.g. http://127.0.0.1:8000/v1) and "
                         "PRHUB_LLM_MODEL (and PRHUB_LLM_API_KEY when the server wants one)")
    return settings


def store_step(settings: LLMSettings, open_cache: Callable[[], AbstractContextManager[Any]]) -> Callable[[DigestText], DigestText]:
    """The :data:`chatbot.digest_service.DigestStep` of ``--llm``: the writer, with the store opened as its cache."""

    def step(d: DigestText) -> DigestText:
        with open_cache() as cache:
            return write_with_model(d, settings, cache=cache)

    return step
