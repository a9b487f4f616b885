"""Wiring of the optional LLM writer: settings from the config's ``llm:`` or the environment.

``PRHUB_LLM_BASE_URL``, ``PRHUB_LLM_MODEL`` and ``PRHUB_LLM_API_KEY`` configure it without a
config file (``prhub digest --llm``); a config's ``llm:`` section wins for the weekly job, with
the key read from its ``api_key_env``. The key never reaches logs, cards or errors.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TextIO

from chatbot.errors import InputError
from chatbot.models import DigestText, ProseInfo
from chatbot.ports import SummaryCache
from chatbot.writer import Progress
from chatbot.module_names import ModuleIndex
from scheduler.config import LLMSettings

if TYPE_CHECKING:
    from adapters.llm.router import ModelRouter

log = logging.getLogger(__name__)


def llm_settings(configured: LLMSettings | None = None, env: dict[str, str] | None = None) -> LLMSettings | None:
    """The writer's settings: ``configured`` (a config's ``llm:``), else the environment, else None."""
    environ = os.environ if env is None else env
    if configured is not None:
        return configured
    base, model = environ.get("PRHUB_LLM_BASE_URL"), environ.get("PRHUB_LLM_MODEL")
    if base and model:
        return LLMSettings(base_url=base, model=model)
    return None


def report_line(model: str, info: ProseInfo) -> str:
    """The one line (no newline) that reports a writer run: digest-prose source and sentences, key-PR
    summaries (model-written, rule-written, from the cache), tokens (or ``cache, 0 tokens``) and seconds."""
    origin = "cache, 0 tokens" if info.cached else f"{info.prompt_tokens:,} prompt + {info.completion_tokens:,} completion tokens"
    return (f"prhub: LLM writer {model}: {info.source} ({info.kept} sentences kept, {info.replaced} rule-written; "
            f"{info.summaries} PR summaries by the model, {info.summaries_rules} rule-written, {info.summaries_cached} "
            f"from the cache; {origin}; {info.seconds:.1f} s)")


def write_with_model(d: DigestText, settings: LLMSettings, *, cache: SummaryCache | None = None,
                     env: dict[str, str] | None = None, report: TextIO | None = None,
                     progress: Progress | None = None) -> DigestText:
    """``d`` with the model's validated key-PR summaries and sentences (:func:`chatbot.writer.write_digest`).

    Prints :func:`report_line` on ``report`` (stderr by default) and logs it at INFO.
    """
    from adapters.llm.client import OpenAIModelClient
    from chatbot.writer import write_digest

    environ = os.environ if env is None else env
    key = environ.get(settings.api_key_env, "")
    client = OpenAIModelClient(settings.base_url, settings.model, key, timeout_s=settings.timeout_s)
    out = write_digest(d, client, max_input_tokens=settings.max_input_tokens, cache=cache, progress=progress)
    info = out.prose
    if info is not None:
        line = report_line(settings.model, info)
        log.info("%s", line)
        stream = report if report is not None else sys.stderr
        stream.write(line + "\n")
    return out


CHAT_TIMEOUT_S = 10.0
"""The longest a chat question waits on the model router (seconds); the parser answers after it."""


def chat_router(settings: LLMSettings, modules: ModuleIndex, env: dict[str, str] | None = None) -> ModelRouter:
    """The chat's model router over ``settings`` (its key from ``api_key_env``), with the registry's
    intents as tools and ``modules`` as the rules' names (:mod:`adapters.llm.router`)."""
    from adapters.llm.router import ModelRouter
    from chatbot.intents import INTENTS

    environ = os.environ if env is None else env
    return ModelRouter(settings.base_url, settings.model, environ.get(settings.api_key_env, ""), intents=INTENTS,
                       modules=modules, timeout_s=min(settings.timeout_s, CHAT_TIMEOUT_S))


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
        from prhub.progress import steps_progress

        with open_cache() as cache, steps_progress(f"{d.repo} {d.week} {settings.model}") as progress:
            return write_with_model(d, settings, cache=cache, progress=progress)

    return step
