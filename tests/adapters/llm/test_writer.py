"""The LLM writer: the real ``openai`` client against a scripted OpenAI-compatible server on 127.0.0.1.

The digest is always produced; model sentences are used only when the validator passes them; the
fallback is marked; no error text ever reaches the output.
"""

from __future__ import annotations

import json

import pytest

from adapters.llm.client import OpenAIModelClient
from tests.digests import written_digest
from chatbot.render.markdown import render_markdown
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from chatbot.answers import DIGEST_SCHEMA
from chatbot.writer import write_prose
from tests.conftest import thread_prs
from tests.fakes.openai_server import FakeOpenAI, Reply, Stall, Status

MODEL = "Qwen/Qwen3-8B"


@pytest.fixture(scope="module")
def digests():
    rules = shipped_rules("vllm")
    prs = thread_prs()
    return {lang: written_digest(prs, repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=rules, lang=lang)
            for lang in ("en", "zh")}


def good_answer(d, **override) -> str:
    """An answer made only of the digest's facts."""
    th = d.themes
    answer = {
        "headline": {"text": f"{d.total_prs} PRs merged in 2026-W20, led by {th[0].name} (#{th[0].prs[0]}).",
                     "prs": [th[0].prs[0]]},
        "storylines": [{"id": t.module, "text": f"{t.name}: #{t.prs[0]} and #{t.prs[1]} lead it.", "prs": list(t.prs[:2])}
                       for t in th],
        "trend": {"text": f"{d.module_stats[0].name} had the most PRs ({d.module_stats[0].prs}).", "prs": []},
        "recommendations": [{"text": "Check whether the revert #42434 of #39917 needs a re-land plan.", "prs": [42434, 39917]}],
    }
    answer.update(override)
    return json.dumps(answer)


def run(d, script, *, timeout_s=5.0, sleeps=None, cache=None):
    with FakeOpenAI(script) as fake:
        client = OpenAIModelClient(fake.base_url, MODEL, "sk-test", timeout_s=timeout_s,
                                   sleep=(sleeps.append if sleeps is not None else lambda s: None))
        out = write_prose(d, client, max_input_tokens=16000, cache=cache)
        return out, fake


def no_error_text(out, d) -> None:
    """The fallback digest is the rule-written one plus the marker line: no error, status or key."""
    md = render_markdown(out)
    lines = [x for x in md.split("\n") if not x.startswith("> ") or "HTTP" in x or "model server" in x]
    base = [x for x in render_markdown(d).split("\n") if not x.startswith("> ")]
    assert [x for x in lines if x] == [x for x in base if x]
    assert "sk-test" not in md and "model server" not in md


def test_a_good_answer_is_used(digests):
    d = digests["en"]
    out, fake = run(d, [Reply(good_answer(d))])
    assert len(fake.requests) == 1
    req = fake.requests[0]
    assert req["model"] == MODEL and req["response_format"] == {"type": "json_schema", "json_schema": DIGEST_SCHEMA}
    assert fake.rejected == []  # the strict schema is one the API accepts
    assert json.loads(req["messages"][1]["content"])["merged_prs"] == 217
    assert out.prose.source == "model" and out.prose.replaced == 0
    assert (out.prose.prompt_tokens, out.prose.completion_tokens) == (1200, 300)
    assert out.headline.startswith("217 PRs merged in 2026-W20")
    assert [t.summary for t in out.themes] == [f"{t.name}: #{t.prs[0]} and #{t.prs[1]} lead it." for t in d.themes]
    assert out.recommendations[0].prs == (42434, 39917)
    md = render_markdown(out)
    assert f"† 10 sentences by {MODEL}, numbers and PR references checked against the facts; 0 replaced by rule text." in md
    assert out.trend_text in md


def test_a_sentence_citing_a_pr_not_in_the_week_is_dropped(digests):
    d = digests["en"]
    bad = good_answer(d, headline={"text": "217 PRs merged, see #99999.", "prs": [99999]})
    out, fake = run(d, [Reply(bad), Reply(bad)])
    assert len(fake.requests) == 2  # one retry, with the complaint
    assert "cites PRs that are not in this week: #99999" in fake.requests[1]["messages"][1]["content"]
    assert out.prose.source == "mixed" and "99999" not in out.headline
    assert "99999" not in render_markdown(out)
    assert out.themes[0].summary.endswith("lead it.")  # the other sentences are used


def test_a_wrong_count_is_dropped_and_the_retry_can_fix_it(digests):
    d = digests["en"]
    wrong = good_answer(d, trend={"text": "model support had 999 PRs.", "prs": []})
    out, fake = run(d, [Reply(wrong), Reply(good_answer(d))])
    assert len(fake.requests) == 2
    assert "states 999 prs for model support, which no cited fact has" in fake.requests[1]["messages"][1]["content"]
    assert out.prose.source == "model" and "999" not in out.trend_text


def test_malformed_json_is_retried_then_the_rule_text_is_used_and_marked(digests):
    for lang, note in (("en", "Rule-written text: the model's answer was not used."), ("zh", "本文由规则生成：未采用模型的回答。")):
        d = digests[lang]
        out, fake = run(d, [Reply("Sure! Here is the summary: {headline: ...")])
        assert len(fake.requests) == 2
        assert "not valid JSON" in fake.requests[1]["messages"][1]["content"]
        assert out.prose.source == "rules"
        assert out.themes == d.themes and out.recommendations == d.recommendations and out.headline == d.headline
        assert note in render_markdown(out)
        no_error_text(out, d)


def test_timeout_gives_the_rule_written_digest(digests):
    d = digests["en"]
    out, fake = run(d, [Stall(seconds=1.5)], timeout_s=0.3)
    assert out.prose.source == "rules" and out.themes == d.themes
    no_error_text(out, d)


def test_429_waits_retry_after_then_uses_the_answer(digests):
    d = digests["en"]
    sleeps: list[float] = []
    out, fake = run(d, [Status(429, retry_after="7", message="Rate limit reached"), Reply(good_answer(d))], sleeps=sleeps)
    assert sleeps == [7.0] and len(fake.requests) == 2
    assert out.prose.source == "model"


def test_429_twice_and_500_give_the_rule_written_digest(digests):
    d = digests["zh"]
    for script in ([Status(429, retry_after="1"), Status(429, retry_after="1")], [Status(500, message="internal")]):
        out, _ = run(d, script)
        assert out.prose.source == "rules" and out.themes == d.themes
        assert "本文由规则生成" in render_markdown(out)
        no_error_text(out, d)


class MemoryCache:
    def __init__(self):
        self.rows = {}

    def get_summary(self, subject, content_hash, model):
        return self.rows.get((subject, content_hash, model))

    def put_summary(self, subject, content_hash, model, payload, prompt_tokens, completion_tokens):
        self.rows[(subject, content_hash, model)] = payload


def test_a_rerun_costs_zero_tokens(digests):
    d = digests["en"]
    cache = MemoryCache()
    first, _ = run(d, [Reply(good_answer(d))], cache=cache)
    second, fake = run(d, [Status(500)], cache=cache)
    assert fake.requests == [] and second.prose.cached and second.prose.prompt_tokens == 0
    assert second.headline == first.headline and second.themes == first.themes



@pytest.mark.parametrize("storylines, replaced", [
    ("CPU backend work grew this week.", 0),
    ([1, 2], 0),
    (7, 0),
    ([{"id": ["topic:deepseek-v4"], "text": "#41946 leads it.", "prs": [41946]}], 0),
    ([{"id": "topic:deepseek-v4", "text": 5, "prs": "#41946"}], 1),  # a storyline's slot, its sentence malformed
], ids=["string", "list of ints", "number", "list id", "bad claim"])
def test_a_malformed_slot_fails_alone_the_others_keep_the_model_text(digests, storylines, replaced):
    """One malformed slot costs that slot only (927e43b: storylines 7 or an unhashable id raised
    TypeError and the whole run became rule-written); a recommendation without ``prs`` cites the PRs
    its text names (927e43b: KeyError)."""
    d = digests["en"]
    rec = {"text": "Check whether the revert #42434 of #39917 needs a re-land plan."}
    out, fake = run(d, [Reply(good_answer(d, storylines=storylines, recommendations=[rec]))])
    assert len(fake.requests) == 2  # the malformed slot's complaint is sent back once
    complaints = fake.requests[1]["messages"][1]["content"].split("Your previous answer had these faults")[1]
    assert "storylines" in complaints and "headline" not in complaints and "trend" not in complaints
    assert out.headline.startswith("217 PRs merged in 2026-W20, led by ")
    assert out.trend_text == f"{d.module_stats[0].name} had the most PRs ({d.module_stats[0].prs})."
    assert out.themes == d.themes  # every storyline keeps its rule sentence
    assert out.recommendations[0].text == rec["text"] and out.recommendations[0].prs == (42434, 39917)
    slots = {m.slot: m.source for m in out.prose.sentences}
    assert slots["headline"] == slots["trend"] == slots["recommendations.0"] == "model"
    assert all(v == "rules" for k, v in slots.items() if k.startswith("storylines."))
    assert (out.prose.kept, out.prose.replaced) == (3, replaced)
    assert out.prose.source == ("mixed" if replaced else "model")
