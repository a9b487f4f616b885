"""GraphQL points prhub's GitHub source spends: one real week (vllm-project/vllm 2026-W20, 217 PRs)
and the 52-week backfill of 2025 (8,251 PRs), against the fake GitHub of the tests.

GitHub's primary GraphQL limit is points (5,000 an hour for a token), not requests. The fake
(tests/fakes/github_server.py) scores every query the way GitHub documents it (connection requests,
nested ``first:`` multiplied, / 100, rounded, at least 1) and answers ``rateLimit`` truthfully; its
points window runs on a moved clock, and the source waits for ``resetAt`` through the same clock, so
the backfill's waits are counted, not slept. The backfill runs the real ``prhub fetch`` path
(:func:`chatbot.fetching.fetch_weeks`, a fresh SQLite store) at the default budget of 1,000 points
an hour.

Usage: python benchmarks/github_points.py [--quick]
(``--quick``: the week only, the CI smoke run.) Last lines: ``points_per_week: N``,
``backfill_points: N`` (target <= 2,000; not with --quick), then the yardstick
(:mod:`benchmarks.yardstick`, CPU of ``json.loads`` of the shipped week, this run).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.github.points import DEFAULT_POINTS_BUDGET  # noqa: E402
from adapters.github.source import GitHubPullRequestSource  # noqa: E402
from adapters.github.transport import RetryPolicy  # noqa: E402
from benchmarks.yardstick import yardstick, yardstick_line  # noqa: E402
from tests.fakes.github_server import VLLM_DIR, VLLM_REPO, FakeGitHub, load_schema  # noqa: E402

TOKEN = "benchmark-token"
WEEK = (datetime(2026, 5, 11, tzinfo=timezone.utc), datetime(2026, 5, 18, tzinfo=timezone.utc))
YEAR = ROOT.parent / "shared" / "data" / "vllm-2025.json.gz"
START = datetime(2026, 6, 1, 8, 0, tzinfo=timezone.utc)
"""Where the moved clock starts (any instant: the fake's points window opens at the first query)."""


class MovedClock:
    """An aware-UTC clock that a sleep moves forward (nothing really sleeps); records the waits."""

    def __init__(self, start: datetime) -> None:
        self.t = start
        self.waits: list[float] = []

    def now(self) -> datetime:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.t += timedelta(seconds=seconds)


def bulk_threads_50(fake: FakeGitHub) -> int:
    """The points the same search requests would have cost with 50 review threads a PR in the bulk
    page (the query before the points work), scored by the fake from their own text and variables."""
    from graphql import parse

    from adapters.github.queries import THREADS_FIRST
    from tests.fakes.github_server import query_cost

    total = 0
    for body in fake.bodies:
        if "PrhubMergedPulls" in body:
            request = json.loads(body)
            old = request["query"].replace(f"reviewThreads(first: {THREADS_FIRST})", "reviewThreads(first: 50)")
            total += query_cost(load_schema(), parse(old), request["variables"])[0]
    return total


def source_on(fake: FakeGitHub, clock: MovedClock) -> GitHubPullRequestSource:
    """prhub's source on the fake, waiting on the moved clock, at the default points budget."""
    policy = RetryPolicy(sleeper=clock.sleep, clock=clock)
    return GitHubPullRequestSource(TOKEN, clock=clock, base_url=fake.base_url, policy=policy,
                                   points_budget=DEFAULT_POINTS_BUDGET, wait_for_budget=True)


def week() -> int:
    """The 217-PR week: points, requests, and the points a search page costs."""
    clock = MovedClock(START)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now) as fake:
        t0 = time.process_time()
        result = source_on(fake, clock).merged_between(VLLM_REPO, *WEEK)
        cpu = time.process_time() - t0
        pages = [p for p, b in zip(fake.points, [b for b in fake.bodies if "rateLimit" in b]) if "PrhubMergedPulls" in b]
        before = bulk_threads_50(fake)
    print(f"week: {VLLM_REPO} 2026-W20: {len(result.prs)} merged PRs, {result.requests} requests, "
          f"{result.points} GraphQL points (search pages {pages}; with 50 threads a PR in the bulk page: "
          f"{before}); client CPU {cpu:.2f} s")
    print(f"points_per_week: {result.points}")
    return 0


def backfill() -> int:
    """The 52 weeks of 2025 through fetch_weeks: points (target <= 2,000), requests, resetAt waits."""
    from adapters.storage import SqlStore
    from chatbot.fetching import fetch_weeks
    from chatbot.weeks import IsoWeek
    from prhub.bootstrap import week_range

    if not YEAR.exists():
        print("needs ../shared/data/vllm-2025.json.gz", file=sys.stderr)
        return 1
    records = json.loads(gzip.decompress(YEAR.read_bytes()))
    clock = MovedClock(START)
    with FakeGitHub(token=TOKEN, repos={VLLM_REPO: records}, rate_clock=clock.now) as fake, \
            tempfile.TemporaryDirectory() as tmp:
        source = source_on(fake, clock)
        t0 = time.process_time()
        with SqlStore.open(f"sqlite:///{tmp}/backfill.db", clock=clock) as store:
            outcomes = list(fetch_weeks(source, store, VLLM_REPO, week_range(IsoWeek(2025, 1), IsoWeek(2025, 52)),
                                        "UTC", clock=clock))
        cpu = time.process_time() - t0
        searches = sum("PrhubMergedPulls" in b for b in fake.bodies)
        follow_ups = sum("PrhubMorePages" in b for b in fake.bodies)
        search_points = sum(p for p, b in zip(fake.points, [b for b in fake.bodies if "rateLimit" in b])
                            if "PrhubMergedPulls" in b)
        before = bulk_threads_50(fake)
    prs = sum(len(o.prs) for o in outcomes)
    points = sum(o.points for o in outcomes)
    print(f"backfill 2025-W01..2025-W52: {prs} merged PRs, {source.requests} requests ({searches} search, "
          f"{follow_ups} follow-up), {points:,} GraphQL points ({search_points:,} search, "
          f"{points - search_points:,} follow-up; the same searches with 50 threads a PR: {before:,}); budget {DEFAULT_POINTS_BUDGET:,} an hour: "
          f"{len(clock.waits)} wait(s) for resetAt, {sum(clock.waits) / 60:.0f} min on the moved clock; "
          f"client CPU {cpu:.1f} s")
    print(f"backfill_points: {points}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the week only (CI smoke run)")
    args = parser.parse_args()
    if load_schema() is None or not (VLLM_DIR / "2026-W20.json").exists():
        print("needs ../shared/data (github-schema.graphql and vllm/2026-W20.json)", file=sys.stderr)
        print(yardstick_line(yardstick()))
        return 0 if args.quick else 1
    code = week()
    if not args.quick:
        code = code or backfill()
    print(yardstick_line(yardstick()))
    return code


if __name__ == "__main__":
    sys.exit(main())
