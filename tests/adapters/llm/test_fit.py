"""Fit (issue 18, item 5): the fact sheet measured in the model's own tokens where the server counts
them (vLLM's ``POST /tokenize``, in the fake with a tokenizer finer than the estimate), trimmed to
``max_input_tokens`` and to the model's context with a margin; a cached answer asks nothing."""

from __future__ import annotations

import json
import math

import pytest

from adapters.llm.client import OpenAIModelClient
from chatbot.factsheet import (ANSWER_RESERVE, MEASURES, PROMPT_OVERHEAD, SAFETY, estimate_tokens, fact_sheet,
                               fit_fact_sheet, fit_measured, sheet_text)
from tests.adapters.llm.test_pr_summaries import MODEL, digest
from tests.adapters.llm.test_writer import MemoryCache
from tests.fakes.openai_server import FakeOpenAI, Reply
from chatbot.writer import write_prose


def fine_tokenizer(text: str) -> int:
    """A tokenizer 2.2x finer than the old estimate ``ceil(ascii/4) + non_ascii`` (what a small-vocabulary
    BPE does to JSON): one token per 2 ASCII characters, 2 per other character."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 1.8) + 2 * (len(text) - ascii_chars)


@pytest.fixture(scope="module")
def sheets():
    return {lang: fact_sheet(digest(lang=lang)) for lang in ("en", "zh")}


def test_the_estimate_carries_the_measured_safety_factor(sheets):
    for sheet in sheets.values():
        text = sheet_text(sheet)
        old = math.ceil(sum(ord(c) < 128 for c in text) / 4) + sum(ord(c) >= 128 for c in text)
        assert estimate_tokens(text) == math.ceil(SAFETY * old) and SAFETY >= 1.43  # SmolLM2: 1.43x the old one


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("limit, context", [(8000, None), (8000, 6000), (4000, None)])
def test_a_measured_fit_is_under_the_budget_in_real_tokens(sheets, lang, limit, context):
    sheet = sheets[lang]
    calls: list[str] = []

    def measure(text):
        calls.append(text)
        return fine_tokenizer(text), context

    fit = fit_measured(sheet, limit, measure)
    budget = limit - PROMPT_OVERHEAD if context is None else min(limit, context - ANSWER_RESERVE) - PROMPT_OVERHEAD
    assert fit.measured and fit.budget == budget and fit.full == fine_tokenizer(sheet_text(sheet))
    assert fit.tokens == fine_tokenizer(sheet_text(fit.sheet)) <= budget
    assert len(calls) <= MEASURES
    if context is not None:  # the estimate alone, blind to the context, would have sent too much
        assert fine_tokenizer(sheet_text(fit_fact_sheet(sheet, limit))) > budget


def test_without_a_count_the_estimate_fits():
    sheet = fact_sheet(digest())
    fit = fit_measured(sheet, 3000, lambda text: None)
    assert not fit.measured and fit.sheet == fit_fact_sheet(sheet, 3000) and fit.tokens <= 3000 - PROMPT_OVERHEAD


def test_write_prose_sends_a_sheet_that_fits_the_servers_count_and_a_rerun_asks_nothing():
    d = digest()
    cache = MemoryCache()
    with FakeOpenAI([Reply(json.dumps({"headline": {"text": f"{d.total_prs} PRs merged in 2026-W20.", "prs": []}}))],
                    tokenizer=fine_tokenizer, max_model_len=6000) as fake:
        client = OpenAIModelClient(fake.base_url, MODEL, "sk-test", timeout_s=5.0)
        write_prose(d, client, max_input_tokens=8000, cache=cache)
        sent = fake.requests[0]["messages"][1]["content"]
        assert fine_tokenizer(sent) <= 6000 - ANSWER_RESERVE - PROMPT_OVERHEAD
        assert 1 <= len(fake.tokenize_requests) <= MEASURES
        assert fake.tokenize_requests[0]["model"] == MODEL
        asked, counted = len(fake.requests), len(fake.tokenize_requests)
        again = write_prose(d, client, max_input_tokens=8000, cache=cache)
        assert (len(fake.requests), len(fake.tokenize_requests)) == (asked, counted)  # 0 calls, 0 counts
        assert again.prose is not None and again.prose.cached
