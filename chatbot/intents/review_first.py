"""Intent ``review_first``: what to review first in a week ("what should I review first this week?",
"我先看哪些 PR"). With subscriptions (the asker's, then the conversation's) or modules named in
the message, the week's PRs in those modules, risky ones first, then by importance. Otherwise the
week itself: the first PR of each top risk observation (the digest's risk order), then the
large changes with no review on record (the stored history's reviews; the shared export weeks
carry none, so every large change counts as unreviewed there), largest first.
"""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card, filtered_card
from chatbot.i18n import lines_text, tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns
from chatbot.models import AnalyzedPR

TOP_OBSERVATIONS = 3
"""How many of the digest's risk observations lead the answer without subscriptions."""


class ReviewFirstQuery(QueryBase):
    """What to review first in ``week``; ``modules`` named in the message win over subscriptions."""

    intent: Literal["review_first"] = "review_first"
    week: WeekRef = "current"
    modules: tuple[str, ...] = ()


PATTERNS = {"en": (r"\breview(?:ed|ing)? first\b|\bfirst to review\b|\b(?:should|do|can) i (?:review|look at|read|check)\b"
                   r"|\bneeds? (?:a |my )?review\b|\bneed to (?:look at|review|check|read)\b|\bworth (?:a )?review(?:ing)?\b|\breview (?:queue|list|priorit\w*)\b"
                   r"|\bprioriti[sz]e\b|\bwhere (?:should|do) i start\b|\bmust[- ]reads?\b|\bstart with\b|\blook at first\b",),
            "zh": ("先看|先审|先 ?review|优先(?:看|审|review)|该看|应该看|需要 ?review|需要审|值得 ?review|值得审|审阅|从哪(?:个|些)?(?:开始|看起)",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> ReviewFirstQuery | None:
    """The words of the patterns, with an optional week and modules."""
    if not _RX.search(inp.text):
        return None
    return ReviewFirstQuery(lang=inp.lang, week=inp.week, modules=inp.entities.modules)


def _subscribed(ctx: AnswerContext) -> tuple[str, ...]:
    who, book = ctx.requester, ctx.subscriptions
    if who is None or book is None:
        return ()
    out: list[str] = []
    for kind, sid in (("user", who.user), ("channel", who.channel)):
        if sid:
            out += [s.module for s in book.subscriptions_of(who.platform, who.workspace, kind, sid, who.repo)]
    return tuple(m for m in dict.fromkeys(out) if m in ctx.modules.ids)


def answer(q: ReviewFirstQuery, ctx: AnswerContext) -> Card:
    """The PRs to review first (see the module docstring), each with why."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    modules = q.modules or _subscribed(ctx)
    reviews: dict[int, int] = {}
    if ctx.history is not None:
        reviews = {p.number: len(p.reviews) for p in ctx.history.merged_between(d.start, d.end)}
    order: dict[int, int] = {}
    if modules:
        mine = [p for p in d.prs if any(m in p.modules for m in modules)]
        for p in sorted(mine, key=lambda p: (not p.risk_tags, -p.importance, p.number)):
            order.setdefault(p.number, len(order))
        names = tr(lang, "sep").join(ctx.modules.display(m, lang) for m in modules)
        lead = tr(lang, "card.review.modules", modules=names)
    else:
        for r in d.risks[:TOP_OBSERVATIONS]:
            if r.prs:
                order.setdefault(r.prs[0], len(order))
        large = [p for p in d.prs if "large-change" in p.risk_tags and not reviews.get(p.number)]
        for p in sorted(large, key=lambda p: (-(p.additions + p.deletions), p.number)):
            order.setdefault(p.number, len(order))
        lead = tr(lang, "card.review.week")
    prs = [p for p in d.prs if p.number in order]

    def detail(p: AnalyzedPR) -> str:
        why = [tr(lang, f"risk.{t}") for t in p.risk_tags]
        if "large-change" in p.risk_tags:
            n = reviews.get(p.number, 0)
            why.append(tr(lang, "card.review.reviews", n=n) if n else tr(lang, "card.review.unreviewed"))
        return " · ".join(x for x in (f"{p.importance:.1f}", tr(lang, "sep").join(why), lines_text(p.additions, p.deletions)) if x)

    return filtered_card(d, prs, header=tr(lang, "card.review.header", repo=d.repo, week=w.week),
                         count_line=lead, empty_line=tr(lang, "card.review.none", week=w.week), detail=detail,
                         report_url=w.report_url, limits=ctx.limits, notice=list(w.notice),
                         key=lambda p: (float(order[p.number]),), heading_key="card.review.heading")


INTENT = Intent(name="review_first", query=ReviewFirstQuery, patterns=PATTERNS, parse=parse, answer=answer,
                takes_week=True, help_rank=12,
                help={"en": "what should I review first [this week]: your modules' PRs, else top risks and unreviewed large changes",
                      "zh": "先看哪些 PR [本周]：订阅模块的 PR，否则最大的风险和未审阅的大改动"},
                before=("new_models",))
