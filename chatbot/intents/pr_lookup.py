"""Intent ``pr_lookup``: one PR by number, searched in the last ``lookback_weeks`` weeks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from chatbot.cards import Card, message_card, pr_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns


MAX_PR_NUMBER = 2_147_483_647
"""GitHub issue and PR numbers are signed 32-bit integers."""


class PRLookupQuery(QueryBase):
    """One PR by number."""

    intent: Literal["pr_lookup"] = "pr_lookup"
    number: int = Field(gt=0)


PATTERNS = {"en": (r"(?ai:(?:\bpr ?#? ?|\bpull request ?#? ?|#|/pull/)([0-9]{1,40})(?![0-9]))",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> PRLookupQuery | None:
    """``PR #42202``, ``#42202``, ``pr 42202``, a ``/pull/42202`` URL (any number of digits)."""
    m = _RX.search(inp.text)
    if m and int(m.group(1)) > 0:
        return PRLookupQuery(lang=inp.lang, number=int(m.group(1)))
    return None


def answer(q: PRLookupQuery, ctx: AnswerContext) -> Card:
    """The PR's card, from the newest week that holds it; else "not found in FIRST..LAST"; a number
    past GitHub's largest (2,147,483,647, a signed 32-bit id) is "no such PR" at once."""
    if q.number > MAX_PR_NUMBER:
        return message_card(tr(ctx.lang, "card.pr.no_such_header"), [tr(ctx.lang, "card.pr.no_such", number=q.number)],
                            lang=ctx.lang, role="pr_not_found")
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
                help={"en": "PR #42202: one PR's title, author, labels, modules, importance and risks",
                      "zh": "PR #42202：单个 PR 的标题、作者、标签、模块、重要度和风险"})
