"""Intent ``range_summary``: a subject over a range of weeks ("summarize the MoE work this month",
"ROCm 最近 4 周的进展", "attention since W18"): per stored week the PRs in the subject (modules,
topics, labels; everything without one) and its risky PRs, the storylines of the subject, then
its most important PRs across the weeks. The range is :data:`chatbot.entities.RangeRef` ("this
month" is the weeks whose Thursday falls in the current month); weeks without stored PRs are left
out and said so.
"""

from __future__ import annotations

from typing import Literal

from chatbot.gist_line import new_gist
from chatbot.cards import Block, Card, Line, PRItem, PRList, Section, Text, Untrusted, clip, message_card
from chatbot.entities import RangeRef, weeks_of_range
from chatbot.filters import Filters, keep, resolve_words, subject_names
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns
from chatbot.intents.compare import theme_name
from chatbot.models import AnalyzedPR
from chatbot.render.escape import safe_url


MAX_STORYLINES = 3
"""Storylines listed per week when the question names no subject (with one: every storyline that
cites one of its PRs)."""


class RangeSummaryQuery(QueryBase):
    """A subject over ``span`` (weeks)."""

    intent: Literal["range_summary"] = "range_summary"
    span: RangeRef
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    """Other words: an author of the weeks, else ignored."""


PATTERNS = {"en": (r"\bsummari[sz](?:e|ed|ing|ation)\b|\bsummary\b|\brecap\b|\boverview\b|\bprogress\b|\bround[- ]?up\b"
                   r"|\b(?:this|last|current|previous|past) month\b|\bsince \S+",),
            "zh": (r"总结|汇总|概览|回顾|进展|梳理|本月|这个月|这月|上个月|上月|(?:自|从)\s*\S+?\s*(?:以来|起|开始)|以来",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> RangeSummaryQuery | None:
    """A range of weeks named (this month, the last N weeks, since W18)."""
    e = inp.entities
    if e.span is None or e.risk or e.tags:
        return None
    return RangeSummaryQuery(lang=inp.lang, span=e.span, modules=e.modules, topics=e.topics, labels=e.labels, words=e.words)


def answer(q: RangeSummaryQuery, ctx: AnswerContext) -> Card:
    """The range card (see the module docstring)."""
    lang = ctx.lang
    weeks = weeks_of_range(q.span, ctx.current_week())
    f = Filters(modules=q.modules, topics=q.topics, labels=q.labels, words=q.words)
    subject = tr(lang, "sep").join(subject_names(f, ctx.modules, lang)) or tr(lang, "card.range.all")
    header = tr(lang, "card.range.header", subject=subject, first=weeks[0], last=weeks[-1])
    lines: list[Line] = []
    found: list[AnalyzedPR] = []
    empty: list[str] = []
    ignored: tuple[str, ...] = ()
    repo = ""
    keys = {f"topic:{t}" for t in q.topics} | set(q.modules)
    for week in weeks:
        d = ctx.provider.digest(week, lang)
        repo = d.repo
        if d.total_prs == 0:
            empty.append(str(week))
            continue
        author, ignored = resolve_words(f, d.prs, ctx.people(d))
        prs = [p for p in d.prs if keep(p, f, ctx.modules, author)]
        found += prs
        risky = sum(1 for p in prs if p.risk_tags)
        lines.append((Text(text=tr(lang, "card.range.week", week=week, n=len(prs), total=d.total_prs, risky=risky)),))
        mine = {p.number for p in prs}
        for t in d.themes[: MAX_STORYLINES if not f.any() else len(d.themes)]:
            if (not f.any() or t.module in keys or set(t.prs) & mine) and theme_name(t.module, ctx, lang):
                refs = " ".join(f"#{n}" for n in t.prs[:4])
                lines.append((Text(text="  " + tr(lang, "card.range.story", name=theme_name(t.module, ctx, lang), prs=refs)),))
    if not found and not lines:
        return message_card(repo or header, [tr(lang, "card.range.none", first=weeks[0], last=weeks[-1]),
                                             *ctx.stored_span(*weeks)], lang=lang, role="empty")
    total = tr(lang, "card.range.total", n=len(found), weeks=len(weeks) - len(empty))
    blocks: list[Block] = [Section(role="range", lines=((Text(text=total),), *lines))]
    if empty:
        blocks.append(Section(role="notice", lines=((Text(text=tr(lang, "card.range.empty", weeks=tr(lang, "sep").join(empty))),),)))
    if ignored:
        blocks.append(Section(role="notice", lines=tuple((Text(text=t),) for t in ctx.ignored_line(ignored))))
    ranked = sorted(found, key=lambda p: (-p.importance, p.number))
    shown = ranked[: ctx.limits.list_items]
    items = tuple(PRItem(number=p.number, url=safe_url(p.url), title=clip(p.title, ctx.limits.title_chars),
                         detail=(Untrusted(text=clip(" · ".join(x for x in (f"{p.importance:.1f}", new_gist(p)) if x),
                                                     ctx.limits.detail_chars)),)) for p in shown)
    if items:
        more = len(ranked) - len(shown)
        blocks.append(PRList(role="range", heading=tr(lang, "card.range.key"), items=items, more=more,
                             more_text=tr(lang, "card.more", n=more) if more else ""))
    return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=f"{header}{tr(lang, 'colon')}{total}")


INTENT = Intent(name="range_summary", query=RangeSummaryQuery, patterns=PATTERNS, parse=parse, answer=answer,
                help_rank=61, help={"en": "MoE this month / ROCm in the last 4 weeks / attention since W18: a subject across weeks",
                                    "zh": "MoE 本月 / ROCm 最近 4 周 / 注意力后端 自 W18 以来：跨周汇总"},
                before=("count", "labels"))
