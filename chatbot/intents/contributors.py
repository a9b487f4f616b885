"""Intent ``contributors``: the week's most active authors (bots excluded)."""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card, contributors_card
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class ContributorsQuery(QueryBase):
    """The week's most active authors."""

    intent: Literal["contributors"] = "contributors"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\bcontributors?\b|\bauthors?\b|\bwho contributed\b",), "zh": ("贡献者|贡献|作者",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> ContributorsQuery | None:
    """``contributors``, ``authors``, ``贡献者``."""
    return ContributorsQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: ContributorsQuery, ctx: AnswerContext) -> Card:
    """The contributors card of the week."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    return contributors_card(w.digest, limits=ctx.limits, notice=list(w.notice))


INTENT = Intent(name="contributors", query=ContributorsQuery, patterns=PATTERNS, parse=parse, answer=answer,
                takes_week=True, help_rank=50,
                help={"en": "contributors: the most active authors", "zh": "贡献者：最活跃的作者"},
                before=("report", "summary"))
