"""Intent ``author``: what one author merged in a week — "PRs by mgoin", "what did Michael Goin
merge", "<login> 这周合并了什么". The name matches a PR author's login (or the display name the
export gives as login) exactly, else by :func:`chatbot.filters.author_matches` (a part of it, the
login of the stored display name: "njhill" is "Nick Hill"); several matches give the candidates.
"""

from __future__ import annotations

import re
from typing import Literal

from chatbot.gist_line import new_gist
from chatbot.cards import Card, filtered_card, message_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef
from chatbot.entities import extract
from chatbot.filters import Filters, keep, match_people
from chatbot.models import AnalyzedPR

_EN = (r"\b(?:prs?|pull requests?|changes|work|merges?)\s+(?:by|from)\s+(?P<a>.+)$",
       r"^what\s+(?:did|has)\s+(?P<b>.+?)\s+(?:merge|merged|ship|shipped|do|done|land|landed)\b",
       r"^(?:which|what)\s+(?:prs?|pull requests?|changes)\s+(?:did|has|have)\s+(?P<d>.+?)\s+"
       r"(?:merge|merged|ship|shipped|land|landed|do|done)\b",
       r"^(?P<e>[a-z][a-z0-9 .\-]{1,40}?)\s+(?:prs?|pull requests?|merges)$")
_ZH = (r"^(?P<c>.+?)\s*(?:这周|本周|上周)?\s*(?:合并了?什么|合并的\s*pr|的\s*pr)",)
PATTERNS = {"en": _EN, "zh": _ZH}
_RXS = tuple(re.compile(p) for p in (*_EN, *_ZH))
_TOPIC_WORDS = re.compile(r"(?:相关|有关|方面|关于)$|^关于")
"""A name ending in these ("DeepSeek V4 相关的 PR") is a topic, not an author: the search reads it."""
_MENTION_ONLY = re.compile(r"^(?:prs?|pull requests?|changes|work|merges?)\s+(?:by|from)$")


class AuthorQuery(QueryBase):
    """PRs of a week whose author matches ``name``."""

    intent: Literal["author"] = "author"
    week: WeekRef = "current"
    name: str
    labels: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    """Filters named besides the author ("perf PRs by njhill"; :class:`chatbot.filters.Filters`)."""


def parse(inp: ParseInput) -> AuthorQuery | None:
    """``PRs by NAME``, ``what did NAME merge``, ``NAME 这周合并了什么``; ``PRs by`` whose name was
    only an @-mention (removed by cleaning, never read) is an author query without a name."""
    text = inp.rest.strip(" ?？.。")
    if _MENTION_ONLY.match(text):
        return AuthorQuery(lang=inp.lang, week=inp.week, name="")
    for rx in _RXS:
        m = rx.search(text)
        if m:
            name = next(v for v in m.groupdict().values() if v).strip(" ?？.。@")
            if name and len(name) <= 80 and not _TOPIC_WORDS.search(name) and extract(name, inp.modules, cues=inp.cues).words:
                e = inp.entities
                return AuthorQuery(lang=inp.lang, week=inp.week, name=name, labels=e.labels, modules=e.modules,
                                   topics=e.topics)
    return None


def answer(q: AuthorQuery, ctx: AnswerContext) -> Card:
    """The author's PRs of the week, or the candidates, or "nobody called NAME merged"; without a
    name (only an @-mention was given) "name an author by login or name"."""
    if not q.name:
        return message_card(tr(ctx.lang, "card.author.header_unnamed"), [tr(ctx.lang, "card.author.unnamed")],
                            lang=ctx.lang, role="author_candidates")
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    found = match_people(q.name, {p.author for p in d.prs if p.author}, ctx.people(d))
    if len(found) > 1:
        lines = [tr(lang, "card.author.ambiguous", name=q.name)] + [f"• {a}" for a in found[:10]]
        return message_card(tr(lang, "card.author.header", name=q.name, week=w.week), lines, lang=lang,
                            role="author_candidates")
    who = found[0] if found else q.name
    f = Filters(modules=q.modules, topics=q.topics, labels=q.labels)
    prs = [p for p in d.prs if keep(p, f, ctx.modules, who)] if found else []

    def detail(p: AnalyzedPR) -> str:
        return f"{p.importance:.1f} · {new_gist(p)}" if new_gist(p) else f"{p.importance:.1f}"

    return filtered_card(d, prs, header=tr(lang, "card.author.header", name=who, week=w.week),
                         count_line=tr(lang, "card.filter.count", n=len(prs), total=d.total_prs),
                         empty_line=tr(lang, "card.author.none", name=q.name, week=w.week), detail=detail,
                         report_url=w.report_url, limits=ctx.limits, notice=list(w.notice))


INTENT = Intent(name="author", query=AuthorQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=35,
                help={"en": "PRs by LOGIN / what did NAME merge [last week]: one author's merged PRs",
                      "zh": "LOGIN 这周合并了什么：某位作者合并的 PR"},
                before=("top_prs",))
