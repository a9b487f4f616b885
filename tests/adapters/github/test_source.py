"""GitHubPullRequestSource: PyGithub against the fake GitHub on 127.0.0.1 (BR-14, BR-15, BR-16, cost)."""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta, timezone

import pytest

from adapters.github import transport
from adapters.github.queries import SEARCH_QUERY
from adapters.github.transport import RetryPolicy
from tests.digests import written_digest
from chatbot.errors import InputError, PrhubError, RateLimitedError, SourceError, SourcePermissionError
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.adapters.github.conftest import NOW, TOKEN
from tests.conftest import shared_file
from tests.fakes.github_server import EXAMPLE_REPO, VLLM_REPO, FakeGitHub, parse_search, records_in, SearchError

UTC = timezone.utc
W20 = (datetime(2026, 5, 11, tzinfo=UTC), datetime(2026, 5, 18, tzinfo=UTC))
SIX_WEEKS = (datetime(2026, 4, 6, tzinfo=UTC), datetime(2026, 5, 18, tzinfo=UTC))


def vllm():
    shared_file("vllm", "2026-W20.json")  # skip without ../shared
    return VLLM_REPO


# ------------------------------------------------------------------------------------- basic fetch


def test_example_week_merged_only_half_open_window(fake, make_source):
    result = make_source().merged_between(EXAMPLE_REPO, *W20)
    nums = [p.number for p in result.prs]
    expected = sorted(r["number"] for r in records_in(fake, EXAMPLE_REPO, *W20))
    assert nums == expected and result.complete and result.matched == len(nums)
    assert 2003 not in nums  # closed, never merged
    assert 2008 not in nums  # merged exactly at the window end: next week
    assert 2009 in nums  # merged exactly at the window start
    # every search used explicit UTC instants, never a date-only range
    searches = [q for q in fake.log if q[0] == "POST"]
    assert searches and all(status == 200 for _, _, status in searches)


def test_review_data_reaches_the_domain_model(fake, make_source):
    prs = {p.number: p for p in make_source().merged_between(EXAMPLE_REPO, *W20).prs}
    pr = prs[2004]
    assert pr.labels == ("bug", "ready") and pr.comment_count == 3 and pr.comments[0].body == "comment 1" and pr.closing_issues == (1999,)
    assert [(r.reviewer, r.is_bot, r.state) for r in pr.reviews] == [
        ("gemini-code-assist[bot]", True, "COMMENTED"), ("alice", False, "CHANGES_REQUESTED")]
    assert [(t.is_resolved, t.author_is_bot) for t in pr.review_threads] == [(False, False), (False, True), (True, False)]
    assert pr.added_asserts == ()  # patches are opt-in
    assert len(prs[2005].review_threads) == 60  # threads continued past the first page of 50
    bot = prs[2007]
    assert bot.author.login == "dependabot[bot]" and bot.author.is_bot and bot.co_authors == ("Claude", "mergify[bot]")
    d = written_digest(prs.values(), repo=EXAMPLE_REPO, week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
    tags = {p.number: p.risk_tags for p in d.prs}
    assert {"review-open", "bot-review-flag", "no-human-approval"} <= set(tags[2004])
    assert "no-human-approval" not in tags[2005] and "review-open" not in tags[2005]


def test_patches_option_fills_added_asserts_at_a_cost(fake, make_source):
    result = make_source(patches=True).merged_between(EXAMPLE_REPO, *W20)
    prs = {p.number: p for p in result.prs}
    assert prs[2004].added_asserts == ("vllm/core/scheduler.py",)
    rest = [path for method, path, _ in fake.log if method == "GET"]
    assert any("/pulls/2004/files" in p for p in rest) and not any("/pulls/2001/files" in p for p in rest)
    d = written_digest(result.prs, repo=EXAMPLE_REPO, week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
    assert "assert-runtime-check" in next(p for p in d.prs if p.number == 2004).risk_tags


def test_token_never_in_repr_logs_or_errors(fake, make_source, caplog):
    caplog.set_level(logging.DEBUG)
    source = make_source()
    assert TOKEN not in repr(source)
    source.merged_between(EXAMPLE_REPO, *W20)
    assert TOKEN not in caplog.text
    with pytest.raises(SourcePermissionError) as err:
        make_source(token="ghp_wrong_secret_value").merged_between(EXAMPLE_REPO, *W20)
    assert "GITHUB_TOKEN" in err.value.user_message and "ghp_wrong_secret_value" not in str(err.value)
    assert "ghp_wrong_secret_value" not in caplog.text


def test_bad_input_is_rejected_before_any_request(fake, make_source):
    source = make_source()
    with pytest.raises(InputError):
        source.merged_between("no-slash", *W20)
    with pytest.raises(InputError):
        source.merged_between(EXAMPLE_REPO, W20[1], W20[0])
    with pytest.raises(InputError):
        source.merged_between(EXAMPLE_REPO, datetime(2026, 5, 11), datetime(2026, 5, 18))
    assert fake.requests == 0 and source.requests == 0


def test_the_fake_rejects_what_github_rejects(fake, make_source):
    source = make_source()
    with pytest.raises(SourceError, match="Cannot query field 'bogus'"):
        transport.graphql(source._requester, source.policy, SEARCH_QUERY.replace("changedFiles", "bogus"),
                          {"q": "repo:a/b is:pr is:merged merged:2026-05-11T00:00:00Z..2026-05-11T00:00:01Z", "first": 25},
                          "bad query")
    with pytest.raises(SourceError, match="exceeds the `first` limit of 100"):
        transport.graphql(source._requester, source.policy, SEARCH_QUERY,
                          {"q": "repo:a/b is:pr is:merged merged:2026-05-11T00:00:00Z..2026-05-11T00:00:01Z", "first": 101},
                          "too many")
    with pytest.raises(SearchError):
        parse_search("repo:a/b is:pr is:merged merged:2026-05-11..2026-05-17")  # date-only: never sent


# ------------------------------------------------------------------------------------- cost


def test_w20_costs_one_request_per_50_prs(fake, make_source):
    repo = vllm()
    result = make_source().merged_between(repo, *W20)
    n = len(result.prs)
    assert n == 217
    assert result.requests == fake.requests == math.ceil(n / 50) == 5  # BR-16c: no request per PR
    assert result.requests <= 6  # issue 13's target for a 217-PR week
    # the last page asks for the 17 left (GitHub charges a query by its `first`: 3 points, not 9)
    assert [first for first in _page_sizes(fake)] == [50] * 4 + [17]


def _page_sizes(fake):
    import json

    return [json.loads(body)["variables"]["first"] for body in fake.bodies if "PrhubMergedPulls" in body]


def test_heavy_pages_halve_then_grow_back(fake, make_source, sleeps):
    repo = vllm()
    fake.fail(502, at=1, times=2, message="We couldn't respond to your request in time.")
    source = make_source()
    result = source.merged_between(repo, *W20)
    assert len(result.prs) == 217 and sleeps == []  # asked again at once, smaller, without a backoff
    sizes = _page_sizes(fake)
    # 50 and 25 time out; 12 a page until three pages in a row succeed, then 24, then 48, then back at
    # 50; the last page asks for the 13 left
    assert sizes == [50, 25, 12, 12, 12, 24, 24, 24, 48, 48, 13]
    assert result.requests == len(sizes) == fake.requests and source.current_page_size == 50


def test_a_timeout_at_one_pr_a_page_falls_back_to_bounded_retries(fake, make_source, sleeps):
    fake.fail(504, at=1, times=100, message="timeout")
    with pytest.raises(SourceError, match="gave up after bounded retries"):
        make_source(page_size=4).merged_between(EXAMPLE_REPO, *W20)
    # 4, 2 and 1 PRs a page, then the policy's five attempts at one PR a page
    assert _page_sizes(fake) == [4, 2, 1, 1, 1, 1, 1] and sleeps == [1.0, 2.0, 4.0, 8.0]


def test_w18_150_file_pr_costs_one_follow_up_page(fake, make_source):
    repo = vllm()
    start = datetime(2026, 4, 27, tzinfo=UTC)
    result = make_source().merged_between(repo, start, start + timedelta(days=7))
    big = next(p for p in result.prs if p.number == 40860)
    assert len(big.files) == big.changed_files == 150
    assert result.requests == math.ceil(len(result.prs) / 50) + 1


# ------------------------------------------------------------------------------------- BR-14


def test_br14_six_weeks_over_the_cap_return_1159_unique_prs(fake, make_source):
    repo = vllm()
    result = make_source().merged_between(repo, *SIX_WEEKS)
    nums = [p.number for p in result.prs]
    assert len(nums) == len(set(nums)) == 1159
    assert result.complete and result.matched == 1159
    assert result.requests <= math.ceil(1159 / 50) + 5
    first = fake.log[0]
    assert first[2] == 200  # the over-cap probe answered; the source split instead of reporting 1,000


@pytest.mark.parametrize("client_cap", [5, 1000])
def test_br14_small_cap_splits_by_day_then_halves(fake, make_source, client_cap):
    fake.search_cap = 5  # the client either knows the cap or notices results stopping short of issueCount
    result = make_source(search_cap=client_cap).merged_between(EXAMPLE_REPO, *W20)
    expected = sorted(r["number"] for r in records_in(fake, EXAMPLE_REPO, *W20))
    assert [p.number for p in result.prs] == expected and result.complete and result.matched == len(expected)
    searched = [p for m, p, _ in fake.log if m == "POST"]
    assert len(searched) > 10


def test_br14_unsplittable_part_is_reported_incomplete_not_silently_capped(make_source):
    at = "2026-05-12T10:00:00Z"
    recs = [{"number": n, "title": f"t{n}", "mergedAt": at, "files": []} for n in (1, 2, 3)]
    with FakeGitHub(repos={"o/r": recs}, token=TOKEN, search_cap=2) as fake:
        result = make_source(base_url=fake.base_url).merged_between("o/r", *W20)
    assert not result.complete and result.matched == 3 and len(result.prs) == 2


# ------------------------------------------------------------------------------------- BR-15


def test_br15a_primary_limit_beyond_the_cap_fails_fast_with_the_reset(fake, make_source, sleeps):
    reset = NOW + timedelta(hours=1)
    fake.fail(403, at=3, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset.timestamp()))},
              message="API rate limit exceeded for user ID 1.")
    with pytest.raises(RateLimitedError) as err:
        make_source(search_cap=2).merged_between(EXAMPLE_REPO, *W20)
    assert err.value.reset_at == reset
    assert err.value.user_message.startswith("GitHub rate-limited until 02:00 UTC")
    assert isinstance(err.value, PrhubError) and err.value.exit_code == 75
    assert sleeps == [] and fake.requests == 3  # no wait, no further request, no partial result


def test_br15a_primary_limit_within_the_cap_waits_for_the_reset(fake, make_source, sleeps):
    reset = NOW + timedelta(seconds=120)
    fake.fail(403, at=2, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset.timestamp()))},
              message="API rate limit exceeded for user ID 1.")
    result = make_source().merged_between(EXAMPLE_REPO, *W20)
    assert sleeps == [121.0] and 2004 in {p.number for p in result.prs}


def test_br15a_graphql_rate_limited_error_is_a_primary_limit(fake, make_source, sleeps):
    reset = NOW + timedelta(minutes=30)
    fake.fail(200, at=1, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset.timestamp()))},
              body={"data": None, "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]})
    with pytest.raises(RateLimitedError) as err:
        make_source(policy_kw={"max_wait": 600}).merged_between(EXAMPLE_REPO, *W20)
    assert err.value.reset_at == reset and "01:30 UTC" in err.value.user_message and sleeps == []


@pytest.mark.parametrize("status", [403, 429])
def test_br15b_secondary_limit_waits_retry_after_then_completes(fake, make_source, sleeps, status):
    fake.fail(status, at=2, headers={"Retry-After": "60"},
              message="You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
    result = make_source().merged_between(EXAMPLE_REPO, *W20)
    assert sleeps == [60.0]
    assert [p.number for p in result.prs] == sorted(r["number"] for r in records_in(fake, EXAMPLE_REPO, *W20))
    assert result.requests == fake.requests  # the refused request counts too


def test_br15c_permission_error_fails_fast_without_retry(fake, make_source, sleeps):
    fake.fail(403, at=2, times=10, message="Resource not accessible by integration")
    with pytest.raises(SourcePermissionError) as err:
        make_source().merged_between(EXAMPLE_REPO, *W20)
    assert "Resource not accessible by integration" in err.value.user_message
    assert sleeps == [] and fake.requests == 2


def test_5xx_retried_with_bounded_backoff(fake, make_source, sleeps):
    fake.fail(500, at=1, times=2, message="Server Error")
    result = make_source().merged_between(EXAMPLE_REPO, *W20)
    assert sleeps == [1.0, 2.0] and len(result.prs) > 40
    fake.reset_log()
    fake.faults.clear()
    sleeps.clear()
    fake.fail(503, at=1, times=100, message="unavailable")
    with pytest.raises(SourceError, match="gave up after bounded retries"):
        make_source().merged_between(EXAMPLE_REPO, *W20)
    assert fake.requests == 5 and sleeps == [1.0, 2.0, 4.0, 8.0]


# ------------------------------------------------------------------------------------- BR-16


def test_br16a_file_41_of_45_gets_the_attention_module(fake, make_source):
    prs = make_source().merged_between(EXAMPLE_REPO, *W20).prs
    d = written_digest(prs, repo=EXAMPLE_REPO, week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
    by = {p.number: p for p in d.prs}
    assert "attention" in by[2001].modules  # 45 files: file 41 is csrc/attention/paged_attention.cu
    assert "attention" in by[2006].modules  # 145 files: file 141 comes from the follow-up page


def test_br16b_truncated_file_list_is_flagged_not_raised(fake, make_source):
    prs = make_source().merged_between(EXAMPLE_REPO, *W20).prs
    pr = next(p for p in prs if p.number == 2002)
    assert pr.changed_files == 3500 and len(pr.files) == 3000
    d = written_digest(prs, repo=EXAMPLE_REPO, week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
    a = next(p for p in d.prs if p.number == 2002)
    assert "large-change" in a.risk_tags and "3,500" in a.risk_reasons["large-change"] and "3,000" in a.risk_reasons["large-change"]


def test_br16c_listing_costs_pages_not_prs(fake, make_source):
    result = make_source().merged_between(EXAMPLE_REPO, *W20)
    n = len(result.prs)
    # search pages + follow-ups only for the PRs over a first page: #2002 (3,000 files: 29 more
    # pages), #2006 (145 files: 1) and #2005 (60 threads: batched with #2006's files)
    assert result.requests == math.ceil(n / 50) + 29
    assert all(method == "POST" for method, _, _ in fake.log)


def test_changes_requested_without_a_later_commit_is_its_own_tag(fake, make_source, monkeypatch):
    """#2004: alice requested changes at 05-13 02:00, the last commit is from 01:30: tagged. The
    same PR with a commit after the request is not; an approval after the request replaces it."""
    def pr2004():
        result = make_source().merged_between(EXAMPLE_REPO, *W20)
        prs = list(result.prs)
        d = written_digest(prs, repo=EXAMPLE_REPO, week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))
        return next(p for p in prs if p.number == 2004), next(p for p in d.prs if p.number == 2004)

    pr, analyzed = pr2004()
    assert pr.last_commit_at == datetime(2026, 5, 13, 1, 30, tzinfo=UTC)  # commits(last: 1): the newest
    assert "changes-requested" in analyzed.risk_tags
    assert analyzed.risk_reasons["changes-requested"] == (
        "alice requested changes on 05-13 (1 reviewer in all); no commit after it before the merge")
    assert all("changes-requested" not in p.risk_tags for p in written_digest(
        make_source().merged_between(EXAMPLE_REPO, *W20).prs, repo=EXAMPLE_REPO, week=IsoWeek(2026, 20),
        rules=shipped_rules("vllm")).prs if p.number != 2004)  # the default commit is an hour before each merge
    rec = fake._by_number[EXAMPLE_REPO][2004]
    monkeypatch.setitem(rec, "commits", ["2026-05-13T01:30:00Z", "2026-05-13T02:00:01Z"])  # a commit after it
    assert "changes-requested" not in pr2004()[1].risk_tags
    monkeypatch.setitem(rec, "commits", ["2026-05-13T01:30:00Z"])
    monkeypatch.setitem(rec, "reviews", [*rec["reviews"], {"state": "APPROVED", "author": "alice", "body": "",
                                                           "submittedAt": "2026-05-13T03:00:00Z"}])
    assert "changes-requested" not in pr2004()[1].risk_tags
