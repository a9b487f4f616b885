"""Section numbers and list ordinals of chatbot/prose_check/tokens.py at their edges.

A heading's or list item's own number (``2.1 投机解码``, ``5. 重点 PR 速览``, ``第 2 节``, ``Top 5``)
numbers the text and states nothing about the week; a number in the same place that states a count
(``2.5 个 PR``, ``6.4 is the average``) or ``第 27 周`` stays a claim. Wrong changes this table
kills: ``ordinals`` left out of ``_masked`` (every heading number is checked as a count, as seed
001's headings were: "states 2.1 for 投机解码"), the ``_STATES_AFTER``/unit condition dropped
(``2.5 个 PR`` and ``6.4 is ...`` escape the number check), ``周`` added to the ordinal words.
"""

from __future__ import annotations

import pytest

from chatbot.prose_check.tokens import numbers


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
