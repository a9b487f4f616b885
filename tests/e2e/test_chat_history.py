"""Chat answers that read the stored history beyond one week (``prhub ask`` in process on the real
weeks 2026-W15..W20, now = the newest merge): a PR by number in any stored week with the PR it
reverts and the revert that reverted it, new contributors with how far back the history goes,
PRs by changed path, "top N", and the trends header's count word."""

from __future__ import annotations

import json

import pytest

from chatbot.queries import DigestCache
from prhub.chat import ask, ask_cache
from tests.conftest import shared_file, week_prs


@pytest.fixture(scope="module")
def weeks(vllm_rules):
    """The six weeks read once (``prhub ask`` reads its files, then answers with :func:`ask_cache`)."""
    prs = [p for n in range(15, 21) for p in week_prs(f"2026-W{n}")]
    return DigestCache(prs, repo="vllm-project/vllm", rules=vllm_rules), vllm_rules


def run(q, weeks, fmt="json"):
    provider, rules = weeks
    out = ask_cache(q, provider, rules=rules, tz="UTC", lang=None, fmt=fmt)
    return json.loads(out) if fmt == "json" else out


def test_a_pr_of_an_older_week_with_its_revert_links(weeks):
    # #41353 (W18) was reverted by #41618 (W19), whose title quotes it without a number
    old = run("PR #41353", weeks)
    assert old["intent"] == "pr_lookup" and old["prs"] == [41353, 41618]
    assert "Merged: 2026-" in run("PR #41353", weeks, "text") and "· 2026-W18" in run("PR #41353", weeks, "text")
    rev = run("PR #41618", weeks, "text")
    assert "Reverts #41353" in rev and "2026-W19" in rev
    # #39917 (W19) reverted a week later by #42434 (W20, "Revert ... (#39917)")
    assert run("PR #39917", weeks)["prs"] == [39917, 42434]
    assert "已被 #42434" in run("PR #39917 是什么", weeks, "text")


def test_a_pr_outside_the_store_names_the_stored_range(weeks):
    out = run("PR #12", weeks, "text")
    assert "PR #12 is not among the stored PRs, merged from 2026-W15 to 2026-W20." in out


def test_new_contributors_state_how_far_back_the_history_goes(weeks):
    out = run("any new contributors?", weeks)
    assert (out["intent"], out["week"]) == ("new_contributors", "2026-W20")
    text = run("any new contributors?", weeks, "text")
    assert "reaches back to 2026-W15 (5 weeks before 2026-W20)" in text
    assert "57 of 137 authors merged their first PR:" in text
    assert "• frida-andersson: #41825" in text  # most PRs first
    zh = run("上周的新贡献者", weeks, "text")
    assert "2026-W19 之前 4 周" in zh and "132 位作者中有 56 位首次合并 PR" in zh
    # the oldest stored week has nothing before it: nobody is called new
    first = run("new contributors 2026-W15", weeks)
    assert first["prs"] == [] and "The store holds nothing before 2026-W15" in run("new contributors 2026-W15", weeks, "text")


@pytest.mark.parametrize("query, n, first", [
    ("PRs touching vllm/v1/worker", 27, 41035),
    ("改了 vllm/v1/worker 的 PR", 27, 41035),
    ("PRs touching vllm/v1/worker/gpu_model_runner.py", 8, 39949),
    ("PRs touching CMakeLists.txt", 3, 42339),
    ("PRs touching v1/worker", 27, 41035),  # not from the root: found deeper
    ("PRs touching vllm/v1/work", 0, None),  # a prefix ends at a directory boundary
])
def test_prs_by_changed_path(weeks, query, n, first):
    out = run(query, weeks)
    assert (out["intent"], out["week"]) == ("paths", "2026-W20")
    assert len(out["prs"]) == min(n, 10) and (out["prs"][:1] == [first] if first else out["prs"] == [])
    text = run(query, weeks, "text")
    assert (f"{n} of 217 PRs." in text or f"共 217 个 PR 中有 {n} 个。" in text) if n else "No PR changed" in text


def test_top_n_lists_n_and_the_trends_header_counts_weeks(weeks):
    assert run("top 5 PRs", weeks)["prs"] == [41035, 41946, 42339, 39949, 39568]
    assert len(run("前 3 个重点 PR", weeks)["prs"]) == 3
    assert len(run("top PRs", weeks)["prs"]) == 10
    assert run("trends 2 weeks", weeks)["card"]["header"] == "Trends · vllm-project/vllm · 2 weeks"
    one = ask("trends", inputs=[str(shared_file("vllm", "2026-W20.json"))], sample=False, repo=None, rules_file=None,
              tz="UTC", lang=None, fmt="text")
    assert one.splitlines()[0] == "Trends · vllm-project/vllm · 1 week"


@pytest.mark.parametrize("query, total, first", [
    ("Kimi changes", 3, [42081, 41778, 42616]),  # topic Kimi in two titles, a kimi_audio.py path in the third
    ("DeepSeek V4", 13, [42810, 42320, 42342]),
    ("Qwen3", 13, [42151, 42716, 42394]),
    ("what changed in qwen3", 13, [42151, 42716, 42394]),  # no module qwen3: searched, not "no module"
    ("搜索 量化", 19, [42339, 42334, 38288]),  # importance order (newsworthiness counted)
])
def test_topics_and_free_text_are_a_ranked_search(weeks, query, total, first):
    out = run(query, weeks)
    assert (out["intent"], out["week"]) == ("search", "2026-W20")
    assert out["prs"][:3] == first and len(out["prs"]) == min(total, 10)
    text = run(query, weeks, "text")
    assert f"{total} of 217 PRs." in text or f"共 217 个 PR 中有 {total} 个。" in text


def test_search_ranks_topic_titles_above_path_only_matches(weeks):
    text = run("Kimi changes", weeks, "text")
    assert text.index("#41778") < text.index("#42616")  # 'topic Kimi' (6+) before a path match (2)
    assert "topic Kimi" in text and "vllm/model_executor/models/kimi_audio.py" in text


def test_did_you_mean_and_never_the_help_card_when_nothing_is_found(weeks):
    near = run("qwen4", weeks)
    assert near["intent"] == "search" and near["prs"] == []
    assert "Did you mean: Qwen3?" in run("qwen4", weeks, "text")
    assert "Did you mean: DeepSeek V4, DeepSeek?" in run("deepseek v5", weeks, "text")
    for nothing, words in (("blah blah", "blah"), ("what is the weather", "weather")):
        out = run(nothing, weeks)
        assert (out["intent"], out["prs"]) == ("search", [])
        text = run(nothing, weeks, "text")  # the best reading, offering others: not the help card
        assert f"I read this as a search (“{words}”) — or did you mean: the week's summary / key PRs" in text
        assert "I did not understand that" not in text
    explicit = run("search weather", weeks)  # asked to search: a search answer, with title-word suggestions
    assert explicit["intent"] == "search" and "Did you mean: gather?" in run("search weather", weeks, "text")


def test_summary_is_one_compact_card_that_promises_no_parts(weeks):
    out = run("summary", weeks)
    card = out["card"]
    assert (out["intent"], card["part"], card["parts"]) == ("summary", 1, 1)
    text = run("summary", weeks, "text")
    assert "follow in the thread" not in text and "more parts" not in text
    assert text.rstrip().endswith("More: ask “risks” for the risk observations and “top PRs” for the key PRs.")
    zh = run("周报", weeks, "text")
    assert "部分" not in zh and "更多：问“风险”看风险观察" in zh
