"""Reverts and PR references among the input PRs: GitHub's revert titles, cited numbers, and which
PR of a week was reverted by a later one. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from chatbot.models import PullRequest

_REVERT_RE = re.compile(r'^\s*revert\s*[:\s]\s*"(?P<title>.*)"\s*(?:\(#(?P<num>\d+)\))?\s*$', re.IGNORECASE | re.DOTALL)
_REVERT_LOOSE_RE = re.compile(r"^\s*revert\b", re.IGNORECASE)
_PR_REF_RE = re.compile(r"(?<![\w/])#(\d{1,7})\b")
_PR_URL_RE = re.compile(r"github\.com/[\w.-]+/[\w.-]+/pull/(\d{1,7})\b")
_TRAILING_NUM_RE = re.compile(r"\s*\(#\d+\)\s*$")


@dataclass(frozen=True, slots=True)
class RevertLink:
    """A revert PR and what it reverts: a PR number (when known) and the quoted title."""

    number: int | None
    title: str | None


def parse_revert(title: str) -> RevertLink | None:
    """Parse ``Revert "<title>" (#123)`` (GitHub's revert-button title); None when not a revert.

    A title that starts with ``Revert`` but has no quoted part is still a revert of unknown target.
    """
    m = _REVERT_RE.match(title)
    if m:
        num = m.group("num")
        inner = _TRAILING_NUM_RE.sub("", m.group("title")).strip()
        inner_num = re.search(r"\(#(\d+)\)\s*$", m.group("title"))
        number = int(num) if num else (int(inner_num.group(1)) if inner_num else None)
        return RevertLink(number, inner or None)
    if _REVERT_LOOSE_RE.match(title):
        return RevertLink(None, None)
    return None


def cited_numbers(pr: PullRequest) -> set[int]:
    """PR/issue numbers a PR's title or body cites (``#123``, or a ``.../pull/123`` link)."""
    text = f"{pr.title}\n{pr.body}"
    nums = {int(n) for n in _PR_REF_RE.findall(text)}
    nums.update(int(n) for n in _PR_URL_RE.findall(text))
    nums.discard(pr.number)
    return nums


@dataclass(frozen=True)
class RevertGraph:
    """Revert relations among input PRs.

    ``target``: revert PR -> the PR it reverts (when found in the input or named by number).
    ``reverted_by``: PR -> the later revert merged in the same week (unless that revert was itself
    reverted in the week, which makes the original a re-land, not reverted), or a revert merged in a
    later week when the input holds it (a store that also holds later weeks).
    """

    target: dict[int, int | None] = field(default_factory=dict)
    quoted: dict[int, str | None] = field(default_factory=dict)
    reverted_by: dict[int, int] = field(default_factory=dict)


def build_revert_graph(week_prs: Sequence[PullRequest], context: Mapping[int, PullRequest]) -> RevertGraph:
    """Find reverts among ``week_prs``; ``context`` holds every input PR by number (for title matches)."""
    by_title: dict[str, int] = {}
    for num in sorted(context):
        by_title.setdefault(_TRAILING_NUM_RE.sub("", context[num].title).strip().casefold(), num)
    graph = RevertGraph()
    week_nums = {p.number for p in week_prs}
    for pr in sorted(week_prs, key=lambda p: (p.merged_at, p.number)):
        link = parse_revert(pr.title)
        if link is None:
            continue
        target = link.number
        if target is None and link.title:
            target = by_title.get(link.title.casefold())
        graph.target[pr.number] = target
        graph.quoted[pr.number] = link.title
    # reverted_by: same week, revert merged after the target; a reverted revert cancels.
    for rev, target in graph.target.items():
        if target is None or target not in week_nums:
            continue
        t = context[target]
        r = context[rev]
        if (r.merged_at, r.number) > (t.merged_at, t.number):
            graph.reverted_by[target] = rev
    for rev, target in graph.target.items():
        if rev in graph.reverted_by and target is not None and graph.reverted_by.get(target) == rev:
            del graph.reverted_by[target]  # the revert was itself reverted: the original is re-landed
    # A later week's revert (the store holds later weeks): facts across weeks.
    for num in sorted(context):
        later = context[num]
        if num in week_nums:
            continue
        link = parse_revert(later.title)
        if link is None:
            continue
        target = link.number if link.number is not None else (by_title.get(link.title.casefold()) if link.title else None)
        if target in week_nums and target not in graph.reverted_by and later.merged_at > context[target].merged_at:
            graph.reverted_by[target] = num
    return graph
