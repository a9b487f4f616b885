"""Review findings: real gemini-code-assist excerpts from the threads W20; codex and coderabbit
in their real markup (synthetic text, since the week has no such findings)."""

from __future__ import annotations

import pytest

from chatbot.errors import RulesError
from chatbot.models import Comment, PullRequest, Review, ReviewThread
from chatbot.review_findings import QUOTE_MAX, review_findings
from chatbot.rules import parse_rules, shipped_rules
from tests.conftest import thread_prs

RULES = shipped_rules("vllm").review_findings

CODEX_P1 = ("**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  "
            "Guard against an empty block table**\n\nWhen `num_blocks` is 0 the kernel reads `block_table[0]` out of "
            "bounds.\n\nUseful? React with 👍 / 👎.")
CODEX_P2 = CODEX_P1.replace("P1 Badge", "P2 Badge").replace("P1-orange", "P2-yellow")
RABBIT_MAJOR = ("_⚠️ Potential issue_ | _🟠 Major_\n\n**Off-by-one in the chunk limit check.**\n\n"
                "`pre_trim_total > chunk_limit` lets a chunk exceed the budget by one token.\n\n<details>\n"
                "<summary>🤖 Prompt for AI Agents</summary>\n\n```\nIn vllm/x.py around line 10\n```\n</details>")
RABBIT_MINOR = RABBIT_MAJOR.replace("_🟠 Major_", "_🟡 Minor_")


def pr_with(*threads: ReviewThread, reviews: tuple[Review, ...] = ()) -> PullRequest:
    return PullRequest(number=7, title="t", merged_at="2026-05-12T00:00:00Z", review_threads=threads, reviews=reviews)


def bot_thread(bot: str, body: str, **kw) -> ReviewThread:
    return ReviewThread(path="vllm/x.py", line=10, comments=(Comment(author=bot, is_bot=True, body=body),), **kw)


def test_every_high_or_critical_gemini_finding_of_w20():
    found = [f for p in thread_prs() for f in review_findings(p, RULES)]
    assert len(found) == 21
    assert sorted(f.pr for f in found if f.severity == "critical") == [35859, 42434]
    assert {f.bot for f in found} == {"gemini-code-assist[bot]"}
    assert all(len(f.quote) <= QUOTE_MAX and "gstatic" not in f.quote and "svg" not in f.quote for f in found)
    by_pr = {f.pr: f for f in found}
    f = by_pr[41429]
    assert (f.path, f.line, f.quote) == ("vllm/v1/sample/sampler.py", 188,
                                         "Hardcoding pin_memory=True can cause issues on WSL environments.")
    assert by_pr[42434].quote.startswith("The revert removes the assignment of moe_layer_id to FusedMoE instances")
    assert (by_pr[41727].path, by_pr[41727].line) == ("vllm/v1/kv_offload/base.py", None)  # no line: path alone
    assert by_pr[35859].quote == ""  # the excerpt stops after the badge
    assert 42150 not in by_pr  # a codex P2 is not a risk


def test_codex_p0_p1_and_coderabbit_major_critical_in_their_markup():
    pr = pr_with(bot_thread("chatgpt-codex-connector[bot]", CODEX_P1), bot_thread("chatgpt-codex-connector[bot]", CODEX_P2),
                 bot_thread("coderabbitai[bot]", RABBIT_MAJOR), bot_thread("coderabbitai[bot]", RABBIT_MINOR),
                 bot_thread("coderabbitai[bot]", RABBIT_MAJOR.replace("🟠 Major", "🔴 Critical")))
    got = [(f.bot, f.severity, f.quote) for f in review_findings(pr, RULES)]
    assert got == [
        ("coderabbitai[bot]", "Critical", "Off-by-one in the chunk limit check. pre_trim_total > chunk_limit lets a chunk exceed the budget by one token."),
        ("chatgpt-codex-connector[bot]", "P1", "Guard against an empty block table. When num_blocks is 0 the kernel reads block_table[0] out of bounds."),
        ("coderabbitai[bot]", "Major", "Off-by-one in the chunk limit check. pre_trim_total > chunk_limit lets a chunk exceed the budget by one token."),
    ]


def test_resolved_or_outdated_threads_do_not_count_but_unknown_state_does():
    body = "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nDivides by zero."
    bot = "gemini-code-assist[bot]"
    assert review_findings(pr_with(bot_thread(bot, body, is_resolved=True, is_outdated=False)), RULES) == ()
    assert review_findings(pr_with(bot_thread(bot, body, is_resolved=False, is_outdated=True)), RULES) == ()
    assert len(review_findings(pr_with(bot_thread(bot, body, is_resolved=False, is_outdated=False)), RULES)) == 1
    assert len(review_findings(pr_with(bot_thread(bot, body)), RULES)) == 1
    # a human quoting the badge is not the bot; a bot review body counts, with no path
    assert review_findings(pr_with(bot_thread("alice", body)), RULES) == ()
    (f,) = review_findings(pr_with(reviews=(Review(reviewer=bot, is_bot=True, body=body),)), RULES)
    assert (f.path, f.line, f.quote) == (None, None, "Divides by zero.")


def test_finding_rules_come_from_the_rules_file():
    rules = parse_rules("review_findings:\n  - bot: acme-review[bot]\n    severity: 'Severity: (?P<severity>\\w+)'\n"
                        "    report: [blocker]\n", "<test>")
    pr = pr_with(bot_thread("acme-review[bot]", "Severity: BLOCKER\n\nLeaks a file handle."))
    assert [f.quote for f in review_findings(pr, rules.review_findings)] == ["Leaks a file handle."]
    with pytest.raises(RulesError, match=r"review_findings\.0\.severity: pattern .* has no \(\?P<severity>"):
        parse_rules("review_findings:\n  - {bot: x, severity: 'high', report: [high]}\n", "<test>")
