"""Intent ``paths``: the PRs of a week that changed a file or anything under a directory ("PRs
touching vllm/v1/worker", "who changed setup.py", "改了 vllm/v1/worker 的 PR").

A path is a word of letters, digits, ``_ . -`` with at least one ``/`` or ending in a known file
extension. It matches a changed file equal to it or under it (a directory prefix), compared
case-insensitively; a path with no ``/`` matches a file of that name in any directory; when no
PR matches from the repository root, the path is looked for deeper (``v1/worker`` finds
``vllm/v1/worker/...``). The changed files come from the stored history
(:class:`chatbot.pr_history.PRHistory`), since a digest keeps no file list per PR.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from chatbot.cards import Card, filtered_card, message_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef
from chatbot.entities import PATH_RX
from chatbot.models import AnalyzedPR

PATTERNS = {"en": (PATH_RX.pattern.replace("?P<p>", ""),)}
"""The path itself is this intent's word (:data:`chatbot.entities.PATH_RX`)."""


class PathQuery(QueryBase):
    """PRs of a week that changed ``path`` (case-folded, no leading or trailing ``/``)."""

    intent: Literal["paths"] = "paths"
    week: WeekRef = "current"
    path: str


def parse(inp: ParseInput) -> PathQuery | None:
    """The first path the text names (:attr:`chatbot.entities.Entities.paths`; a PR URL is none)."""
    paths = inp.entities.paths
    return PathQuery(lang=inp.lang, week=inp.week, path=paths[0]) if paths else None


def matching_files(path: str, files: Sequence[str], *, deep: bool = False) -> list[str]:
    """The files equal to ``path`` or under it (case-insensitive); a path without ``/`` matches a
    file name anywhere; ``deep``: the path may start below the root (``v1/worker``)."""
    want = path.casefold()
    out = []
    for f in files:
        k = f.casefold()
        if k == want or k.startswith(want + "/"):
            out.append(f)
        elif "/" not in want and k.rsplit("/", 1)[-1] == want:
            out.append(f)
        elif deep and ("/" + want + "/") in ("/" + k + "/"):
            out.append(f)
    return out


def answer(q: PathQuery, ctx: AnswerContext) -> Card:
    """The week's PRs that changed the path, by importance, with the files they changed there."""
    lang = ctx.lang
    if ctx.history is None:
        return message_card(tr(lang, "card.path.header", path=q.path, week=ctx.current_week()),
                            [tr(lang, "card.path.no_history")], lang=lang, role="paths")
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    start, end = d.start, d.end
    files = {p.number: [f.path for f in p.files] for p in ctx.history.merged_between(start, end)}
    hits: dict[int, list[str]] = {}
    for deep in (False, True):
        for n, fs in files.items():
            found = matching_files(q.path, fs, deep=deep)
            if found:
                hits[n] = found
        if hits:
            break
    prs = [p for p in d.prs if p.number in hits]
    shown = q.path
    if hits:  # the path as the repository spells it
        first = min(hits[min(hits)])
        at = first.casefold().find(q.path.casefold())
        shown = first[at:at + len(q.path)] if at >= 0 else q.path

    def detail(p: AnalyzedPR) -> str:
        there = hits[p.number]
        where = tr(lang, "card.path.files", n=len(there), first=there[0])
        risks = tr(lang, "sep").join(tr(lang, f"risk.{t}") for t in p.risk_tags)
        return " · ".join(x for x in (f"{p.importance:.1f}", where, risks) if x)

    return filtered_card(d, prs, header=tr(lang, "card.path.header", path=shown, week=w.week),
                         count_line=tr(lang, "card.filter.count", n=len(prs), total=d.total_prs),
                         empty_line=tr(lang, "card.path.none", path=shown, week=w.week), detail=detail,
                         report_url=w.report_url, limits=ctx.limits, notice=list(w.notice))


INTENT = Intent(name="paths", query=PathQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=36,
                help={"en": "PRs touching vllm/v1/worker (a file or a directory) [last week]",
                      "zh": "改了 vllm/v1/worker 的 PR（文件或目录）[上周]"},
                before=("review_first",))
