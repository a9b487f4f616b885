"""GraphQL points (issue 20, item 7): the fake GitHub scores each query the way GitHub documents it
and answers ``rateLimit`` truthfully; the source reads it, sizes its queries to a points budget,
waits for ``resetAt`` through the injected clock and sleeper, and reports the points it spent; the
52-week backfill of 2025 stays within 2,000 points."""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timedelta, timezone

import pytest
from graphql import parse
from typer.testing import CliRunner

from adapters.github import queries
from adapters.github.points import PointsBudget, check_budget, score
from adapters.github.source import GitHubPullRequestSource
from adapters.github.transport import RetryPolicy
from adapters.storage import SqlStore
from chatbot.errors import InputError
from chatbot.fetching import fetch_weeks
from chatbot.weeks import IsoWeek
from prhub.bootstrap import week_range
from tests.adapters.github.conftest import TOKEN
from tests.conftest import shared_file
from tests.fakes.github_server import EXAMPLE_REPO, VLLM_REPO, FakeGitHub, load_schema, query_cost
from tests.fakes.inbound import MovableClock

W20 = (datetime(2026, 5, 11, tzinfo=timezone.utc), datetime(2026, 5, 18, tzinfo=timezone.utc))
T0 = datetime(2026, 6, 1, 8, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def schema():
    s = load_schema()
    if s is None:
        pytest.skip("needs ../shared/data/github-schema.graphql")
    return s


class ClockSleeper:
    """The injected sleeper of a moved clock: records each wait and moves the clock by it."""

    def __init__(self, clock: MovableClock) -> None:
        self.clock = clock
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.clock.advance(timedelta(seconds=seconds))


def _source(fake, clock, **kw):
    sleeper = ClockSleeper(clock)
    policy = RetryPolicy(sleeper=sleeper, clock=clock)
    kw.setdefault("wait_for_budget", True)  # as prhub fetch: a backfill waits for the reset
    return GitHubPullRequestSource(TOKEN, clock=clock, base_url=fake.base_url, policy=policy, **kw), sleeper


# -------------------------------------------------------------------------------- the fake's score


def test_the_fake_scores_githubs_documented_example(schema):
    """GitHub's example: repositories(first: 100) > issues(first: 50) > labels(first: 60) needs
    1 + 100 + 5,000 = 5,101 requests: 51 points; its node-limit example is 22,060 nodes."""
    doc = ("query { viewer { login repositories(first: 100) { edges { node { id issues(first: 50) { edges { node "
           "{ id labels(first: 60) { edges { node { id name } } } } } } } } } } }")
    assert query_cost(schema, parse(doc), {}) == (51, 100 + 100 * 50 + 100 * 50 * 60)
    nodes = ("query { viewer { repositories(first: 50) { edges { repository:node { name pullRequests(first: 20) "
             "{ edges { pullRequest:node { title comments(first: 10) { edges { comment:node { bodyHTML } } } } } } "
             "issues(first: 20) { totalCount edges { issue:node { title bodyHTML comments(first: 10) { edges "
             "{ comment:node { bodyHTML } } } } } } } } } followers(first: 10) { edges { follower:node { login } } } } }")
    assert query_cost(schema, parse(nodes), {})[1] == 22060
    assert query_cost(schema, parse("{ rateLimit { cost } }"), {})[0] == 1  # the minimum


def test_the_search_page_costs_9_points_where_it_cost_29(schema):
    """50 PRs with 50 review threads each (each opening its comments connection) needed
    1 + 50 x 7 + 50 x 50 = 2,851 requests: 29 points, the issue's figure; 10 threads a PR: 851, 9."""
    old = queries.SEARCH_QUERY.replace(f"reviewThreads(first: {queries.THREADS_FIRST})", "reviewThreads(first: 50)")
    assert old != queries.SEARCH_QUERY
    variables = {"q": "x", "first": 50, "after": None}
    assert query_cost(schema, parse(old), variables)[0] == 29
    assert query_cost(schema, parse(queries.SEARCH_QUERY), variables)[0] == 9
    assert queries.search_requests(50) == 851


@pytest.mark.parametrize("prs", [1, 7, 47, 48, 50, 100])
def test_the_sources_estimate_is_the_fakes_score(schema, prs):
    """The source sizes pages with its own count of its queries: it must agree with the fake's
    score of the query text (a new connection in PULL_FIELDS without its count fails here)."""
    assert score(queries.search_requests(prs)) == query_cost(
        schema, parse(queries.SEARCH_QUERY), {"q": "x", "first": prs, "after": None})[0]
    two = {"q0": "a", "first0": prs, "after0": None, "q1": "b", "first1": 3, "after1": None}
    assert score(queries.search_requests(prs + 3, 2)) == query_cost(schema, parse(queries.search_query(2)), two)[0]
    items = [queries.FollowUp(n, f, "c") for n in range(1, 11) for f in ("reviewThreads", "files")][:prs % 20 + 1]
    text, variables = queries.followup_query(items)
    assert score(queries.followup_requests(items)) == query_cost(schema, parse(text), {**variables, "owner": "o", "name": "n"})[0]


def test_rate_limit_is_answered_truthfully_and_resets_after_an_hour(schema):
    clock = MovableClock(T0)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now, points_limit=20) as fake:
        source, _ = _source(fake, clock)
        q = "query Q($q: String!) { search(type: ISSUE, query: $q, first: 50) { issueCount } rateLimit { cost remaining resetAt } }"
        from adapters.github.transport import graphql

        ask = lambda: graphql(source._requester, source.policy, q, {"q": f"repo:{EXAMPLE_REPO} is:pr is:merged "  # noqa: E731
                                                                         "merged:2026-05-11T00:00:00Z..2026-05-17T23:59:59Z"}, "t")
        first = ask()["rateLimit"]
        assert first == {"cost": 1, "remaining": 19, "resetAt": "2026-06-01T09:00:00Z"}
        clock.advance(timedelta(minutes=59))
        assert ask()["rateLimit"] == {"cost": 1, "remaining": 18, "resetAt": "2026-06-01T09:00:00Z"}
        clock.advance(timedelta(minutes=1))  # exactly resetAt: a new window
        assert ask()["rateLimit"] == {"cost": 1, "remaining": 19, "resetAt": "2026-06-01T10:00:00Z"}
        assert fake.points == [1, 1, 1]


def test_a_query_over_the_remaining_points_is_refused_as_github_does(schema):
    clock = MovableClock(T0)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now, points_limit=8) as fake:
        import urllib.request

        body = json.dumps({"query": queries.SEARCH_QUERY, "variables": {"q": "x", "first": 50}}).encode()
        req = urllib.request.Request(fake.base_url.replace("/api/v3", "") + "/api/graphql", body,
                                     {"Authorization": f"bearer {TOKEN}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req) as r:
            assert r.status == 200 and r.headers["X-RateLimit-Remaining"] == "0"
            assert json.loads(r.read())["errors"][0]["type"] == "RATE_LIMITED"
        assert fake.points == []  # nothing charged


# -------------------------------------------------------------------------------- the budget


def test_the_budget_waits_for_reset_at_and_sizes_the_last_page(schema):
    """The example week (47 merged PRs) with a budget of 6 points an hour: a page of 50 costs 9, so
    the first page is sized down to the most that costs 6 (38 PRs: 647 requests, 6.47 points); the rest does not
    fit in what is left, so the source waits for resetAt (one wait, on the moved clock, no sleep) and
    goes on in the next hour. Every PR arrives, and the points reported are GitHub's."""
    clock = MovableClock(T0)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now) as fake:
        source, sleeper = _source(fake, clock, points_budget=6)
        result = source.merged_between(EXAMPLE_REPO, *W20)
        searches = [json.loads(b)["variables"] for b in fake.bodies if "PrhubMergedPulls" in b]
    assert len(result.prs) == result.matched == 47 and result.complete
    assert searches[0]["first"] == 38 and score(queries.search_requests(38)) == 6 < score(queries.search_requests(39))
    assert all(p <= 6 for p in fake.points)
    assert result.points == source.points == fake.points_used == sum(fake.points)
    assert sleeper.waits and sleeper.waits[0] == 3601.0  # from 08:00 to one second past the 09:00 reset
    assert source.budget.waits == sleeper.waits


def test_the_bots_jobs_wait_at_most_the_policys_cap_then_report_the_reset(schema):
    """Without ``wait_for_budget`` (the weekly job, the sync in ``prhub serve``) an hour's wait is
    past the 600 s cap: a rate-limit error naming the reset, as a primary limit gives, not a stall."""
    from chatbot.errors import RateLimitedError

    clock = MovableClock(T0)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now) as fake:
        source, sleeper = _source(fake, clock, points_budget=6, wait_for_budget=False)
        with pytest.raises(RateLimitedError) as exc:
            source.merged_between(EXAMPLE_REPO, *W20)
    assert sleeper.waits == [] and exc.value.reset_at == datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)
    assert exc.value.user_message.startswith("GitHub points budget spent (6 of 6 this hour); the reset at 09:00 UTC "
                                             "is 60 min away, past the 10 min cap")


def test_an_ample_budget_never_waits_and_reports_the_weeks_points(schema):
    clock = MovableClock(T0)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now) as fake:
        source, sleeper = _source(fake, clock)
        result = source.merged_between(EXAMPLE_REPO, *W20)
        assert sleeper.waits == []
        assert result.points == fake.points_used == sum(fake.points) > 0


def test_threads_past_the_bulk_page_come_from_a_follow_up(schema):
    """#2005 has 60 review threads: 10 in the search page, the other 50 in one follow-up page."""
    clock = MovableClock(T0)
    with FakeGitHub(token=TOKEN, rate_clock=clock.now) as fake:
        source, _ = _source(fake, clock)
        prs = {p.number: p for p in source.merged_between(EXAMPLE_REPO, *W20).prs}
        more = [json.loads(b)["variables"] for b in fake.bodies if "PrhubMorePages" in b and "reviewThreads" in b]
    assert len(prs[2005].review_threads) == 60
    assert len(more) == 1


@pytest.mark.parametrize("value", [0, -1, 10_001, "abc", "1.5", "", True])
def test_a_bad_budget_is_one_line(value):
    with pytest.raises(InputError) as exc:
        check_budget(value, "--points-budget")
    assert exc.value.user_message.startswith(f"--points-budget {str(value).strip()!r}: use a whole number of GraphQL points")
    assert "1 to 10,000" in exc.value.user_message and "\n" not in exc.value.user_message


@pytest.mark.parametrize("value", [1, 1000, 10_000, "250"])
def test_budgets_at_the_bounds_are_accepted(value):
    assert check_budget(value, "x") == int(value)
    assert PointsBudget(int(value), clock=MovableClock(T0), sleeper=lambda s: None).left() == int(value)


def test_fetch_refuses_a_bad_budget_before_any_request(tmp_path, monkeypatch):
    from prhub.cli import app

    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9/api/v3")  # nothing listens: no request may be tried
    args = ["fetch", "--repo", VLLM_REPO, "--from", "2026-W20", "--db", f"sqlite:///{tmp_path / 'f.db'}"]
    r = CliRunner().invoke(app, [*args, "--points-budget", "0"])
    assert r.exit_code != 0 and isinstance(r.exception, InputError)
    assert r.exception.user_message.startswith("--points-budget '0': use a whole number")
    monkeypatch.setenv("PRHUB_GITHUB_POINTS_BUDGET", "lots")
    r = CliRunner().invoke(app, args)
    assert isinstance(r.exception, InputError)
    assert r.exception.user_message.startswith("PRHUB_GITHUB_POINTS_BUDGET 'lots': use a whole number")


# -------------------------------------------------------------------------------- the backfill


def test_the_52_week_backfill_costs_at_most_2000_points(tmp_path):
    """The 52 weeks of 2025 (8,251 PRs, the real archive) as ``prhub fetch`` runs them, at the
    default budget of 1,000 points an hour: 1,560 points (167 search requests at 9 points or less, 66 follow-ups at 1), so
    one wait for resetAt on the moved clock (4,815 for the same searches with 50 threads a PR)."""
    path = shared_file("vllm-2025.json.gz")
    if load_schema() is None:
        pytest.skip("needs ../shared/data/github-schema.graphql")
    clock = MovableClock(T0)
    records = json.loads(gzip.decompress(path.read_bytes()))
    with FakeGitHub(token=TOKEN, repos={VLLM_REPO: records}, rate_clock=clock.now) as fake:
        source, sleeper = _source(fake, clock)
        with SqlStore.open(f"sqlite:///{tmp_path / 'b.db'}", clock=clock) as store:
            outcomes = list(fetch_weeks(source, store, VLLM_REPO, week_range(IsoWeek(2025, 1), IsoWeek(2025, 52)),
                                        "UTC", clock=clock))
        points = sum(o.points for o in outcomes)
        assert sum(len(o.prs) for o in outcomes) == 8251
        assert points == source.points == fake.points_used
        assert points <= 2000
        assert points == 1560
        assert fake.requests == source.requests <= 250
        assert len(sleeper.waits) == 1 and all(p <= 1000 for p in _per_window(fake.points, 1000))


def _per_window(points: list[int], budget: int) -> list[int]:
    """The points of consecutive queries grouped greedily into windows of at most ``budget``."""
    out = [0]
    for p in points:
        if out[-1] + p > budget:
            out.append(0)
        out[-1] += p
    return out
