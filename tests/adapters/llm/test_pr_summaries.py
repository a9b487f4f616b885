"""Per-PR summaries of the LLM writer: the real ``openai`` client, the scripted fake server counting
calls, and the real store (SQLite) as the summary cache keyed by (PR, content hash, model)."""

from __future__ import annotations

import json

import pytest

from adapters.llm.client import OpenAIModelClient
from adapters.storage import SqlStore
from chatbot.render.markdown import render_markdown
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from chatbot.writer import write_digest, write_summaries
from prhub.clock import SYSTEM_CLOCK
from tests.conftest import thread_prs
from tests.digests import written_digest
from tests.fakes.openai_server import Answer, FakeOpenAI, Reply

MODEL = "Qwen/Qwen3-8B"
WEEK = IsoWeek(2026, 20)


def facts_of(body: dict) -> dict:
    """The JSON the writer sent (the user message up to any retry complaints)."""
    return json.loads(body["messages"][1]["content"].split("\n\nYour previous answer")[0])


def summary_answer(body: dict) -> str:
    """A per-PR answer made only of the entry's facts; the digest-prose request gets a good answer too."""
    facts = facts_of(body)
    if "number" not in facts:  # the digest fact sheet
        th = facts["storylines"]
        zh = facts["language"] == "zh"
        head = f"2026-W20 共合并 {facts['merged_prs']} 个 PR。" if zh else f"{facts['merged_prs']} PRs merged in 2026-W20."
        return json.dumps({"headline": {"text": head, "prs": []},
                           "storylines": [{"id": t["id"], "text": f"#{t['prs'][0]} 领衔。" if zh else f"#{t['prs'][0]} leads it.",
                                           "prs": [t["prs"][0]]} for t in th],
                           "trend": {"text": "模型支持的 PR 最多。" if zh else "Model support had the most PRs.", "prs": []},
                           "recommendations": []})
    n = facts["number"]
    text = (f"#{n} 改动了{facts['modules'][0]}，由模型撰写。" if facts["language"] == "zh"
            else f"#{n} changes {facts['modules'][0]}, by the model.")
    return json.dumps({"summary": {"text": text, "prs": [n]}})


def digest(prs=None, lang="en"):
    return written_digest(prs if prs is not None else thread_prs(), repo="vllm-project/vllm", week=WEEK,
                          rules=shipped_rules("vllm"), lang=lang)


@pytest.fixture
def store(tmp_path):
    s = SqlStore.open(f"sqlite:///{tmp_path / 'prhub.db'}", clock=SYSTEM_CLOCK)
    yield s
    s.close()


def summarize(d, store, model=MODEL, script=None):
    with FakeOpenAI(script or [Answer(summary_answer)]) as fake:
        client = OpenAIModelClient(fake.base_url, model, "sk-test", timeout_s=5.0)
        out, stats = write_summaries(d, client, cache=store)
        return out, stats, len(fake.requests)


def test_first_run_n_calls_rerun_zero_a_changed_pr_one_another_model_n(store):
    d = digest()
    n = len(d.key_prs)
    assert n == 24
    first, stats, calls = summarize(d, store)
    assert calls == n and stats.kept == n and stats.cached == 0
    assert (stats.prompt_tokens, stats.completion_tokens) == (200 * n, 40 * n)
    assert first[d.key_prs[0].number] == f"#{d.key_prs[0].number} changes {d.module_names[d.key_prs[0].modules[0]]}, by the model."

    again, stats, calls = summarize(d, store)
    assert calls == 0 and again == first and stats.cached == n and stats.prompt_tokens == 0

    target = next(p.number for p in d.key_prs[3:] if not p.is_revert)  # a revert's gist is its boilerplate
    changed = [p.model_copy(update={"body": (p.body or "") + "\n\nAlso fixes the warm-up path."}) if p.number == target else p
               for p in thread_prs()]
    d2 = digest(changed)
    assert [p.number for p in d2.key_prs] == [p.number for p in d.key_prs]
    assert next(p for p in d2.key_prs if p.number == target).gist != next(p for p in d.key_prs if p.number == target).gist
    _, stats, calls = summarize(d2, store)
    assert calls == 1 and stats.cached == n - 1

    _, _, calls = summarize(d, store, model="deepseek-chat")
    assert calls == n


def test_a_summary_failing_the_check_keeps_the_extractive_gist(store):
    d = digest()
    bad = json.dumps({"summary": {"text": "A 75% speed-up, see #99999.", "prs": [99999]}})
    out, stats, calls = summarize(d, store, script=[Reply(bad)])
    assert calls == 2 * len(d.key_prs)  # one retry each, with the complaints
    assert out == {} and stats.rules == len(d.key_prs) and stats.kept == 0
    assert store.get_summary(f"pr:vllm-project/vllm#{d.key_prs[0].number}:en", "x", MODEL) is None


def test_write_digest_shows_the_summaries_as_gists_and_a_rerun_costs_nothing(store):
    for lang, note in (("en", "† 33 sentences by Qwen/Qwen3-8B, numbers and PR references checked against the facts; "
                              "0 replaced by rule text."),
                       ("zh", "† 33 句由 Qwen/Qwen3-8B 撰写，其数字与 PR 引用已对照事实核对；0 句未通过核对，已改用规则文字。")):
        d = digest(lang=lang)
        steps: list[tuple[int, int]] = []
        with FakeOpenAI([Answer(summary_answer)]) as fake:
            client = OpenAIModelClient(fake.base_url, MODEL, "sk-test", timeout_s=5.0)
            out = write_digest(d, client, cache=store, max_input_tokens=16000, progress=lambda a, b: steps.append((a, b)))
            again = write_digest(d, client, cache=store, max_input_tokens=16000)
            assert len(fake.requests) == len(d.key_prs) + 1
        assert steps[0] == (1, 25) and steps[-1] == (25, 25) and len(steps) == 25
        info = out.prose
        assert info.source == "model" and info.summaries == 24 and info.summaries_rules == 0
        assert (info.prompt_tokens, info.completion_tokens) == (200 * 25, 40 * 25) and not info.cached
        assert again.prose.cached and again.prose.prompt_tokens == 0 and again.prose.summaries_cached == 24
        assert render_markdown(again) == render_markdown(out)
        top = out.key_prs[0]
        assert top.gist_source == "model" and top.gist.startswith(f"#{top.number} 改动了" if lang == "zh" else f"#{top.number} changes ")
        assert out.prs == tuple(p if p.number not in {k.number for k in out.key_prs} else next(k for k in out.key_prs if k.number == p.number)
                                for p in out.prs)
        md = render_markdown(out)
        told = {n for th in out.themes for n in th.prs}  # storyline PRs are told in the highlights, not the table
        row = next(p for p in out.key_prs if p.number not in told)
        assert row.gist_source == "model" and f"| {row.gist} † |" in md.replace("\\", "") and note in md
        assert [p.gist for p in d.key_prs] != [p.gist for p in out.key_prs]  # the rule digest keeps its gists
        assert all(p.gist_source != "model" for p in d.prs)


def test_progress_bar_on_a_terminal_only():
    import io

    from prhub.progress import steps_progress

    piped = io.StringIO()
    with steps_progress("vllm-project/vllm 2026-W20 qwen3", stream=piped) as cb:
        assert cb is None  # not a terminal: no bar, stderr stays as it is
    assert piped.getvalue() == ""
    tty = io.StringIO()
    spent = [0, 0]
    with steps_progress("vllm-project/vllm 2026-W20 qwen3", stream=tty, tty=True,
                        spent=lambda: (spent[0], spent[1])) as cb:
        assert cb is not None
        for i in range(1, 26):
            spent[0], spent[1] = i, 240 * i
            cb(i, 25)
    assert "25/25" in tty.getvalue() and "steps · 25 calls · 6,000 tok" in tty.getvalue()


def test_cards_show_the_model_summaries_and_who_wrote_them(store):
    from chatbot.cards import digest_cards

    d = digest(lang="zh")
    with FakeOpenAI([Answer(summary_answer)]) as fake:
        client = OpenAIModelClient(fake.base_url, MODEL, "sk-test", timeout_s=5.0)
        out = write_digest(d, client, cache=store, max_input_tokens=16000)
    text = "".join(c.model_dump_json() for c in digest_cards(out))
    assert "† 33 句由 Qwen/Qwen3-8B 撰写，其数字与 PR 引用已对照事实核对；0 句未通过核对" in text
    shown = [p for p in out.key_prs if p.gist in text]
    assert shown and all(p.gist_source == "model" for p in shown)
    rule_text = "".join(c.model_dump_json() for c in digest_cards(d))
    assert MODEL not in rule_text and not any(p.gist in rule_text for p in out.key_prs)
