"""Wiring of the optional LLM writer: settings from the config's ``llm:`` or the environment.

``PRHUB_LLM_BASE_URL``, ``PRHUB_LLM_MODEL`` and ``PRHUB_LLM_API_KEY`` configure it without a
config file (``prhub digest --llm``, whose ``--llm-timeout``, ``--llm-budget`` and
``--llm-max-input-tokens`` set ``timeout_s``, ``budget_s`` and ``max_input_tokens``); a config's
``llm:`` section wins for the weekly job, with the key read from its ``api_key_env``. The key
never reaches logs, cards or errors.

The model never stops a digest: :func:`write_with_model` returns the rule-written digest on any
failure of the writer step (the client turns every transport or envelope failure into a
ModelError, the writer falls back on those; anything else, e.g. the cache's store failing, is
caught here and logged in one line), and the client's deadlines hold the step to ``budget_s``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TextIO

from pydantic import ValidationError

from chatbot.errors import InputError
from chatbot.models import DigestText, ProseInfo
from chatbot.ports import SummaryCache
from chatbot.writer import Budget, Progress
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
    """The one line (no newline) that reports a writer run: digest-prose source and sentences (kept,
    replaced by rule text), key-PR summaries (model-written, rule-written, from the cache), model calls
    and tokens (``cache, 0 calls, 0 tokens`` when none was made) and seconds."""
    origin = ("cache, 0 calls, 0 tokens" if info.calls == 0 else
              f"{info.calls} call{'' if info.calls == 1 else 's'}, {info.prompt_tokens:,} prompt + "
              f"{info.completion_tokens:,} completion tokens")
    return (f"prhub: LLM writer {model}: {info.source} ({info.kept} sentences kept, {info.replaced} rule-written; "
            f"{info.summaries} PR summaries by the model, {info.summaries_rules} rule-written, {info.summaries_cached} "
            f"from the cache; {origin}; {info.seconds:.1f} s)")


def write_with_model(d: DigestText, settings: LLMSettings, *, cache: SummaryCache | None = None,
                     env: dict[str, str] | None = None, report: TextIO | None = None,
                     progress: Progress | None = None, budget: Budget | None = None) -> DigestText:
    """``d`` with the model's validated key-PR summaries and sentences (:func:`chatbot.writer.write_digest`),
    within ``budget`` (default: a fresh ``settings.budget_s``; the weekly job shares one between its
    languages). Never raises: any failure gives ``d`` rule-written.

    Prints :func:`report_line` on ``report`` (stderr by default) and logs it at INFO.
    """
    from adapters.llm.client import OpenAIModelClient
    from chatbot.writer import rule_written, write_digest

    environ = os.environ if env is None else env
    key = environ.get(settings.api_key_env, "")
    try:
        client = OpenAIModelClient(settings.base_url, settings.model, key, timeout_s=settings.timeout_s,
                                   max_answer_bytes=settings.max_answer_bytes)
        out = write_digest(d, client, max_input_tokens=settings.max_input_tokens, cache=cache, progress=progress,
                           budget=budget if budget is not None else Budget(settings.budget_s))
    except Exception as exc:  # never let the optional model stop the digest (see the module docstring)
        log.warning("LLM writer %s failed (%s); the digest is rule-written", settings.model, type(exc).__name__)
        out = rule_written(d, settings.model)
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


_OPTIONS = {"timeout_s": "--llm-timeout", "budget_s": "--llm-budget", "max_input_tokens": "--llm-max-input-tokens"}


def require_llm(env: dict[str, str] | None = None, **overrides: float | int | None) -> LLMSettings:
    """Settings for ``--llm``, with the CLI's ``timeout_s``, ``budget_s`` and ``max_input_tokens``
    (None: the default) in ``overrides``.

    Raises:
        InputError: neither the config nor PRHUB_LLM_BASE_URL and PRHUB_LLM_MODEL configure a model,
            or an option is out of its range (one line naming the option and the range).
    """
    settings = llm_settings(None, env)
    if settings is None:
        raise InputError("--llm needs a model: set PRHUB_LLM_BASE_URL (e.g. http://127.0.0.1:8000/v1) and "
                         "PRHUB_LLM_MODEL (and PRHUB_LLM_API_KEY when the server wants one)")
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return LLMSettings.model_validate({**settings.model_dump(), **given})
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else ""
        raise InputError(f"{_OPTIONS.get(name, name)} {given.get(name)!r}: {err['msg'].lower()}") from None


def store_step(settings: LLMSettings, open_cache: Callable[[], AbstractContextManager[Any]]) -> Callable[[DigestText], DigestText]:
    """The :data:`chatbot.digest_service.DigestStep` of ``--llm``: the writer, with the store opened as its cache."""

    def step(d: DigestText) -> DigestText:
        from prhub.progress import steps_progress

        budget = Budget(settings.budget_s)
        with open_cache() as cache, steps_progress(f"{d.repo} {d.week} {settings.model}",
                                                    spent=lambda: (budget.calls, budget.tokens)) as progress:
            return write_with_model(d, settings, cache=cache, progress=progress, budget=budget)

    return step
