"""History: week-over-week deltas, new contributors and multi-week trends. Pure.

The digest of one week says nothing about the weeks before it; this module compares it with
them. Inputs are digests (or their :class:`WeekStats`) of earlier weeks and the set of authors
seen before the week; reading them from the PR store is the composition root's job
(``prhub/report.py``). Nothing here reads a clock, a file or a database.

Counts are PR counts; ``avg_importance`` is the 0.0-10.0 average of the digest (one decimal);
deltas are ``value - previous`` (average importance deltas rounded to one decimal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from chatbot.models import DigestText, Frozen

COUNT_KINDS = ("labels", "modules", "risk_tags")
"""The keyed counts a :class:`WeekStats` carries (besides the PR total and average importance)."""


class WeekStats(Frozen):
    """The comparable numbers of one week's digest.

    ``label_counts``/``module_counts``/``risk_tag_counts`` are PR counts ordered as in the digest
    (count descending, then key). ``contributors`` counts distinct human authors.
    """

    week: str
    total_prs: int
    key_prs: int
    avg_importance: float
    contributors: int
    label_counts: dict[str, int]
    module_counts: dict[str, int]
    risk_tag_counts: dict[str, int]

    def counts(self, kind: str) -> dict[str, int]:
        """The count map of ``kind`` (``labels``, ``modules`` or ``risk_tags``).

        Raises:
            KeyError: unknown ``kind``.
        """
        return {"labels": self.label_counts, "modules": self.module_counts, "risk_tags": self.risk_tag_counts}[kind]


class NewContributor(Frozen):
    """An author whose first stored merged PR is in this week, with that week's PRs (number order)."""

    login: str
    prs: tuple[int, ...]


class WeekHistory(Frozen):
    """How one week compares with the stored weeks before it.

    ``previous`` is the week right before (None when the store holds none of its PRs).
    ``new_contributors`` are meaningful only when ``history_start`` (the ISO week of the oldest
    stored PR, None when nothing older than this week is stored) is well before ``week``;
    ``history_weeks`` counts the weeks from ``history_start`` up to (not including) ``week``.
    """

    week: str
    previous: WeekStats | None = None
    new_contributors: tuple[NewContributor, ...] = ()
    history_start: str | None = None
    history_weeks: int = 0

    def delta(self, kind: str, key: str, value: int) -> int | None:
        """``value`` minus the previous week's count of ``key`` in ``kind`` (0 when absent there);
        None without a previous week. ``kind`` ``total`` compares the PR totals (``key`` ignored)."""
        if self.previous is None:
            return None
        if kind == "total":
            return value - self.previous.total_prs
        return value - self.previous.counts(kind).get(key, 0)

    def avg_delta(self, value: float) -> float | None:
        """Average importance minus the previous week's (one decimal); None without a previous week."""
        if self.previous is None:
            return None
        return round(value - self.previous.avg_importance + 0.0, 1)


class TrendWeek(Frozen):
    """One row of a trend: the week's stats and the change against the row before (None for the first)."""

    stats: WeekStats
    total_delta: int | None = None
    avg_delta: float | None = None
    label_deltas: dict[str, int] = {}
    module_deltas: dict[str, int] = {}
    risk_tag_deltas: dict[str, int] = {}


class Trends(Frozen):
    """Consecutive weeks of one repository, oldest first, with deltas between neighbours.

    ``top_labels``/``top_modules``/``top_risk_tags`` are the keys with the largest totals over all the
    weeks (ties by key), at most ``top`` each: the series a chart or table shows.
    """

    repo: str
    weeks: tuple[TrendWeek, ...]
    top_labels: tuple[str, ...]
    top_modules: tuple[str, ...]
    top_risk_tags: tuple[str, ...]
    module_names: dict[str, str] = {}


def week_stats(digest: DigestText) -> WeekStats:
    """The comparable numbers of ``digest``."""
    return WeekStats(
        week=digest.week,
        total_prs=digest.total_prs,
        key_prs=len(digest.key_prs),
        avg_importance=digest.avg_importance,
        contributors=len(digest.contributors),
        label_counts=dict(digest.label_counts),
        module_counts=dict(digest.module_counts),
        risk_tag_counts=dict(digest.risk_tag_counts),
    )


def new_contributors(digest: DigestText, earlier_authors: Iterable[str]) -> tuple[NewContributor, ...]:
    """Authors of ``digest`` (bots excluded, as in ``digest.contributors``) not in ``earlier_authors``.

    Args:
        digest: the week.
        earlier_authors: logins with a PR merged before the week's start (case-sensitive, as stored).

    Returns:
        One entry per new author, ordered by PR count descending then login; PRs in number order.
    """
    seen = set(earlier_authors)
    humans = [c for c in digest.contributors if c.login not in seen]
    by_author: dict[str, list[int]] = {}
    for p in digest.prs:
        by_author.setdefault(p.author, []).append(p.number)
    return tuple(NewContributor(login=c.login, prs=tuple(sorted(by_author.get(c.login, ())))) for c in humans)


def week_history(
    digest: DigestText,
    *,
    previous: WeekStats | None,
    earlier_authors: Iterable[str],
    history_start: str | None,
    history_weeks: int = 0,
) -> WeekHistory:
    """The :class:`WeekHistory` of ``digest``.

    Args:
        digest: the week.
        previous: stats of the week right before (None when not stored).
        earlier_authors: logins with a PR stored as merged before the week's start.
        history_start: ISO week of the oldest stored PR before the week (None: nothing earlier stored).
        history_weeks: number of weeks from ``history_start`` to the week (exclusive).

    Returns:
        The history; ``new_contributors`` is empty when nothing earlier is stored (everyone would be new).
    """
    news = new_contributors(digest, earlier_authors) if history_start is not None else ()
    return WeekHistory(week=digest.week, previous=previous, new_contributors=news,
                       history_start=history_start, history_weeks=history_weeks)


def _top(rows: Sequence[WeekStats], kind: str, top: int) -> tuple[str, ...]:
    totals: dict[str, int] = {}
    for r in rows:
        for k, v in r.counts(kind).items():
            totals[k] = totals.get(k, 0) + v
    return tuple(k for k, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:top])


def _deltas(cur: Mapping[str, int], prev: Mapping[str, int]) -> dict[str, int]:
    keys = sorted(set(cur) | set(prev))
    return {k: cur.get(k, 0) - prev.get(k, 0) for k in keys}


def build_trends(repo: str, weeks: Sequence[WeekStats], *, top: int = 5,
                 module_names: Mapping[str, str] | None = None) -> Trends:
    """Trends over ``weeks`` (oldest first; consecutive or not, each row is compared with the row before).

    Args:
        repo: ``owner/name``.
        weeks: stats per week, oldest first.
        top: how many labels/modules/risk tags to single out (>= 1).
        module_names: display names of module ids (in the output language).

    Raises:
        ValueError: ``top`` < 1, or the weeks are not in increasing order.
    """
    if top < 1:
        raise ValueError("top must be >= 1")
    if any(a.week >= b.week for a, b in zip(weeks, weeks[1:])):
        raise ValueError("weeks must be in increasing order without repeats")
    rows: list[TrendWeek] = []
    for i, w in enumerate(weeks):
        if i == 0:
            rows.append(TrendWeek(stats=w))
            continue
        p = weeks[i - 1]
        rows.append(TrendWeek(
            stats=w,
            total_delta=w.total_prs - p.total_prs,
            avg_delta=round(w.avg_importance - p.avg_importance + 0.0, 1),
            label_deltas=_deltas(w.label_counts, p.label_counts),
            module_deltas=_deltas(w.module_counts, p.module_counts),
            risk_tag_deltas=_deltas(w.risk_tag_counts, p.risk_tag_counts),
        ))
    names = dict(module_names or {})
    return Trends(repo=repo, weeks=tuple(rows), top_labels=_top(weeks, "labels", top),
                  top_modules=_top(weeks, "modules", top), top_risk_tags=_top(weeks, "risk_tags", top),
                  module_names=names)


def signed(n: int | float | None) -> str:
    """``+2``, ``-3``, ``±0``, ``+0.3`` (floats with one decimal); empty for None."""
    if n is None:
        return ""
    if isinstance(n, float):
        return "±0.0" if abs(n) < 0.05 else f"{n:+.1f}"
    return "±0" if n == 0 else f"{n:+d}"
