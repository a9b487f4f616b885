"""Intent ``labels``: a week's PRs with a label ("本周有哪些性能优化", "perf PRs in attention last
week", "bugfixes by njhill"), the label read by its words in either language
(:data:`chatbot.entities.LABEL_WORDS`) or by the rules' label names and title prefixes, optionally
narrowed by modules, topics or an author (:class:`chatbot.filters.Filters`)."""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card
from chatbot.filters import Filters, keep, label_display, resolve_words
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef


class LabelQuery(QueryBase):
    """PRs of a week carrying any of ``labels`` (label names of the rules)."""

    intent: Literal["labels"] = "labels"
    week: WeekRef = "current"
    labels: tuple[str, ...]
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    """Other words: an author of the week, else ignored."""


PATTERNS = {"en": (r"\b(?:labell?ed|tagged|marked)(?: as| with)?\b",), "zh": ("标签为|标记为|打了标签",)}
"""The words that ask for a label; the label itself is an entity (it scores for no intent, so
"top 5 perf PRs" stays the key PRs with a label filter)."""


def parse(inp: ParseInput) -> LabelQuery | None:
    """A label named, without a risk word (a risky label is the ``risk_tag`` intent's)."""
    e = inp.entities
    if not e.labels or e.risk or e.tags:
        return None
    return LabelQuery(lang=inp.lang, week=inp.week, labels=e.labels, modules=e.modules, topics=e.topics, words=e.words)


def answer(q: LabelQuery, ctx: AnswerContext) -> Card:
    """The week's PRs with the labels (and the other filters), by importance."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    f = Filters(modules=q.modules, topics=q.topics, labels=q.labels, words=q.words)
    author, ignored = resolve_words(f, d.prs, ctx.people(d))
    prs = [p for p in d.prs if keep(p, f, ctx.modules, author)]
    what = tr(lang, "card.label.what", labels=tr(lang, "sep").join(label_display(lb, lang) for lb in q.labels))
    return ctx.filter_card(w, prs, ctx.filter_what(what, f.model_copy(update={"labels": ()}), author), ignored=ignored)


INTENT = Intent(name="labels", query=LabelQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=37, help={"en": "perf / bugfix / docs PRs [in MODULE] [last week]: PRs with that label",
                                    "zh": "性能优化 / 修复 / 文档 [模块] [上周]：带该标签的 PR"},
                before=("author",))
