"""Chat filters on the real weeks 2026-W19/W20 (``prhub ask`` in process, now = the newest merge):
risk tags by name in English and Chinese, optionally in a module; authors by login or display
name; the "so far" line of the current week. Counts are pinned and cross-checked with the digest's
own risk-tag counts."""

from __future__ import annotations

import json
import re

import pytest

from prhub.chat import ask
from tests.conftest import shared_file


@pytest.fixture(scope="module")
def weeks():
    return [str(shared_file("vllm", "2026-W19.json")), str(shared_file("vllm", "2026-W20.json"))]


def run(q, weeks, fmt="text", **kw):
    return ask(q, inputs=weeks, sample=False, repo=None, rules_file=None, tz="UTC", lang=None, fmt=fmt, **kw)


def digest_counts(weeks, week):
    from typer.testing import CliRunner

    from prhub.cli import app

    r = CliRunner().invoke(app, ["digest", *sum((["--input", w] for w in weeks), []), "--week", week, "--format", "json"])
    return json.loads(r.stdout)


@pytest.mark.parametrize("query, header, line", [
    # W19's only revert, #41618, touches mkdocs.yaml alone and W20's #42145 is a docs page: docs-only PRs
    # carry no revert or security tag (issue 11), but the revert is a fact: listed, without advice.
    ("what got reverted last week", "revert · vllm-project/vllm 2026-W19", "1 of 199 PRs."),
    ("本周安全相关的 PR", "安全相关 · vllm-project/vllm 2026-W20", "共 217 个 PR 中有 1 个。"),
    ("哪些 PR 删了测试", "删除测试 · vllm-project/vllm 2026-W20", "2026-W20 没有删除测试的 PR。"),
    ("large changes", "large change · vllm-project/vllm 2026-W20", "13 of 217 PRs."),
    ("dependencies this week", "dependency change · vllm-project/vllm 2026-W20", "11 of 217 PRs."),
    ("rocm risks", "risk tags in ROCm · vllm-project/vllm 2026-W20", "3 of 217 PRs."),  # the topic, not all platforms
    ("what did Michael Goin merge", "PRs by Michael Goin · 2026-W20", "7 of 217 PRs."),
    # several modules, a topic, an author: the filter is applied, never dropped
    ("kv-connector 和 ROCm 上周的风险", "KV 传输/卸载、ROCm 中的风险标签 · vllm-project/vllm 2026-W19", "共 199 个 PR 中有 6 个。"),
    ("large changes in moe and quantization", "large change in MoE, quantization · vllm-project/vllm 2026-W20",
     "5 of 217 PRs."),
    ("DeepSeek V4 risks", "risk tags in DeepSeek-V4 · vllm-project/vllm 2026-W20", "5 of 217 PRs."),
    ("risks by Michael Goin", "risk tags by Michael Goin · vllm-project/vllm 2026-W20",
     "No PRs with risk tags by Michael Goin in 2026-W20."),
    ("reverts in nosuchmodule", "revert · vllm-project/vllm 2026-W20", "Ignored “nosuchmodule”: no module, topic or author of that name."),
])
def test_filters_answer_with_pinned_counts(weeks, query, header, line):
    out = run(query, weeks)
    assert out.splitlines()[0] == header
    assert line in out


def test_tag_counts_match_the_digest(weeks):
    d20 = digest_counts(weeks, "2026-W20")
    assert d20["risk_tag_counts"]["security-sensitive"] == 1
    assert d20["risk_tag_counts"].get("tests-removed") is None  # net test lines only (issue 17)
    assert d20["risk_tag_counts"]["large-change"] == 13
    assert d20["risk_tag_counts"]["dependency-change"] == 11
    assert digest_counts(weeks, "2026-W19")["risk_tag_counts"].get("revert") is None
    listed = [int(n) for n in re.findall(r"#(\d+)", run("本周安全相关的 PR", weeks))]
    secure = {p["number"] for p in d20["prs"] if "security-sensitive" in p["risk_tags"]}
    assert set(listed) == secure == {42594}
    goin = {p["number"] for p in d20["prs"] if p["author"] == "Michael Goin"}
    assert {int(n) for n in re.findall(r"#(\d+)", run("what did Michael Goin merge", weeks))} == goin


def test_the_current_week_says_so_far_only_while_it_is_not_over(weeks):
    from datetime import datetime, timezone

    def at(*ymdhms):
        return lambda: datetime(*ymdhms, tzinfo=timezone.utc)

    out = run("risks this week", weeks, clock=at(2026, 5, 17, 23, 59, 59))  # the last second of W20
    assert "2026-W20 so far, as of " in out and "(UTC)." in out
    assert "so far" not in run("risks 2026-W19", weeks, clock=at(2026, 5, 17, 23, 59, 59))
    # the real clock (or any instant from Monday of W21 on): an exported week that is over is not "so far"
    assert "so far" not in run("risks this week", weeks, clock=at(2026, 5, 18))
    assert "so far" not in run("risks this week", weeks)


def test_unknown_author_and_ambiguous_part(weeks):
    assert "Nobody called “nosuchperson” merged a PR in 2026-W20." in run("PRs by nosuchperson", weeks)
    out = run("what did michael merge", weeks)
    assert "Michael Goin" in out


def test_ask_format_json_names_the_intent_week_and_cited_prs(weeks):
    d20 = digest_counts(weeks, "2026-W20")
    out = json.loads(run("本周安全相关的 PR", weeks, fmt="json"))
    secure = [p["number"] for p in d20["prs"] if "security-sensitive" in p["risk_tags"]]
    assert (out["intent"], out["repo"], out["week"]) == ("risk_tag", "vllm-project/vllm", "2026-W20")
    assert sorted(out["prs"]) == sorted(secure) and out["card"]["header"].startswith("安全相关")
    last = json.loads(run("what got reverted last week", weeks, fmt="json"))
    assert (last["intent"], last["week"], last["prs"]) == ("risk_tag", "2026-W19", [41618])
    pr = json.loads(run("PR #42202", weeks, fmt="json"))
    assert pr["intent"] == "pr_lookup" and pr["prs"][0] == 42202
    nothing = json.loads(run("blah blah", weeks, fmt="json"))
    assert (nothing["intent"], nothing["week"], nothing["prs"]) == ("search", "2026-W20", [])  # searched, never help


def test_out_of_range_pr_numbers_are_no_such_pr(weeks):
    out = run("PR #99999999999999999999", weeks)
    assert out.splitlines()[0] == "No such PR" and "GitHub numbers stop at 2,147,483,647" in out
    assert json.loads(run("PR #2147483648", weeks, fmt="json"))["intent"] == "pr_lookup"
    at_limit = run("PR #2147483647", weeks)  # the largest possible number is looked up
    assert "PR #2147483647 is not among the stored PRs, merged from 2026-W19 to 2026-W20." in at_limit


def test_help_examples_name_prs_that_exist(weeks):
    help_text = run("help", weeks)
    numbers = [int(n) for n in re.findall(r"#(\d+)", help_text)]
    assert numbers == [42202]
    assert run("PR #42202", weeks).splitlines()[0] == "PR #42202"


@pytest.mark.parametrize("query", ["compare this week with last week", "比上周", "趋势"])
def test_comparisons_are_the_trends_answer(weeks, query):
    assert json.loads(run(query, weeks, fmt="json"))["intent"] == "trends"


def test_risks_vs_last_week_compares_the_two_weeks_risks(weeks):
    out = json.loads(run("risks vs last week", weeks, fmt="json"))
    assert (out["intent"], out["card"]["header"]) == ("compare", "2026-W19 vs 2026-W20 · vllm-project/vllm")
    assert "Change: +18 PRs, +4 with risk tags." in run("risks vs last week", weeks)
