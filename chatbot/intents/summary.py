"""Intent ``summary``: part 1 of the weekly digest card."""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card, Section, Text, digest_cards
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class SummaryQuery(QueryBase):
    """The weekly digest card."""

    intent: Literal["summary"] = "summary"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\bsummary\b|\bdigest\b|\bweekly\b|\breport\b|\boverview\b",), "zh": ("周报|摘要|总结|概览|汇总",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> SummaryQuery | None:
    """``summary``, ``digest``, ``周报``."""
    return SummaryQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: SummaryQuery, ctx: AnswerContext) -> Card:
    """The first digest card of the week, the fallback notice on top."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    card = digest_cards(w.digest, report_url=w.report_url, limits=ctx.limits)[0]
    if w.notice:
        notice = Section(role="notice", lines=tuple((Text(text=n),) for n in w.notice))
        card = card.model_copy(update={"blocks": (notice, *card.blocks)})
    return card.model_copy(update={"part": 1, "parts": 1})


INTENT = Intent(name="summary", query=SummaryQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=60, help={"en": "summary: the weekly digest card", "zh": "周报：本周周报卡片"})
