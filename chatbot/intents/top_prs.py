"""Intent ``top_prs``: the week's key PRs by importance."""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card, top_prs_card
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class TopPRsQuery(QueryBase):
    """The week's key PRs."""

    intent: Literal["top_prs"] = "top_prs"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\btop(?: prs?| pull requests?)?\b|\bkey prs?\b|\bimportant prs?\b",), "zh": ("重点|重要",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> TopPRsQuery | None:
    """``top PRs``, ``key PRs``, ``重点PR``."""
    return TopPRsQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: TopPRsQuery, ctx: AnswerContext) -> Card:
    """The key-PRs card of the week."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    return top_prs_card(w.digest, report_url=w.report_url, limits=ctx.limits, notice=list(w.notice))


INTENT = Intent(name="top_prs", query=TopPRsQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=40, help={"en": "top PRs: the week's key PRs", "zh": "重点PR：本周重点 PR"})
