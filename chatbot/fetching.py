"""Fetch finality: weeks of merged PRs from a source into the store, each week fetched again only until
it is final. Written against the ports (:class:`~chatbot.ports.PullRequestSource`,
:class:`~chatbot.ports.PullRequestStore`, :class:`~chatbot.ports.Clock`); ``prhub/`` wires the GitHub
source, the SQL store and the system clock (``prhub fetch``, ``prhub digest --source github``, the
weekly job's ``source: github``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from chatbot.errors import SourceError
from chatbot.models import PullRequest
from chatbot.ports import Clock, FetchResult, PullRequestSource, PullRequestStore, WeekFetch
from chatbot.weeks import IsoWeek, load_zone

FINAL_AFTER = timedelta(hours=24)
"""A week whose stored fetch began this long after the week ended is final: never fetched again."""


@dataclass(frozen=True)
class WeekFetchOutcome:
    """One week of ``prhub fetch``: the week, its merged PRs, requests spent, whether the stored
    copy was final (``cached``: 0 requests), and the GraphQL points spent."""

    week: IsoWeek
    prs: list[PullRequest]
    requests: int
    cached: bool
    points: int = 0


def is_final(fetch: WeekFetch | None, week_end: datetime) -> bool:
    """True when ``fetch`` began more than :data:`FINAL_AFTER` after ``week_end`` (aware UTC)."""
    return fetch is not None and fetch.started_at > week_end + FINAL_AFTER


def fetch_week(source: PullRequestSource, store: PullRequestStore, repo: str, week: IsoWeek, tz: str, *,
               refresh: bool = False, clock: Clock) -> WeekFetchOutcome:
    """Fetch one week's merged PRs from ``source`` into ``store``, unless the stored week is final.

    A final week (see :func:`is_final`) is read from the store with 0 requests; ``refresh`` fetches it
    again. A fetch is stored with its :class:`~chatbot.ports.WeekFetch` record in one transaction.

    Raises:
        SourceError: the source could not list every matching PR (nothing is stored).
        PrhubError: from the source (rate limit, permission) or the store.
    """
    return next(iter(fetch_weeks(source, store, repo, [week], tz, refresh=refresh, clock=clock)))


def fetch_weeks(source: PullRequestSource, store: PullRequestStore, repo: str, weeks: list[IsoWeek], tz: str, *,
                refresh: bool = False, clock: Clock) -> Iterator[WeekFetchOutcome]:
    """:func:`fetch_week` for each of ``weeks``, in order, each stored as soon as it is complete.

    Final weeks cost 0 requests; the others are fetched as one stream of windows when the source offers
    ``merged_windows`` (the GitHub source: a week's last, partly filled search page is shared with the
    next week's first, so a 52-week backfill costs about one request per 50 PRs), else week by week.

    Raises:
        as :func:`fetch_week` (weeks yielded before the error stay stored).
    """
    zone = load_zone(tz)
    windows = {week: week.utc_window(zone) for week in weeks}
    todo = [w for w in weeks if refresh or not is_final(store.week_fetch(repo, str(w), tz), windows[w][1])]
    many = getattr(source, "merged_windows", None)
    results: Iterator[FetchResult] = (iter(many(repo, [windows[w] for w in todo])) if many is not None
                                      else (source.merged_between(repo, *windows[w]) for w in todo))
    started = clock.now()  # the stream reads ahead into the next week: every week's fetch began here (conservative for is_final)
    for week in weeks:
        if week not in todo:
            yield WeekFetchOutcome(week, store.merged_between(repo, *windows[week]), 0, True)
            continue
        result = next(results)
        if not result.complete:
            raise SourceError(f"GitHub search matched {result.matched} PRs of {repo} in {week} but listed only "
                              f"{len(result.prs)}: not storing a partial week")
        record = WeekFetch(repo=repo, week=str(week), tz=tz, started_at=started, finished_at=clock.now(),
                           prs=len(result.prs), requests=result.requests)
        store.store_week(repo, result.prs, record)
        yield WeekFetchOutcome(week, list(result.prs), result.requests, False, result.points)
