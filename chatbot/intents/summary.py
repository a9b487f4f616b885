"""Intent ``summary``: a compact card of the week — part 1 of the weekly digest, without its
"N more parts follow in the thread" line (a chat answer is one message, so nothing would follow),
ending instead with where the rest is: "risks", "top PRs" and the full report."""

from __future__ import annotations

from typing import Literal

from chatbot.buttons import ButtonContext, week_action
from chatbot.cards import Actions, Button, Card, Context, Section, Text, block_text, digest_cards
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class SummaryQuery(QueryBase):
    """The weekly digest card."""

    intent: Literal["summary"] = "summary"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\bsummary\b|\bdigest\b|\bweekly\b|\boverview\b",), "zh": ("周报|摘要|总结|概览|汇总",)}
"""("report" alone asks for the full report: :mod:`chatbot.intents.report`; "weekly report" is still this.)"""
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> SummaryQuery | None:
    """``summary``, ``digest``, ``周报``."""
    return SummaryQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: SummaryQuery, ctx: AnswerContext) -> Card:
    """The compact summary card of the week, the fallback notice on top: it promises no parts."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    cards = digest_cards(w.digest, report_url=w.report_url, limits=ctx.limits)
    card = cards[0]
    lang = w.digest.lang
    promise = tr(lang, "card.continued", n=len(cards) - 1)
    blocks = [b for b in card.blocks if not (isinstance(b, Context) and block_text(b) == promise)]
    if len(cards) > 1:
        more = Section(role="summary_more", lines=((Text(text=tr(lang, "card.summary.more_report" if w.report_url else "card.summary.more")),),))
        at = len(blocks) - 1 if blocks and isinstance(blocks[-1], Actions) else len(blocks)
        blocks.insert(at, more)
    if w.notice:
        blocks.insert(0, Section(role="notice", lines=tuple((Text(text=n),) for n in w.notice)))
    return card.model_copy(update={"blocks": tuple(blocks), "part": 1, "parts": 1})


def buttons(q: SummaryQuery, b: ButtonContext) -> list[Button]:
    """More risks · ◀ Previous week · Next week ▶ (the ``summary`` action)."""
    return [b.more_risks(), *b.weeks("summary")]


INTENT = Intent(name="summary", query=SummaryQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=60, help={"en": "summary: the week in one card", "zh": "周报：一张卡片看本周"},
                before=("module",), actions={"summary": week_action(SummaryQuery)}, buttons=buttons)
