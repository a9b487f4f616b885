"""Intent ``search``: a ranked search of a week's PRs over titles, gists, changed paths, modules,
topics (the rules' ``topics:``) and authors — "search kv cache", "Kimi changes", "DeepSeek V4",
"Qwen3", "搜索 量化". It is also the registry's fallback: text no other intent understood is
searched (an unsure reading, :mod:`chatbot.reading`); nothing matching says so, never the help card.

Scoring (per PR; every searched word must match somewhere, or the words together name a topic or
appear together in the title):

=====================  =======
the topic they name    6
all words in the title 5 (as one squashed phrase: "deepseek v4" finds "DeepSeek-V4")
a word in the title    3 (a whole word, or the start of one when the word has 4+ characters)
the author             4 (part of the login or name, 3+ characters)
a module               2 (its id, name or alias names exactly)
a changed path         2 (a path component, or the start of one)
a label                2
the gist               1
=====================  =======

Ranked by score, then importance, then number. With no match, "did you mean" suggestions come
from the week's vocabulary (topic and module names, authors, title words) by
:func:`difflib.get_close_matches` (ratio >= 0.75).
"""

from __future__ import annotations

import difflib
import re
from typing import Literal

from chatbot.gist_line import new_gist
from chatbot.cards import Card, clip, filtered_card, message_card
from chatbot.entities import FILLER_EN
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef
from chatbot.models import AnalyzedPR
from chatbot.module_names import squash

SCORES = {"topic": 6, "phrase": 5, "author": 4, "title": 3, "module": 2, "path": 2, "label": 2, "gist": 1}
"""Points per kind of match (see the module docstring)."""
SUGGEST_CUTOFF = 0.75
"""Similarity (difflib ratio) a "did you mean" suggestion needs at least."""

_EXPLICIT = re.compile(r"^(?:search|find|look for|look up|grep|anything (?:about|on)|prs? (?:about|on|mentioning|related to)"
                       r"|搜索|搜一下|搜|查找|查一下|找一下|找找|找)\s*(?:for\s+)?(?P<q>.+)$")
PATTERNS = {"en": (r"^(?:search|find|look for|look up|grep|anything (?:about|on)|prs? (?:about|on|mentioning|related to))\b",),
            "zh": ("^(?:搜索|搜一下|搜|查找|查一下|找一下|找找|找)",)}
_STOP = FILLER_EN
"""English words searched for nothing (:data:`chatbot.entities.FILLER_EN`)."""
_ZH_FILLER = re.compile(r"的|了|吗|呢|吧|有|哪些|什么|相关|改动|变化|更新|最近|本周|这周|上周|请|帮我|看看|看一下|一下|关于|"
                        r"和|与|及|有没有|是否|一些|所有|合并|情况|进展|工作|给我|改了|修改了?|改动了?|动了|涉及到?|碰了|改(?![\u4e00-\u9fff])|"
                        r"(?<![a-z0-9])prs?(?![a-z0-9])")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+\-]*|[\u3400-\u9fff\uf900-\ufaff]+")
_TITLE_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")


class SearchQuery(QueryBase):
    """Search a week's PRs for ``text`` (cleaned words). ``fallback``: no intent understood the
    text (nothing found then gives the help card)."""

    intent: Literal["search"] = "search"
    week: WeekRef = "current"
    text: str
    fallback: bool = False


def terms(text: str) -> list[str]:
    """The searched words of ``text``: stop words and Chinese filler words dropped, each once."""
    out: list[str] = []
    for w in _WORD.findall(_ZH_FILLER.sub(" ", text.casefold())):
        w = w.strip(".-+_")
        if w and w not in _STOP and w not in out:
            out.append(w)
    return out


def _query(inp: ParseInput, text: str, fallback: bool) -> SearchQuery | None:
    words = terms(text)
    if not words or len(" ".join(words)) > 120:
        return None
    return SearchQuery(lang=inp.lang, week=inp.week, text=" ".join(words), fallback=fallback)


def parse(inp: ParseInput) -> SearchQuery | None:
    """``search WORDS``, ``find WORDS``, ``搜索 WORDS``."""
    m = _EXPLICIT.match(inp.rest)
    return _query(inp, m.group("q"), False) if m else None


def fallback(inp: ParseInput) -> SearchQuery | None:
    """Any text with a searchable word that no intent understood."""
    return _query(inp, inp.rest, True)


def _title_hit(word: str, title_words: list[str]) -> bool:
    return word in title_words or (len(word) >= 4 and any(t.startswith(word) for t in title_words))


def _path_hit(word: str, paths: list[str]) -> str | None:
    for f in paths:
        parts = re.split(r"[/_.\-]", f.casefold())
        if word in parts or (len(word) >= 4 and any(p.startswith(word) for p in parts)) or ("/" in word and word in f.casefold()):
            return f
    return None


def score(p: AnalyzedPR, words: list[str], ctx: AnswerContext, paths: list[str]) -> tuple[int, list[str]]:
    """``(points, reasons)`` of one PR for ``words`` (0 when a word matches nowhere and the words
    name no topic of its title and are not together in it)."""
    lang = ctx.lang
    phrase = " ".join(words)
    reasons: list[str] = []
    points = 0
    whole = False
    topic = ctx.modules.topic(phrase)
    if topic is not None and ctx.modules.topic_in(topic, p.title):
        points += SCORES["topic"]
        reasons.append(tr(lang, "card.search.topic", name=ctx.modules.topic_display(topic, lang)))
        whole = True
    if len(words) > 1 and squash(phrase) and squash(phrase) in squash(p.title):
        points += SCORES["phrase"]
        whole = True
    title_words = _TITLE_WORD.findall(p.title.casefold())
    author = p.author.casefold()
    for w in words:
        hit = 0
        if _title_hit(w, title_words):
            hit += SCORES["title"]
        if len(w) >= 3 and w in author:
            hit += SCORES["author"]
            reasons.append(tr(lang, "card.search.author", name=p.author))
        wt = ctx.modules.topic(w) if topic is None else None
        if wt is not None and ctx.modules.topic_in(wt, p.title):
            hit += SCORES["topic"]
            reasons.append(tr(lang, "card.search.topic", name=ctx.modules.topic_display(wt, lang)))
        m, _ = ctx.modules.resolve(w, fuzzy=False)
        if m is not None and m in p.modules:
            hit += SCORES["module"]
            reasons.append(tr(lang, "card.search.module", name=ctx.modules.display(m, lang)))
        f = _path_hit(w, paths)
        if f is not None:
            hit += SCORES["path"]
            reasons.append(tr(lang, "card.search.path", path=f))
        if any(w == lb.casefold() for lb in p.labels):
            hit += SCORES["label"]
        if w in p.gist.casefold():
            hit += SCORES["gist"]
        if not hit and not whole:
            return 0, []
        points += hit
    return points, list(dict.fromkeys(reasons))


def suggestions(words: list[str], ctx: AnswerContext, prs: list[AnalyzedPR], *, title_words: bool) -> list[str]:
    """Names close to the searched words: topics, modules, authors of the week and (``title_words``,
    for an explicit search) the words of its titles; one spelling per name (letters and digits)."""
    vocab: dict[str, str] = {}
    for t in ctx.modules.topic_names():
        vocab.setdefault(t.casefold(), t)
    for m in ctx.modules.ids:
        vocab.setdefault(m, m)
        vocab.setdefault(ctx.modules.display(m, ctx.lang).casefold(), ctx.modules.display(m, ctx.lang))
    for p in prs:
        if p.author:
            vocab.setdefault(p.author.casefold(), p.author)
        for w in _TITLE_WORD.findall(p.title.casefold()) if title_words else ():
            if len(w) >= 4:
                vocab.setdefault(w, w)
    out: list[str] = []
    seen = {squash(" ".join(words))}
    for key in [" ".join(words), *words]:
        for hit in difflib.get_close_matches(key, list(vocab), n=3, cutoff=SUGGEST_CUTOFF):
            if squash(hit) not in seen:
                seen.add(squash(hit))
                out.append(vocab[hit])
    return out[:5]


def answer(q: SearchQuery, ctx: AnswerContext) -> Card:
    """The week's PRs that match, best first, with why each matched; else "did you mean"; else
    "nothing matched" (a fallback search is an unsure reading: the chat offers other readings)."""
    lang = ctx.lang
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    words = q.text.split()
    files: dict[int, list[str]] = {}
    if ctx.history is not None:
        files = {p.number: [f.path for f in p.files] for p in ctx.history.merged_between(d.start, d.end)}
    scored: dict[int, tuple[int, list[str]]] = {}
    for p in d.prs:
        s, why = score(p, words, ctx, files.get(p.number, []))
        if s:
            scored[p.number] = (s, why)
    shown = clip(q.text, 60)
    header = tr(lang, "card.search.header", text=shown, week=w.week)
    if not scored:
        near = suggestions(words, ctx, list(d.prs), title_words=not q.fallback)
        if near:
            return message_card(header, [tr(lang, "card.search.none", text=shown, week=w.week),
                                         tr(lang, "card.search.did_you_mean", names=tr(lang, "sep").join(near))],
                                lang=lang, role="search_suggestions")
        return message_card(header, [tr(lang, "card.search.none", text=shown, week=w.week)], lang=lang, role="search")
    prs = [p for p in d.prs if p.number in scored]

    def detail(p: AnalyzedPR) -> str:
        return " · ".join(x for x in (f"{p.importance:.1f}", *scored[p.number][1][:2], new_gist(p)) if x)

    return filtered_card(d, prs, header=header, count_line=tr(lang, "card.filter.count", n=len(prs), total=d.total_prs),
                         empty_line="", detail=detail, report_url=w.report_url, limits=ctx.limits,
                         notice=list(w.notice), key=lambda p: (-scored[p.number][0], -p.importance, p.number),
                         heading_key="card.search.ranked")


INTENT = Intent(name="search", query=SearchQuery, patterns=PATTERNS, parse=parse, answer=answer, fallback=fallback,
                help_rank=38,
                help={"en": "search kv cache / Kimi changes / DeepSeek V4: PRs by title, path, module, topic or author",
                      "zh": "搜索 kv cache / Kimi / DeepSeek V4：按标题、路径、模块、主题或作者查找 PR"},
                before=("pr_lookup",))
