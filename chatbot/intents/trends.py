"""Intent ``trends``: per-week PR counts, top labels and average importance over N weeks."""

from __future__ import annotations

import re
from typing import Literal

from chatbot.cards import Card, message_card, trends_card
from chatbot.history import build_trends, week_stats
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns


class TrendsQuery(QueryBase):
    """Per-week trends over ``weeks`` weeks ending with the current week (or the last week with PRs)."""

    intent: Literal["trends"] = "trends"
    weeks: int = 8


PATTERNS = {"en": (r"\btrends?\b|\bcompar(?:e|ed|ing|ison)\b|\bvs\.?(?!\S)|\bversus\b",),
            "zh": ("趋势|走势|比上周|和上周比|对比|相比",)}
_RX = compile_patterns(PATTERNS)
_N_WEEKS = re.compile(r"(?<![0-9])([0-9]{1,2}) ?(?:weeks?\b|周)")
_TWO = re.compile(r"\b(?:compar\w*|vs\.?|versus)\b.*\b(?:last|previous|prev) week\b|比上周|和上周比|与上周|跟上周|上周相比")


def parse(inp: ParseInput) -> TrendsQuery | None:
    """``trends [12 weeks]``, ``趋势 [12 周]`` (2..26 weeks, default 8); a comparison with last week
    (``compare this week with last week``, ``vs last week``, ``比上周``) is the two weeks."""
    if not _RX.search(inp.text):
        return None
    nm = _N_WEEKS.search(inp.text)
    if nm:
        return TrendsQuery(lang=inp.lang, weeks=min(26, max(2, int(nm.group(1)))))
    return TrendsQuery(lang=inp.lang, weeks=2 if _TWO.search(inp.text) else 8)


def answer(q: TrendsQuery, ctx: AnswerContext) -> Card:
    """Trends of the weeks ending with the current week (the previous one when the current week
    has no PRs yet); leading weeks without PRs (before the history) are dropped. With no PRs in
    any of them: the repository's "no merged PRs" card, naming the stored weeks."""
    end = ctx.current_week()
    repo = ctx.provider.digest(end, ctx.lang).repo
    if ctx.provider.digest(end, ctx.lang).total_prs == 0:
        end = end.previous()
    weeks = [end]
    while len(weeks) < q.weeks:
        weeks.append(weeks[-1].previous())
    digests = [ctx.provider.digest(w, ctx.lang) for w in reversed(weeks)]
    while digests and digests[0].total_prs == 0:
        digests.pop(0)
    if not digests:
        return message_card(repo, [tr(ctx.lang, "card.empty_week", week=end), *ctx.stored_span(*weeks)],
                            lang=ctx.lang, role="empty")
    names: dict[str, str] = {}
    for d in digests:
        names.update(d.module_names)
    trends = build_trends(digests[-1].repo, [week_stats(d) for d in digests], module_names=names)
    return trends_card(trends, ctx.lang)


INTENT = Intent(name="trends", query=TrendsQuery, patterns=PATTERNS, parse=parse, answer=answer, help_rank=70,
                help={"en": "trends [12 weeks]: PR counts, top labels and importance week by week",
                      "zh": "趋势 [12 周]：逐周的 PR 数、主要标签与重要度"},
                before=("range_summary",))
