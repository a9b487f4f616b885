"""Intent ``pr_lookup``: one PR by number, in whichever stored week holds it, with the PR it reverts,
the revert that reverted it and the PRs that fixed it.

With the stored history (:class:`chatbot.pr_history.PRHistory`) the PR's merge instant names its
week at once; without it the last ``lookback_weeks`` weeks are searched.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import Field

from chatbot.cards import Card, message_card, pr_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns
from chatbot.models import AnalyzedPR, DigestText
from chatbot.reverts import parse_revert


MAX_PR_NUMBER = 2_147_483_647
"""GitHub issue and PR numbers are signed 32-bit integers."""

REVERT_SEARCH_DAYS = 56
"""How long after a PR's merge (days) the stored history is searched for a revert of it."""


class PRLookupQuery(QueryBase):
    """One PR by number."""

    intent: Literal["pr_lookup"] = "pr_lookup"
    number: int = Field(ge=0)
    """0 is parsed too, so "#0" is told "no such PR" instead of searched for the word "0"."""


PATTERNS = {"en": (r"(?ai:(?:\bpr ?#? ?|\bpull request ?#? ?|#|/pull/)([0-9]{1,40})(?![0-9]))",)}
"""A number after "PR", "#" or "/pull/", read in the text without its week (:attr:`ParseInput.rest`:
"PR 2026-W20" names a week, not PR 2026)."""
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> PRLookupQuery | None:
    """``PR #42202``, ``#42202``, ``pr 42202``, a ``/pull/42202`` URL (any number of digits)."""
    m = _RX.search(inp.rest)
    if m:
        return PRLookupQuery(lang=inp.lang, number=int(m.group(1)))
    return None


def _reverts(p: AnalyzedPR, d: DigestText, ctx: AnswerContext) -> int | None:
    """The PR that ``p`` reverts: the number in GitHub's revert title, else the PR of the quoted
    title merged before it (in the week, then in the stored history of :data:`REVERT_SEARCH_DAYS`)."""
    link = parse_revert(p.title)
    if link is None:
        return None
    if link.number is not None:
        return link.number
    want = (link.title or "").casefold()
    if not want:
        return None
    earlier: list[tuple[int, str]] = [(o.number, o.title) for o in d.prs if o.merged_at < p.merged_at]
    if ctx.history is not None:
        earlier += [(o.number, o.title) for o in ctx.history.titles_between(
            p.merged_at - timedelta(days=REVERT_SEARCH_DAYS), p.merged_at)]
    return next((n for n, t in sorted(earlier, reverse=True) if n != p.number and t.casefold().startswith(want)), None)


def _reverted_later(p: AnalyzedPR, ctx: AnswerContext) -> int | None:
    """A stored revert of ``p`` merged within :data:`REVERT_SEARCH_DAYS` after it, naming it by
    number or quoting its title (the digest only sees reverts of its own week)."""
    if ctx.history is None:
        return None
    for later in sorted(ctx.history.titles_between(p.merged_at, p.merged_at + timedelta(days=REVERT_SEARCH_DAYS)),
                        key=lambda o: (o.merged_at, o.number)):
        link = parse_revert(later.title)
        if later.number == p.number or link is None:
            continue
        quoted = (link.title or "").casefold()
        if link.number == p.number or (link.number is None and quoted and p.title.casefold().startswith(quoted)):
            return later.number
    return None


def _card(p: AnalyzedPR, d: DigestText, ctx: AnswerContext) -> Card:
    by = p.reverted_by if p.reverted_by is not None else _reverted_later(p, ctx)
    fixed = tuple(getattr(p, "fixed_by", ()) or ())
    return pr_card(p, d, limits=ctx.limits, reverts=_reverts(p, d, ctx), reverted_by=by, fixed_by=fixed)


def _not_found(q: PRLookupQuery, ctx: AnswerContext, key: str, **values: object) -> Card:
    return message_card(tr(ctx.lang, "card.pr.header", number=q.number), [tr(ctx.lang, key, number=q.number, **values)],
                        lang=ctx.lang, role="pr_not_found")


def answer(q: PRLookupQuery, ctx: AnswerContext) -> Card:
    """The PR's card from the week that holds it; else "not among the stored PRs, FIRST to LAST";
    a number past GitHub's largest (2,147,483,647, a signed 32-bit id) or 0 is "no such PR" at once."""
    if q.number > MAX_PR_NUMBER or q.number == 0:
        key = "card.pr.no_such" if q.number else "card.pr.no_such_zero"
        return message_card(tr(ctx.lang, "card.pr.no_such_header"), [tr(ctx.lang, key, number=q.number)],
                            lang=ctx.lang, role="pr_not_found")
    if ctx.history is not None:
        merged = ctx.history.merged_at_of(q.number)
        if merged is not None:
            d = ctx.provider.digest(ctx.zone_week(merged), ctx.lang)
            p = next((p for p in d.prs if p.number == q.number), None)
            if p is not None:
                return _card(p, d, ctx)
        span = ctx.history_weeks()
        if span is None:
            return _not_found(q, ctx, "card.pr.none_stored")
        if span[0] == span[1]:  # one stored week: not "merged from 2026-W20 to 2026-W20"
            return _not_found(q, ctx, "card.pr.not_stored_week", first=span[0], last=span[1])
        return _not_found(q, ctx, "card.pr.not_stored", first=span[0], last=span[1])
    week = ctx.current_week()
    first = week
    for _ in range(max(ctx.lookback_weeks, 1)):
        d = ctx.provider.digest(week, ctx.lang)
        for p in d.prs:
            if p.number == q.number:
                return _card(p, d, ctx)
        first = week
        week = week.previous()
    return _not_found(q, ctx, "card.pr.not_found", first=first, last=ctx.current_week())


INTENT = Intent(name="pr_lookup", query=PRLookupQuery, patterns=PATTERNS, parse=parse, answer=answer, help_rank=20,
                help={"en": "PR #42202: one PR of any stored week: title, author, modules, risks, reverts and fixes",
                      "zh": "PR #42202：任一已存储周的单个 PR：标题、作者、模块、风险、回滚与修复"},
                before=("compare",))
