"""Requests one real week (vllm-project/vllm 2026-W20) costs: a naive PyGithub loop vs prhub's GitHub source.

Runs against the fake GitHub of the tests (tests/fakes/github_server.py) on 127.0.0.1, which serves
the real week from ../shared/data/vllm and answers GraphQL with GitHub's published schema. Both
clients are PyGithub with the same client-side request counter (304s excluded).

Usage: python benchmarks/github_requests.py [--backfill] [--quick]
(``--backfill``: the 52 weeks of 2025 one by one instead; last line ``backfill_requests: N``;
``--quick``: the CI smoke run, prhub's source only, no naive loop.)
Last lines: ``naive_requests: K``, ``prs: M``, ``requests_per_week: N``, then the yardstick
(:mod:`benchmarks.yardstick`, CPU of ``json.loads`` of the shipped week, this run).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.github.search import merged_search  # noqa: E402
from adapters.github.source import GitHubPullRequestSource  # noqa: E402
from adapters.github.transport import RequestCounter, counting_github  # noqa: E402
from benchmarks.yardstick import yardstick, yardstick_line  # noqa: E402
from prhub.clock import SYSTEM_CLOCK  # noqa: E402
from tests.fakes.github_server import VLLM_DIR, VLLM_REPO, FakeGitHub, load_schema  # noqa: E402

TOKEN = "benchmark-token"
START = datetime(2026, 5, 11, tzinfo=timezone.utc)
END = datetime(2026, 5, 18, tzinfo=timezone.utc)


def naive(base_url: str) -> tuple[int, int]:
    """The plain PyGithub loop: search issues, then per PR get_pull, files, reviews, review comments.

    Returns ``(requests, merged PRs)``.
    """
    counter = RequestCounter()
    gh = counting_github(TOKEN, base_url, counter, per_page=100)
    repo = gh.get_repo(VLLM_REPO)
    merged = 0
    for issue in gh.search_issues(merged_search(VLLM_REPO, START, END)):
        pr = repo.get_pull(issue.number)
        if pr.merged_at is None:  # from the payload: no extra request (pr.merged would cost one)
            continue
        list(pr.get_files())
        list(pr.get_reviews())
        list(pr.get_review_comments())
        merged += 1
    return counter.value, merged


def backfill() -> int:
    """``--backfill``: the 52 ISO weeks of 2025 through the real ``prhub fetch --from 2025-W01 --to 2025-W52``
    path (:func:`prhub.bootstrap.fetch_github_weeks`, a fresh SQLite store) from a fake GitHub serving
    the real 2025 archive; prints the week-by-week figure of one search stream per week for comparison
    and ``backfill_requests: N`` (target <= 250)."""
    import contextlib
    import gzip
    import io
    import json
    import os
    import tempfile
    from zoneinfo import ZoneInfo

    from chatbot.weeks import IsoWeek
    from prhub import bootstrap

    year = ROOT.parent / "shared" / "data" / "vllm-2025.json.gz"
    if load_schema() is None or not year.exists():
        print("needs ../shared/data (github-schema.graphql and vllm-2025.json.gz)", file=sys.stderr)
        return 1
    records = json.loads(gzip.decompress(year.read_bytes()))
    weeks = bootstrap.week_range(IsoWeek(2025, 1), IsoWeek(2025, 52))
    with FakeGitHub(token=TOKEN, repos={VLLM_REPO: records}) as fake, tempfile.TemporaryDirectory() as tmp:
        os.environ.update({"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url})
        with contextlib.redirect_stderr(io.StringIO()):  # the per-page progress lines
            outcomes = bootstrap.fetch_github_weeks(VLLM_REPO, weeks, "UTC", db=f"sqlite:///{tmp}/backfill.db")
        requests = fake.requests
        searches = sum("PrhubMergedPulls" in body for body in fake.bodies)
        fake.reset_log()
        single = GitHubPullRequestSource(TOKEN, clock=SYSTEM_CLOCK, base_url=fake.base_url)  # one week at a time, for comparison
        for week in weeks:
            single.merged_between(VLLM_REPO, *week.utc_window(ZoneInfo("UTC")))
    prs = sum(len(o.prs) for o in outcomes)
    print(f"backfill 2025-W01..2025-W52: {prs} merged PRs; {searches} search requests (ceil({prs}/50) = "
          f"{math.ceil(prs / 50)}), {requests - searches} follow-up requests")
    print(f"week by week (one merged_between per week): {single.requests} requests")
    print(f"backfill_requests: {requests}")
    print(yardstick_line(yardstick()))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backfill", action="store_true", help="the 52 weeks of 2025 through prhub fetch")
    ap.add_argument("--quick", action="store_true", help="CI smoke run: prhub's source only")
    args = ap.parse_args()
    if args.backfill:
        return backfill()
    if load_schema() is None or not (VLLM_DIR / "2026-W20.json").exists():
        print("needs ../shared/data (github-schema.graphql and vllm/2026-W20.json)", file=sys.stderr)
        if args.quick:  # the CI smoke run without ../shared: nothing to run against
            print(yardstick_line(yardstick()))
            return 0
        return 1
    with FakeGitHub(token=TOKEN) as fake:
        t0 = time.perf_counter()
        naive_requests, naive_prs = (0, 0) if args.quick else naive(fake.base_url)
        t1 = time.perf_counter()
        source = GitHubPullRequestSource(TOKEN, clock=SYSTEM_CLOCK, base_url=fake.base_url)
        result = source.merged_between(VLLM_REPO, START, END)
        t2 = time.perf_counter()
        server_side = fake.requests
    n = len(result.prs)
    print(f"week: {VLLM_REPO} 2026-W20 [{START:%Y-%m-%dT%H:%MZ}, {END:%Y-%m-%dT%H:%MZ})")
    print(f"naive loop: {naive_prs} merged PRs in {t1 - t0:.1f} s")
    print(f"github source: {n} merged PRs in {t2 - t1:.1f} s; target <= 6 for the 217-PR week (ceil({n}/50) = {math.ceil(n / 50)} search pages)")
    print(f"fake server saw {server_side} requests in total (both clients)")
    print(f"naive_requests: {naive_requests}")
    print(f"prs: {n}")
    print(f"requests_per_week: {result.requests}")
    print(yardstick_line(yardstick()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
