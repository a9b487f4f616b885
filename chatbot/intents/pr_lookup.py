"""Intent ``pr_lookup``: one PR by number, searched in the last ``lookback_weeks`` weeks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from chatbot.cards import Card, message_card, pr_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns


class PRLookupQuery(QueryBase):
    """One PR by number."""

    intent: Literal["pr_lookup"] = "pr_lookup"
    number: int = Field(gt=0)


PATTERNS = {"en": (r"(?ai:(?:\bpr ?#? ?|\bpull request ?#? ?|#|/pull/)([0-9]{1,9})(?![0-9]))",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> PRLookupQuery | None:
    """``PR #51655``, ``#51655``, ``pr 51655``, a ``/pull/51655`` URL."""
    m = _RX.search(inp.text)
    if m and int(m.group(1)) > 0:
        return PRLookupQuery(lang=inp.lang, number=int(m.group(1)))
    return None


def answer(q: PRLookupQuery, ctx: AnswerContext) -> Card:
    """The PR's card, from the newest week that holds it; else "not found in FIRST..LAST"."""
    week = ctx.current_week()
    first = week
    for _ in range(max(ctx.lookback_weeks, 1)):
        d = ctx.provider.digest(week, ctx.lang)
        for p in d.prs:
            if p.number == q.number:
                return pr_card(p, d, limits=ctx.limits)
        first = week
        week = week.previous()
    last = ctx.current_week()
    return message_card(tr(ctx.lang, "card.pr.header", number=q.number),
                        [tr(ctx.lang, "card.pr.not_found", number=q.number, first=first, last=last)], lang=ctx.lang,
                        role="pr_not_found")


INTENT = Intent(name="pr_lookup", query=PRLookupQuery, patterns=PATTERNS, parse=parse, answer=answer, help_rank=20,
                help={"en": "PR #51655: one PR's title, author, labels, modules, importance and risks",
                      "zh": "PR #51655：单个 PR 的标题、作者、标签、模块、重要度和风险"})
