"""Section numbers, list ordinals and list items of chatbot/prose_check/tokens.py at their edges.

A heading's or list item's own number (``2.1 投机解码``, ``5. 重点 PR 速览``, ``第 2 节``, ``Top 5``)
numbers the text and states nothing about the week; a number in the same place that states a count
(``2.5 个 PR``, ``6.4 is the average``) or ``第 27 周`` stays a claim. Wrong changes this table
kills: ``ordinals`` left out of ``_masked`` (every heading number is checked as a count, as seed
001's headings were: "states 2.1 for 投机解码"), the ``_STATES_AFTER``/unit condition dropped
(``2.5 个 PR`` and ``6.4 is ...`` escape the number check), ``周`` added to the ordinal words.

List items (``items``) split a clause at ``、`` outside brackets, not between PR references, and a
clause with ``in_brackets=False`` does not split inside brackets: kills ``_split`` ignoring
``in_brackets`` (the comma in ``（12 PR，#47058）`` splits again) and ``_LIST_SEP`` without its
PR-reference exception (``#47058、#47283`` falls apart).
"""

from __future__ import annotations

import pytest

from chatbot.prose_check.tokens import clauses, items, numbers


@pytest.mark.parametrize("text, expected", [
    ("2.1 投机解码：从单一走向多元化", []),
    ("3.2 Bugfix与稳定性优先", []),
    ("5. 重点 PR 速览", []),
    ("1、执行摘要", []),
    ("- 2.4 注意力后端生态丰富", []),
    ("3.1 v1路径占比超70%", [("70%", "percent")]),
    ("2.5 个 PR", [("2.5", "prs")]),
    ("6.4 is the average importance", [("6.4", "")]),
    ("9.4 分", [("9.4", "")]),
    ("100. 执行摘要", [("100", "")]),
    ("本周 2.1 投机解码", [("2.1", "")]),
    ("12 PRs merged", [("12", "prs")]),
    ("见第 2 节", []),
    ("第 27 周", [("27", "week")]),
    ("Top 5 贡献者", []),
    ("top-3 authors", []),
], ids=["dotted-heading", "dotted-before-capital", "dot-item-before-unit", "dunhao-item", "bullet-heading",
        "ordinal-goes-claim-stays", "dotted-before-unit", "dotted-before-english-word", "dotted-before-score",
        "three-digits", "not-leading", "no-dot", "section-word", "week-is-a-claim", "top-n", "top-dash-n"])
def test_section_numbers_and_ordinals_are_no_numbers(text, expected):
    assert [(n.text, n.unit) for n in numbers(text)] == expected


@pytest.mark.parametrize("text, expected", [
    ("hmellor（12 PR，#47058）、BugenZhao（10，#47283）等活跃贡献。", ["hmellor（12 PR，#47058）", "BugenZhao（10，#47283）等活跃贡献"]),
    ("hmellor主导的系列重构（#47058、#44589）将加载逻辑抽离", ["hmellor主导的系列重构（#47058、#44589）将加载逻辑抽离"]),
    ("hmellor、BugenZhao 分别提交了 #47058、#47283。", ["hmellor", "BugenZhao 分别提交了 #47058、#47283"]),
    ("#47058 、 #44589 与 #47283（BugenZhao）", ["#47058 、 #44589 与 #47283（BugenZhao）"]),
    ("#46703 NCCL对称内存扩展（hmellor）：支持NVLS", ["#46703 NCCL对称内存扩展（hmellor）", "支持NVLS"]),
], ids=["comma-in-brackets", "dunhao-in-brackets", "dunhao-between-prs", "spaced-dunhao-between-prs", "colon"])
def test_list_items_keep_brackets_and_pr_groups_whole(text, expected):
    assert [text[a:b] for a, b in items(text)] == expected


def test_clauses_split_inside_brackets_unless_told_not_to():
    text = "hmellor（12 PR，#47058）、BugenZhao（10，#47283）"
    assert [text[a:b] for a, b in clauses(text)] == ["hmellor（12 PR", "#47058）、BugenZhao（10", "#47283）"]
    assert [text[a:b] for a, b in clauses(text, in_brackets=False)] == [text]
