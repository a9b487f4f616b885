"""Intent ``top_prs``: the week's key PRs by importance ("top PRs", "top 5 PRs", "前 5 个重点 PR")."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from chatbot.buttons import ButtonContext, week_action
from chatbot.cards import Button, Card, top_prs_card
from chatbot.entities import MAX_COUNT
from chatbot.filters import Filters, keep, resolve_words
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class TopPRsQuery(QueryBase):
    """The week's key PRs."""

    intent: Literal["top_prs"] = "top_prs"
    week: WeekRef = "current"
    n: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    """How many to list (None: the card's ``list_items``; 0: "a count starts at 1")."""
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    """Only PRs in these modules or topics, with these labels (:class:`chatbot.filters.Filters`)."""
    words: tuple[str, ...] = ()
    """Other words: an author of the week, else ignored."""

    def filters(self) -> Filters:
        """The query's :class:`chatbot.filters.Filters`."""
        return Filters(modules=self.modules, topics=self.topics, labels=self.labels, words=self.words)


PATTERNS = {"en": (r"\btop(?: prs?| pull requests?)?\b|\bkey prs?\b|\bimportant prs?\b",),
            "zh": ("重点|重要", r"前\s*[0-9]{1,3}\s*(?:个|条)?\s*(?:pr|拉取请求)")}
"""``前 5 个 PR`` ("the first 5 PRs") asks for the top five like ``top 5 PRs``."""
_RX = compile_patterns(PATTERNS)
_BARE = re.compile(r"^(?:(?:show|list|all|the|me|merged|week|s)\s+)*(?:prs?|pull requests?)(?:\s+merged)?$|^(?:所有的?|合并的)?\s*pr$")
"""Only "PRs" (with a week: "PRs 2026-W20", "本周 PR"): the week's key PRs."""


def parse(inp: ParseInput) -> TopPRsQuery | None:
    """``top PRs``, ``top 5 PRs``, ``key PRs``, ``重点PR``, ``前 5 个重点 PR`` (N: the entities' count,
    capped at :data:`~chatbot.entities.MAX_COUNT`; 0 is answered "a count starts at 1"), narrowed by
    the modules, topics and labels named ("本周 ROCm 相关的重点 PR"); only "PRs" with an optional week
    (``PRs 2026-W20``) lists the week's key PRs."""
    if not _RX.search(inp.rest):
        return TopPRsQuery(lang=inp.lang, week=inp.week) if _BARE.match(inp.rest) else None
    e = inp.entities
    if e.risk or e.tags:
        return None  # "top risks": the risks intents
    return TopPRsQuery(lang=inp.lang, week=inp.week, n=e.n, modules=e.modules, topics=e.topics, labels=e.labels,
                       words=e.words)


def answer(q: TopPRsQuery, ctx: AnswerContext) -> Card:
    """The key-PRs card of the week (the first ``n`` of them when asked for a number); with filters,
    the week's PRs that pass them by importance (leftover words: an author, else ignored)."""
    if q.n == 0:
        return ctx.zero_count("card.top.example")
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    limits = ctx.limits if q.n is None else ctx.limits.model_copy(update={"list_items": q.n})
    f = q.filters()
    if not f.any():
        return top_prs_card(w.digest, report_url=w.report_url, limits=limits, notice=list(w.notice))
    d = w.digest
    lang = d.lang
    author, ignored = resolve_words(f, d.prs, ctx.people(d))
    if author is None and not (f.modules or f.topics or f.labels):
        return top_prs_card(d, report_url=w.report_url, limits=limits, notice=[*w.notice, *ctx.ignored_line(ignored)])
    prs = [p for p in d.prs if keep(p, f, ctx.modules, author)]
    return ctx.filter_card(w, prs, ctx.filter_what(tr(lang, "card.top.what"), f, author), ignored=ignored, limits=limits)


def buttons(q: TopPRsQuery, b: ButtonContext) -> list[Button]:
    """More risks · ◀ Previous week · Next week ▶ (the ``top_prs`` action)."""
    return [b.more_risks(), *b.weeks("top_prs")]


INTENT = Intent(name="top_prs", query=TopPRsQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=40, help={"en": "top PRs [in ROCm / attention / perf]: the week's key PRs",
                                    "zh": "重点PR [ROCm / 注意力后端 / 性能]：本周重点 PR"},
                before=("new_contributors",), actions={"top_prs": week_action(TopPRsQuery)}, buttons=buttons)
