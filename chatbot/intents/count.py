"""Intent ``count``: counts and superlatives over a week's PRs or a range of weeks — "how many perf
PRs this week", "本周有多少个 PR", "which module had the most PRs", "who merged the most last week",
"top 3 modules", "the biggest PRs in attention". The PRs are narrowed by the message's filters
(:class:`chatbot.filters.Filters`); ``by`` says what is counted or ranked:

==========  ===========================================================
``prs``     how many PRs pass (and the list, by importance)
``module``  PRs per module (a PR counts once in each of its modules)
``author``  PRs per author (bots excluded, as in the contributors)
``label``   PRs per label
``size``    the PRs with the most changed lines (additions + deletions)
==========  ===========================================================
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

from pydantic import Field

from chatbot.gist_line import new_gist
from chatbot.cards import Card, Line, Section, Text, Untrusted, filtered_card, message_card
from chatbot.entities import MAX_COUNT, RangeRef, weeks_of_range
from chatbot.filters import Filters, keep, resolve_words, subject_names
from chatbot.i18n import lines_text, tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns
from chatbot.models import AnalyzedPR

DEFAULT_N = 5
"""How many entries a ranking lists when the message gives no number."""


class CountQuery(QueryBase):
    """A count or a ranking (see the module docstring)."""

    intent: Literal["count"] = "count"
    week: WeekRef = "current"
    span: RangeRef | None = None
    by: Literal["prs", "module", "author", "label", "size"] = "prs"
    n: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    """How many a ranking lists (None: :data:`DEFAULT_N`; 0: "a count starts at 1")."""
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    risky: bool = False
    words: tuple[str, ...] = ()

    def filters(self) -> Filters:
        """The query's :class:`chatbot.filters.Filters`."""
        return Filters(modules=self.modules, topics=self.topics, labels=self.labels, tags=self.tags, risky=self.risky,
                       words=self.words)


_HOW_MANY = r"\bhow many\b|\bnumber of\b|\bcount(?:s|ed)?\b|\bhow much\b|多少|几个|几条|数量|总数"
_MOST = r"\b(?:the )?most\b|\bbusiest\b|\bmost active\b|最多|最活跃|最忙"
_SIZE = r"\b(?:biggest|largest)(?: (?:changes?|prs?|pull requests?|diffs?))?\b|最大的?(?: ?pr| ?改动)?|改动最多|行数最多"
_BY = {"module": r"\bmodules?\b|\bareas?\b|\bcomponents?\b|模块|领域",
       "author": r"\bwho\b|\bauthors?\b|\bcontributors?\b|\bpeople\b|谁|作者|贡献者",
       "label": r"\blabels?\b|\bcategor(?:y|ies)\b|标签|类别"}
PATTERNS = {"en": (_HOW_MANY, _MOST, _SIZE, r"\btop [0-9]{1,3} (?:modules?|authors?|labels?)\b")}
_COUNT_RX = compile_patterns(PATTERNS)
_RXS = {k: re.compile(v) for k, v in _BY.items()}
_SIZE_RX = re.compile(_SIZE)
_MOST_RX = re.compile(_MOST + r"|\btop [0-9]{1,3}\b")


def parse(inp: ParseInput) -> CountQuery | None:
    """A count or superlative word, with what is ranked (module, author, label) and the filters."""
    if not _COUNT_RX.search(inp.text):
        return None
    e = inp.entities
    by: Literal["prs", "module", "author", "label", "size"] = "prs"
    if _SIZE_RX.search(inp.text):
        by = "size"
    elif _MOST_RX.search(inp.text) or re.search(_HOW_MANY, inp.text) is None:
        for kind, rx in _RXS.items():
            if rx.search(inp.text):
                by = kind  # type: ignore[assignment]
                break
    words = e.words if by != "author" else tuple(w for w in e.words if not _RXS["author"].fullmatch(w))
    return CountQuery(lang=inp.lang, week=e.week, span=e.span, by=by, n=e.n, modules=e.modules, topics=e.topics,
                      labels=e.labels, tags=e.tags, risky=e.risk, words=words)


def answer(q: CountQuery, ctx: AnswerContext) -> Card:
    """The count, ranking or biggest PRs (see the module docstring)."""
    lang = ctx.lang
    if q.n == 0:
        return ctx.zero_count("card.count.example_size" if q.by == "size" else "card.count.example")
    f = q.filters()
    if q.span is not None:
        digests = [ctx.provider.digest(w, lang) for w in weeks_of_range(q.span, ctx.current_week())]
        digests = [d for d in digests if d.total_prs]
        if not digests:
            return message_card(ctx.provider.digest(ctx.current_week(), lang).repo,
                                [tr(lang, "card.empty_week", week=ctx.current_week())], lang=lang, role="empty")
        d, notice, where = digests[-1], [], f"{digests[0].week}–{digests[-1].week}"
        pool = [p for x in digests for p in x.prs]
    else:
        w = ctx.week_digest(q.week)
        if isinstance(w, Card):
            return w
        d, notice, where, pool = w.digest, list(w.notice), str(w.week), list(w.digest.prs)
    author, ignored = resolve_words(f, pool, ctx.people(d))
    prs = [p for p in pool if keep(p, f, ctx.modules, author)]
    names = subject_names(f, ctx.modules, lang) + [tr(lang, f"risk.{t}") for t in f.tags]
    if f.risky and not f.tags:
        names.append(tr(lang, "card.filter.any_risk"))
    if author is not None:
        names.append(tr(lang, "card.count.by", name=author))
    what = tr(lang, "sep").join(names) or tr(lang, "card.count.all_size" if q.by == "size" else "card.count.all")
    notice += ctx.ignored_line(ignored)
    n = q.n or DEFAULT_N
    if q.by in ("module", "author", "label"):
        counts: Counter[str] = Counter()
        for p in prs:
            if q.by == "module":
                counts.update(set(p.modules))
            elif q.by == "label":
                counts.update(set(p.labels))
            elif p.author and not p.author.endswith("[bot]"):
                counts[p.author] += 1
        ranked = sorted(counts.items(), key=lambda x: (-x[1], x[0]))[:n]
        header = tr(lang, "card.count.header", what=what, where=where)
        rows: list[Line] = [(Text(text=t),) for t in notice]
        rows.append((Text(text=tr(lang, f"card.count.rank_{q.by}", what=what, where=where)),))
        for i, (k, c) in enumerate(ranked, 1):
            name: Text | Untrusted = Text(text=ctx.modules.display(k, lang)) if q.by == "module" else Untrusted(text=k)
            rows.append((Text(text=f"{i}. "), name, Text(text=tr(lang, "colon") + tr(lang, "card.count.entry", n=c))))
        if not ranked:
            rows.append((Text(text=tr(lang, "card.count.zero", what=what, where=where)),))
        return Card(header=header, lang=lang, blocks=(Section(role="count", lines=tuple(rows)),), fallback=header)
    limits = ctx.limits if q.by == "prs" else ctx.limits.model_copy(update={"list_items": n})

    def detail(p: AnalyzedPR) -> str:
        return " · ".join(x for x in (f"{p.importance:.1f}", lines_text(p.additions, p.deletions), new_gist(p)) if x)

    key = (lambda p: (-(p.additions + p.deletions), p.number)) if q.by == "size" else (lambda p: (-p.importance, p.number))
    return filtered_card(d, prs, header=tr(lang, "card.count.header", what=what, where=where),
                         count_line=tr(lang, "card.count.prs", n=len(prs), what=what, where=where, total=len(pool))
                         if names else tr(lang, "card.count.prs_all", n=len(prs)),
                         empty_line=tr(lang, "card.count.zero", what=what, where=where), detail=detail,
                         limits=limits, notice=notice, key=key,
                         heading_key="card.count.biggest" if q.by == "size" else "card.h.matching")


INTENT = Intent(name="count", query=CountQuery, patterns=PATTERNS, parse=parse, answer=answer, help_rank=52,
                help={"en": "how many perf PRs / which module had the most PRs / the biggest PRs [this week]",
                      "zh": "多少个性能优化 PR / 哪个模块 PR 最多 / 最大的 PR [本周]"},
                before=("paths",))
