"""Merge and provenance of the LLM writer: the real ``openai`` client, structured output against
the fake server, the shipped real week 2026-W20 (217 PRs).

A model sentence replaces the rule sentence of its own slot only; each sentence says who wrote it
(digest JSON ``prose.sentences``; a ``†`` mark and one provenance line in Markdown, HTML and cards),
and the line's counts equal the sentences kept and replaced.
"""

from __future__ import annotations

import json

import pytest

from adapters.llm.client import OpenAIModelClient
from chatbot.answers import DIGEST_SCHEMA, SUMMARY_SCHEMA, claim_of
from chatbot.cards import digest_cards
from chatbot.models import Recommendation
from chatbot.render.html import render_html
from chatbot.render.markdown import render_markdown
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from chatbot.writer import MAX_RECOMMENDATIONS, merge_recommendations, write_prose
from tests.conftest import thread_prs
from tests.digests import written_digest
from tests.fakes.openai_server import FakeOpenAI, Reply, schema_problem

MODEL = "Qwen/Qwen3-8B"


@pytest.fixture(scope="module")
def digests():
    prs = thread_prs()
    return {lang: written_digest(prs, repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=shipped_rules("vllm"),
                                 lang=lang) for lang in ("en", "zh")}


def zh_answer(d, *, fail=(), recs=None) -> str:
    """A zh answer of true claims (headline, one per storyline, trend, one recommendation); the slots in
    ``fail`` get a false one (a count that is not the week's, a PR of another storyline)."""
    th = d.themes

    def pr(t):  # its own first PR, or for a failing slot the first PR of another storyline
        return (th[1] if t is th[0] else th[0]).prs[0] if f"storylines.{t.module}" in fail else t.prs[0]
    answer = {
        "headline": {"text": f"本周共合并 {d.total_prs + (1 if 'headline' in fail else 0)} 个 PR。", "prs": [],
                     "facts": ["week.merged_prs"]},
        "storylines": [{"id": t.module, "text": f"{t.name}：#{pr(t)} 领衔。",
                        "prs": [], "facts": [f"storylines.{t.module}"]} for t in th],
        "trend": {"text": f"{d.module_stats[0].name} 的 PR 最多（{d.module_stats[0].prs + (5 if 'trend' in fail else 0)} 个）。",
                  "prs": [], "facts": [f"modules.{d.module_stats[0].module}"]},
        "recommendations": recs if recs is not None else [
            {"text": "为被回滚的 #42434 制定重新合入计划。", "prs": [42434], "facts": []}],
    }
    return json.dumps(answer, ensure_ascii=False)


def run(d, script, **kw):
    with FakeOpenAI(script, **kw) as fake:
        client = OpenAIModelClient(fake.base_url, MODEL, "sk-test", timeout_s=5.0)
        return write_prose(d, client, max_input_tokens=16000), fake


@pytest.mark.parametrize("fail", [(), ("storylines.topic:deepseek-v4",),
                                  ("headline", "storylines.models", "trend")])
def test_provenance_counts_equal_the_sentences_kept_and_replaced(digests, fail):
    d = digests["zh"]
    answer = zh_answer(d, fail=fail)
    out, fake = run(d, [Reply(answer), Reply(answer)])  # the retry repeats the faults
    assert len(fake.requests) == (2 if fail else 1)
    written = 1 + len(d.themes) + 1 + 1  # headline, storylines, trend, one recommendation
    info = out.prose
    assert (info.kept, info.replaced) == (written - len(fail), len(fail))
    assert info.source == ("mixed" if fail else "model")
    model = {m.slot for m in info.sentences if m.source == "model"}
    rules = {m.slot for m in info.sentences if m.source == "rules"}
    assert set(fail) <= rules and not set(fail) & model and len(model) == written - len(fail)
    assert all(m.model == MODEL for m in info.sentences if m.source == "model")
    for t, base in zip(out.themes, d.themes):  # a failed slot keeps its rule sentence, the others are the model's
        assert t.summary == (base.summary if f"storylines.{t.module}" in fail else f"{t.name}：#{t.prs[0]} 领衔。")
    assert out.headline == (d.headline if "headline" in fail else f"本周共合并 {d.total_prs} 个 PR。")
    md = render_markdown(out)
    assert (f"† {written - len(fail)} 句由 {MODEL} 撰写，其数字与 PR 引用已对照事实核对；{len(fail)} 句未通过核对，"
            "已改用规则文字。") in md
    assert sum(x.count(" †") for x in md.split("\n") if not x.startswith("> ")) == written - len(fail)  # one mark each
    data = json.loads(out.model_dump_json())
    assert len(data["prose"]["sentences"]) == 1 + len(d.themes) + 1 + len(out.recommendations)


def test_a_zh_digest_keeps_no_english_model_sentence(digests):
    d = digests["zh"]
    english = json.loads(zh_answer(d))
    english["headline"]["text"] = f"{d.total_prs} PRs were merged this week."
    english["storylines"][0]["text"] = f"{d.themes[0].name} is led by #{d.themes[0].prs[0]} this week."
    out, fake = run(d, [Reply(json.dumps(english, ensure_ascii=False))])
    assert "is not written in Chinese" in fake.requests[-1]["messages"][1]["content"]
    assert out.headline == d.headline and out.themes[0].summary == d.themes[0].summary
    assert out.prose.replaced == 2 and out.themes[1].summary.endswith("领衔。")


def test_recommendations_are_merged_model_first_at_most_six(digests):
    d = digests["zh"]
    assert len(d.recommendations) == 6  # the rule writer gives at most thresholds.recommendations (issue 17)
    recs = [{"text": "为被回滚的 #42434 制定重新合入计划。", "prs": [42434], "facts": []},
            {"text": "请安全评审者检查 #42594。", "prs": [42594], "facts": []}]
    out, _ = run(d, [Reply(zh_answer(d, recs=recs))])
    texts = [r.text for r in out.recommendations]
    uncovered = [r.text for r in d.recommendations if not {42434, 42594} & set(r.prs)]
    assert texts[:2] == [r["text"] for r in recs] and len(texts) == min(MAX_RECOMMENDATIONS, 2 + len(uncovered)) == 4
    assert texts[2:] == uncovered[:4]
    marks = [m.source for m in out.prose.sentences if m.slot.startswith("recommendations.")]
    assert marks == ["model", "model", "rules", "rules"]


def test_merge_recommendations_boundaries():
    rules = tuple(Recommendation(text=f"r{i}", prs=(i,)) for i in range(8))
    assert merge_recommendations((), rules) == rules  # no model recommendation: the rule ones, as they are
    model = (Recommendation(text="m", prs=(0, 1)),)
    assert [r.text for r in merge_recommendations(model, rules)] == ["m", "r2", "r3", "r4", "r5", "r6"]


def test_an_empty_slot_keeps_its_rule_text_and_is_not_a_failure(digests):
    d = digests["zh"]
    answer = json.loads(zh_answer(d))
    answer["headline"]["text"] = ""
    answer["storylines"] = answer["storylines"][1:]
    out, fake = run(d, [Reply(json.dumps(answer, ensure_ascii=False))])
    assert len(fake.requests) == 1 and out.prose.replaced == 0 and out.prose.source == "model"
    assert out.headline == d.headline and out.themes[0].summary == d.themes[0].summary
    assert out.prose.kept == len(d.themes) - 1 + 1 + 1


def test_html_and_cards_mark_model_sentences(digests):
    d = digests["zh"]
    out, _ = run(d, [Reply(zh_answer(d, fail=("trend",))), Reply(zh_answer(d, fail=("trend",)))])
    html = render_html(out)
    assert f"† {out.prose.kept} 句由 {MODEL} 撰写" in html and "1 句未通过核对" in html
    assert html.count(" †") == len(d.themes) + 1  # storylines and the recommendation (no headline/trend on the page)
    cards = json.dumps([c.model_dump() for c in digest_cards(out)], ensure_ascii=False)
    assert cards.count('"text": " †"') == len(d.themes) + 1
    assert " †" not in render_html(d) and " †" not in render_markdown(d)


def test_the_answer_schemas_are_strict_ones_the_api_accepts():
    for spec in (DIGEST_SCHEMA, SUMMARY_SCHEMA):
        assert schema_problem(spec) is None
    loose = {"name": "x", "strict": True, "schema": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert "additionalProperties" in schema_problem(loose)
    loose["schema"]["additionalProperties"] = False
    assert "Missing 'a'" in schema_problem(loose)
    assert "'default' is not permitted" in schema_problem({"name": "x", "strict": True, "schema": {
        "type": "object", "properties": {"a": {"type": "string", "default": ""}}, "required": ["a"],
        "additionalProperties": False}})
    assert schema_problem({"name": "bad name!", "schema": {"type": "object"}}).startswith("Invalid 'response_format")


def test_a_server_without_structured_output_gets_a_json_object_request(digests):
    d = digests["zh"]
    out, fake = run(d, [Reply(zh_answer(d))], structured=False)
    assert len(fake.rejected) == 1 and fake.rejected[0]["response_format"]["type"] == "json_schema"
    assert [r["response_format"] for r in fake.requests] == [{"type": "json_object"}]
    assert out.prose.source == "model"


def test_claims_are_read_one_item_at_a_time():
    assert claim_of({"text": " a ", "prs": [1], "facts": ["labels.bugfix"]}).facts == ("labels.bugfix",)
    assert claim_of({"text": "a", "prs": [1]}).facts is None  # no ids: the week-level facts and the PRs it names
    assert claim_of({"text": "a", "prs": ["1"]}) is None and claim_of({"prs": []}) is None and claim_of("a") is None
