"""Adding a risk rule is one module plus one registry line: a rule written as a new module (here in
a temporary directory) and added with ``RISKS.with_rule(...)`` is found, scored, grouped, written in
both languages and rendered in every output, with nothing else changed."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from adapters.feishu.messages import cards_to_feishu
from adapters.slack.messages import card_to_messages
from chatbot.cards import digest_cards
from tests.digests import written_digest
from tests.plugin import load_module
from chatbot.models import Author, FileChange, PullRequest
from chatbot.render.html import render_html
from chatbot.render.markdown import render_markdown
from chatbot.risks import RISKS, RiskRegistry
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek

RULE_MODULE = '''
"""``todo-left``: the title says TODO (a toy rule for the registry test)."""

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


def check(ctx: RiskContext) -> RiskFinding | None:
    if "TODO" not in ctx.pr.title:
        return None
    return RiskFinding(tag="todo-left", reason=phrase("reason.todo_left", n=ctx.pr.title.count("TODO")))


RULE = RiskRule(tag="todo-left", check=check, texts={
    "en": {"risk.todo-left": "TODO left", "reason.todo_left": "{n} TODO(s) in the title",
           "rec.todo-left": "Open issues for the TODOs of {prs}."},
    "zh": {"risk.todo-left": "遗留 TODO", "reason.todo_left": "标题中有 {n} 个 TODO",
           "rec.todo-left": "为 {prs} 的 TODO 建立 issue。"},
})
'''


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> RiskRegistry:
    mod = load_module(tmp_path_factory.mktemp("plugin"), "todo_left", RULE_MODULE)
    return RISKS.with_rule(mod.RULE)  # the registry line


def _prs():
    at = datetime(2026, 5, 12, 9, tzinfo=timezone.utc)
    files = (FileChange(path="vllm/entrypoints/api_server.py", additions=5, deletions=1),)
    return [PullRequest(number=n, title=t, url=f"https://github.com/vllm-project/vllm/pull/{n}", author=Author(login="a"),
                        merged_at=at, files=files, additions=5, deletions=1, changed_files=1)
            for n, t in ((1, "Add route, TODO: auth TODO"), (2, "Add route"))]


def _digest(registry, lang="en"):
    return written_digest(_prs(), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"),
                        rules=shipped_rules("vllm"), lang=lang, risks=registry)


def test_the_new_rule_is_found_scored_and_written(registry):
    d = _digest(registry)
    by = {p.number: p for p in d.prs}
    assert by[1].risk_tags == ("todo-left",) and by[2].risk_tags == ()
    assert by[1].risk_reasons == {"todo-left": "2 TODOs in the title"}  # English count words: "{n} x(s)"
    assert round(by[1].importance - by[2].importance, 1) == 0.4  # counts_for_importance: one risk tag
    assert d.risk_tag_counts == {"todo-left": 1}
    assert [(r.kind, r.prs) for r in d.risks] == [("todo-left", (1,))]
    # its own rec.<tag> text; {prs} refers to the observation (#1 is named in the storyline and the
    # observation already, and the first recommendation is repeated by the takeaways)
    assert d.recommendations[0].text == "Open issues for the TODOs of the PR of risk 1."  # one PR: "the PR"
    # no obs.<tag> text: the generic observation sentence names it, its count and its first PR's reason
    assert d.risks[0].detail == "TODO left: 1 PR (#1: 2 TODOs in the title)."
    zh = _digest(registry, "zh")
    assert {p.number: p.risk_reasons for p in zh.prs}[1] == {"todo-left": "标题中有 2 个 TODO"}


def test_every_output_shows_it(registry):
    d = _digest(registry)
    assert "TODO left" in render_markdown(d)
    assert "TODO left" in render_html(d)
    cards = digest_cards(d)
    assert "TODO left" in json.dumps(card_to_messages(cards))
    assert "TODO left" in json.dumps(cards_to_feishu(cards), ensure_ascii=False)


def test_the_shipped_registry_is_unchanged_and_tags_are_unique(registry):
    assert "todo-left" not in RISKS.order and registry.order == (*RISKS.order, "todo-left")
    with pytest.raises(ValueError, match="given twice"):
        registry.with_rule(registry.by_tag["todo-left"])


def test_rules_carry_their_chat_words_in_the_order_chat_reads_them():
    from dataclasses import replace

    from chatbot.queries import parse

    assert [t for t, _ in RISKS.tag_words] == ["revert", "security-sensitive", "tests-removed", "missing-tests",
                                               "large-change", "dependency-change", "follow-up-fix"]
    assert RISKS.by_tag["follow-up-fix"].words == {"en": r"\bfollow[- ]?up fix(?:es)?\b|\bhotfix(?:es)?\b",
                                                   "zh": "紧急修复|后续修复"}
    # the first tag named is asked about: large-change's words are read before dependency-change's
    assert parse("big changes and dependency bumps").model_dump()["tag"] == "large-change"
    assert parse("哪些 PR 删了测试").model_dump()["tag"] == "tests-removed"
    loose = RiskRegistry(*(replace(r, words_before=()) for r in RISKS))
    assert [t for t, _ in loose.tag_words][-3:] == ["missing-tests", "dependency-change", "large-change"]
    large = RISKS.by_tag["large-change"]
    with pytest.raises(ValueError, match=r"risk tag with words 'large-change': before='core-path-change' names no "
                                         r"other risk tag with words"):  # core-path-change has no chat words
        RiskRegistry(*(replace(r, words_before=("core-path-change",)) if r is large else r for r in RISKS))
    with pytest.raises(ValueError, match=r"precedence has a cycle: dependency-change before follow-up-fix before "
                                         r"large-change before dependency-change"):
        RiskRegistry(*(replace(r, words_before=("large-change",)) if r.tag == "follow-up-fix" else r for r in RISKS))
