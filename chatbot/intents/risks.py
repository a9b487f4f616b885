"""Intent ``risks``: the PRs of a week that carry risk tags, with their reasons."""

from __future__ import annotations

from typing import Literal

from chatbot.buttons import ButtonContext, week_action
from chatbot.cards import Button, Card, risks_card
from chatbot.entities import RISK_EN, RISK_ZH
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class RisksQuery(QueryBase):
    """PRs carrying risk tags in a week."""

    intent: Literal["risks"] = "risks"
    week: WeekRef = "current"


PATTERNS = {"en": (RISK_EN,), "zh": (RISK_ZH,)}
"""The risk words (:data:`chatbot.entities.RISK_WORDS`)."""
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> RisksQuery | None:
    """``risks [this week | last week | 2026-W19]``, ``本周风险``."""
    return RisksQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: RisksQuery, ctx: AnswerContext) -> Card:
    """The risks card of the week (or last week when nothing is merged yet)."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    return risks_card(w.digest, report_url=w.report_url, limits=ctx.limits, notice=list(w.notice))


def buttons(q: RisksQuery, b: ButtonContext) -> list[Button]:
    """◀ Previous week · Next week ▶ (the ``risks`` action)."""
    return b.weeks("risks")


INTENT = Intent(name="risks", query=RisksQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=10,
                help={"en": "risks [this week | last week | 2026-W19]: PRs carrying risk tags, with reasons",
                      "zh": "本周风险 / 上周风险 / 风险 2026-W19：带风险标签的 PR 及原因"},
                before=("author",), actions={"risks": week_action(RisksQuery)}, buttons=buttons)
