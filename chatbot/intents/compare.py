"""Intent ``compare``: two weeks side by side ("比较一下 W19 和 W20 的风险", "W19 vs W20") or two
modules or topics in one week ("attention vs moe this week"): PR counts, PRs with risk tags per
tag, and what is new — the storylines (themes) of the later week that the earlier one did not
have, or each subject's most important PR. Counts come from the digests; nothing is estimated.

A comparison of "this week" with "last week" alone stays the ``trends`` intent's (its two-week
table); naming a week by number or two modules makes it this one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from chatbot.cards import Card, message_card
from chatbot.entities import Entities
from chatbot.filters import Filters, keep
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, WeekDigest, compile_patterns
from chatbot.models import AnalyzedPR


class CompareQuery(QueryBase):
    """Two weeks (``weeks``), or two or more subjects (``modules``/``topics``) in ``week``."""

    intent: Literal["compare"] = "compare"
    weeks: tuple[WeekRef, ...] = ()
    week: WeekRef = "current"
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    risks: bool = False
    """The question is about risks (the per-tag lines come first)."""


_CUE = (r"\bcompar(?:e|ed|ing|ison)\b|\bvs\.?(?!\S)|\bversus\b|\bagainst\b|\bdifference\b|\bdiffer\b",
        "比较|对比|相比|比一比|比一下|区别|差别|差异")
PATTERNS = {"en": (r"\b(?:vs\.?|versus|compared? (?:to|with)|against) (?:last|previous) week\b|" + _CUE[0],
                   r"(?<![0-9a-z])w ?[0-9]{1,2}(?![0-9])|[0-9]{4} ?-? ?w ?[0-9]{1,2}"), "zh": (_CUE[1],)}
"""The comparison words ("vs last week" as one phrase, so "risks vs last week" compares rather than
lists risks), and a week named by number (it outweighs the ``trends`` intent's "vs")."""
_RX = compile_patterns({"en": (_CUE[0],), "zh": (_CUE[1],)})


def parse(inp: ParseInput) -> CompareQuery | None:
    """A comparison word with two weeks, or with two subjects (modules or topics)."""
    if not _RX.search(inp.text):
        return None
    e: Entities = inp.entities
    weeks = tuple(dict.fromkeys(e.weeks))
    risks = e.risk or bool(e.tags)
    if len(weeks) >= 2 and not set(weeks) <= {"current", "previous"}:
        return CompareQuery(lang=inp.lang, weeks=weeks[:2], modules=e.modules, topics=e.topics, risks=risks)
    if len(e.modules) + len(e.topics) >= 2:
        return CompareQuery(lang=inp.lang, week=e.week, modules=e.modules[:4], topics=e.topics[:4], risks=risks)
    if len(weeks) == 1 and weeks[0] not in ("current",):
        return CompareQuery(lang=inp.lang, weeks=(weeks[0], "current"), modules=e.modules, topics=e.topics, risks=risks)
    return None


def _stats(lang: str, name: str, prs: Sequence[AnalyzedPR]) -> tuple[str, Counter[str]]:
    tags: Counter[str] = Counter(t for p in prs for t in p.risk_tags)
    risky = sum(1 for p in prs if p.risk_tags)
    kinds = tr(lang, "sep").join(f"{tr(lang, f'risk.{t}')} {n}" for t, n in sorted(tags.items(), key=lambda x: (-x[1], x[0])))
    line = tr(lang, "card.compare.line", name=name, n=len(prs), risky=risky)
    return (line + (tr(lang, "colon") + kinds if kinds else "")), tags


def theme_name(key: str, ctx: AnswerContext, lang: str) -> str:
    """The display name of a storyline key (``topic:rocm``, a module id) from the rules; ``""`` for
    other storylines (a series named from PR titles: untrusted text, left out of trusted lines)."""
    if key.startswith("topic:"):
        return ctx.modules.topic_display(key.removeprefix("topic:"), lang)
    return ctx.modules.display(key, lang) if key in ctx.modules.ids else ""


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def answer(q: CompareQuery, ctx: AnswerContext) -> Card:
    """The comparison card (see the module docstring); a week without PRs gives its "no PRs" card."""
    lang = ctx.lang
    f = Filters(modules=q.modules, topics=q.topics)
    if q.weeks:
        shown: list[WeekDigest] = []
        for ref in q.weeks:
            w = ctx.week_digest(ref)
            if isinstance(w, Card):
                return w
            shown.append(w)
        a, b = shown
        pa = [p for p in a.digest.prs if keep(p, f, ctx.modules, None)]
        pb = [p for p in b.digest.prs if keep(p, f, ctx.modules, None)]
        la, ta = _stats(lang, str(a.week), pa)
        lb, tb = _stats(lang, str(b.week), pb)
        lines = [la, lb, tr(lang, "card.compare.delta", n=_signed(len(pb) - len(pa)),
                            risky=_signed(sum(1 for p in pb if p.risk_tags) - sum(1 for p in pa if p.risk_tags)))]
        moved = [f"{tr(lang, f'risk.{t}')} {ta.get(t, 0)} → {tb.get(t, 0)}" for t in sorted(set(ta) | set(tb))
                 if ta.get(t, 0) != tb.get(t, 0)]
        if moved:
            lines.append(tr(lang, "card.compare.tags", tags=tr(lang, "sep").join(moved)))
        old = {t.module for t in a.digest.themes}
        new = [n for t in b.digest.themes if t.module not in old and (n := theme_name(t.module, ctx, lang))]
        if new:
            lines.append(tr(lang, "card.compare.new", week=b.week, names=tr(lang, "sep").join(new), before=a.week))
        if b.digest.risks:
            top = b.digest.risks[0]
            lines.append(tr(lang, "card.compare.top_risk", week=b.week, kind=tr(lang, f"risk.{top.kind}"),
                            prs=" ".join(f"#{n}" for n in top.prs[:3])))
        subject = tr(lang, "sep").join([*(ctx.modules.display(m, lang) for m in q.modules),
                                        *(ctx.modules.topic_display(t, lang) for t in q.topics)])
        header = tr(lang, "card.compare.header", a=a.week, b=b.week, repo=b.digest.repo)
        if subject:
            lines.insert(0, tr(lang, "card.compare.subject", name=subject))
        return message_card(header, [*a.notice, *b.notice, *lines], lang=lang, role="compare")
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    lines = list(w.notice)
    subjects = [("module", m, ctx.modules.display(m, lang)) for m in q.modules] + \
               [("topic", t, ctx.modules.topic_display(t, lang)) for t in q.topics]
    for kind, sid, name in subjects:
        one = Filters(modules=(sid,)) if kind == "module" else Filters(topics=(sid,))
        prs = [p for p in w.digest.prs if keep(p, one, ctx.modules, None)]
        line, _ = _stats(lang, name, prs)
        lines.append(line)
        if prs:
            best = max(prs, key=lambda p: (p.importance, -p.number))
            lines.append(tr(lang, "card.compare.top_pr", number=best.number, importance=f"{best.importance:.1f}"))
    names = tr(lang, "card.compare.and").join(s[2] for s in subjects)
    return message_card(tr(lang, "card.compare.header_modules", names=names, week=w.week), lines, lang=lang,
                        role="compare")


INTENT = Intent(name="compare", query=CompareQuery, patterns=PATTERNS, parse=parse, answer=answer, help_rank=71,
                help={"en": "compare W19 and W20 / attention vs moe: counts, risks and what is new",
                      "zh": "比较 W19 和 W20 / 注意力后端 对比 moe：数量、风险和新变化"},
                before=("trends",))
