"""Negative results are cached: a second ``--llm`` run on an unchanged week asks the model nothing, also
when every answer of the first run failed the checks (issue 18's done-when).

The ``--llm`` step as the CLI runs it (:func:`prhub.llm.write_with_model`): the real ``openai`` client,
the scripted fake server on 127.0.0.1 counting requests, the real store (SQLite) as the cache, the
real week 2026-W20.
"""

from __future__ import annotations

import io
import json

import pytest

from adapters.storage import SqlStore
from chatbot.render.markdown import render_markdown
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from prhub.clock import SYSTEM_CLOCK
from prhub.llm import write_with_model
from scheduler.config import LLMSettings
from tests.adapters.llm.test_pr_summaries import facts_of
from tests.conftest import thread_prs
from tests.digests import written_digest
from tests.fakes.openai_server import Answer, FakeOpenAI, Status

MODEL = "qwen3"


def bad_answer(body: dict) -> str:
    """Answers that all fail: per key PR a number no fact has (even PRs) or a summary that is a string,
    not a claim object (odd PRs); for the digest prose a headline with a wrong count, ``storylines``
    a number instead of a list of objects, and (in the retry) a recommendation without ``prs`` and with a wrong count."""
    facts = facts_of(body)
    retry = "Your previous answer" in body["messages"][1]["content"]
    if "number" in facts:
        n = facts["number"]
        if n % 2:
            return json.dumps({"summary": f"#{n} makes decoding faster."})
        return json.dumps({"summary": {"text": f"#{n} makes decoding 987x faster.", "prs": [n]}})
    if retry:
        return json.dumps({"headline": {"text": "988 PRs merged.", "prs": []}, "storylines": [],
                           "trend": {"text": "", "prs": []},
                           "recommendations": [{"text": "Check the 987 reverts such as #42434."}]})
    return json.dumps({"headline": {"text": "987 PRs merged.", "prs": []}, "storylines": 7,
                       "trend": {"text": "", "prs": []}, "recommendations": []})


@pytest.fixture
def store(tmp_path):
    s = SqlStore.open(f"sqlite:///{tmp_path / 'prhub.db'}", clock=SYSTEM_CLOCK)
    yield s
    s.close()


def llm_run(d, store, script):
    """One ``--llm`` run: the digest, the fake's request count and the closing report line."""
    with FakeOpenAI(script) as fake:
        settings = LLMSettings(base_url=fake.base_url, model=MODEL, max_input_tokens=16000, timeout_s=10.0)
        report = io.StringIO()
        out = write_with_model(d, settings, cache=store, env={"PRHUB_LLM_API_KEY": "sk-test"}, report=report)
        return out, len(fake.requests), report.getvalue().strip()


def test_a_second_run_after_failed_answers_of_every_kind_makes_zero_calls(store):
    d = written_digest(thread_prs(), repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
    n = len(d.key_prs)
    assert n == 24
    first, calls, line = llm_run(d, store, [Answer(bad_answer)])
    assert calls == 2 * (n + 1)  # each summary and the digest prose asked, then retried once with the complaints
    assert first.prose is not None and first.prose.summaries == 0 and first.prose.summaries_rules == n
    assert (first.prose.source, first.prose.kept, first.prose.replaced) == ("rules", 0, 2)  # the headline, the recommendation
    assert f"{2 * (n + 1)} calls" in line, line

    second, calls, line = llm_run(d, store, [Status(500, message="the model must not be asked")])
    assert calls == 0, line  # 927e43b: 1 (the digest prose's answer raised while checked, nothing was cached)
    assert "cache, 0 calls, 0 tokens" in line
    assert render_markdown(second) == render_markdown(first)
    assert second.headline == d.headline and "987" not in render_markdown(second)


def test_a_second_run_after_a_server_failure_makes_zero_calls_for_an_hour(store):
    """A timeout, refusal or HTTP error is remembered (``writer.OUTAGE_S``): a re-run within the hour asks
    nothing and is the same rule-written digest; after it the model is asked again."""
    from datetime import datetime, timedelta, timezone

    from adapters.llm.client import OpenAIModelClient
    from chatbot.writer import OUTAGE_S, write_digest

    d = written_digest(thread_prs(), repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
    first, calls, line = llm_run(d, store, [Status(500, message="upstream down")])
    assert calls >= 1 and first.prose is not None and first.prose.summaries == 0  # asked once, then stopped
    second, calls, line = llm_run(d, store, [Status(500, message="the model must not be asked")])
    assert calls == 0, line  # before: the next run asked again
    assert render_markdown(second) == render_markdown(first)

    failed_at = datetime.fromisoformat(str(store.get_summary("llm-outage", "", MODEL)["at"]))
    assert failed_at.tzinfo is not None and abs((datetime.now(timezone.utc) - failed_at).total_seconds()) < 600
    with FakeOpenAI([Status(500, message="still down")]) as fake:
        client = OpenAIModelClient(fake.base_url, MODEL, "sk-test", timeout_s=5.0)
        write_digest(d, client, cache=store, max_input_tokens=16000, now=lambda: failed_at + timedelta(seconds=OUTAGE_S - 1))
        assert len(fake.requests) == 0  # one second before the hour is up
        write_digest(d, client, cache=store, max_input_tokens=16000, now=lambda: failed_at + timedelta(seconds=OUTAGE_S + 1))
        assert len(fake.requests) >= 1  # after it, asked again
