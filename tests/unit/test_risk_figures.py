"""Issue 17's figures on the two real weeks with threads (W20, W27): the share of flagged PRs, the
risk observations, how often one PR is named, and the length and language of the zh Markdown.

Each figure is pinned on the real data, so a rule or template change that brings back the old
digest (112 of 217 W20 PRs flagged, 29 numbered risks, #46995 named 12 times, a 17.2k-character
zh Markdown) fails here. Skipped without ../shared.
"""

from __future__ import annotations

import re

import pytest

from benchmarks.seed_compare import pr_mentions, without_link_targets
from chatbot.render.markdown import render_markdown
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.conftest import thread_prs
from tests.digests import written_digest

WEEKS = {"2026-W20": (217, 52), "2026-W27": (247, 50)}
"""Week -> (PRs, PRs with a risk tag). Before issue 17: 112 and 110."""

_NAMED = re.compile(r"(?<![\w&])#(\d+)\b")


def _digest(week: str, lang: str):
    return written_digest(thread_prs(week), repo="vllm-project/vllm", week=IsoWeek.parse(week),
                          rules=shipped_rules("vllm"), lang=lang)


def _section(md: str, heading: str) -> str:
    return md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("week", WEEKS)
def test_at_most_a_quarter_of_the_weeks_prs_are_flagged(week):
    d = _digest(week, "en")
    total, flagged = WEEKS[week]
    assert d.total_prs == total
    assert sum(1 for p in d.prs if p.risk_tags) == flagged
    assert flagged <= total / 4


@pytest.mark.parametrize("week", WEEKS)
@pytest.mark.parametrize("lang,heading", [("en", "Risk observations"), ("zh", "风险观察")])
def test_at_most_eight_observations_of_one_sentence(week, lang, heading):
    d = _digest(week, lang)
    risks = _section(render_markdown(d), heading)
    numbered = re.findall(r"^(\d+)\. ", risks, re.M)
    assert 5 <= len(numbered) == len(d.risks) <= 8
    end = "." if lang == "en" else "。"
    for r in d.risks:
        assert r.detail.endswith(end) and end + " " not in r.detail[:-1], r.detail
        assert len(set(_NAMED.findall(r.detail))) <= 6  # three cited, each with the PR a fix or revert points at


@pytest.mark.parametrize("week", WEEKS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_pr_is_named_more_than_three_times(week, lang):
    d = _digest(week, lang)
    named = pr_mentions(render_markdown(d), {p.number for p in d.prs})
    assert max(named.values()) <= 3, named.most_common(3)


@pytest.mark.parametrize("week", WEEKS)
def test_zh_markdown_is_short_and_its_own_sentences_are_chinese(week):
    d = _digest(week, "zh")
    md = without_link_targets(render_markdown(d))
    assert len(md) <= 9000
    own = [r.detail for r in d.risks] + [r.text for r in d.recommendations] + [t.summary for t in d.themes]
    for text in own:  # the digest's words, PR numbers, paths, code and quoted PR words set aside
        words = re.sub(r"“[^”]*”|#\d+|[\w./-]*[/_.][\w./-]*|[+-][\d,]+|\d+", " ", text)
        letters = re.findall(r"[A-Za-z]|[\u4e00-\u9fff]", words)
        cjk = sum(1 for c in letters if "\u4e00" <= c <= "\u9fff")
        assert cjk >= 0.6 * len(letters), text


def test_w20_bot_findings_and_follow_ups_are_told_once():
    d = _digest("2026-W20", "en")
    kinds = [r.kind for r in d.risks]
    assert kinds.count("bot-review-flag") == 1 and kinds.count("follow-up-fix") == 1
    story = next(r.detail for r in d.risks if r.kind == "follow-up-fix")
    assert story.startswith("#39805 needed the fix #42706 the same week; "
                            "#41536 needed the fix #42320 the same week")
