"""A backfill (``prhub fetch --from --to``) against the fake GitHub serving the real 2025 archive: the weeks'
searches run as one stream, so a week's partly filled last page is shared with the next week's first."""

from __future__ import annotations

import gzip
import json
import math
from zoneinfo import ZoneInfo

import pytest

from adapters.github.source import GitHubPullRequestSource
from adapters.storage import SqlStore
from prhub.clock import SYSTEM_CLOCK
from chatbot.weeks import IsoWeek
from chatbot.fetching import fetch_weeks
from prhub.bootstrap import week_range
from tests.adapters.github.conftest import TOKEN
from tests.conftest import shared_file
from tests.fakes.github_server import VLLM_REPO, FakeGitHub, load_schema


@pytest.fixture(scope="module")
def fake_2025():
    path = shared_file("vllm-2025.json.gz")
    if load_schema() is None:
        pytest.skip("needs ../shared/data/github-schema.graphql for the fake /graphql endpoint")
    with FakeGitHub(token=TOKEN, repos={VLLM_REPO: json.loads(gzip.decompress(path.read_bytes()))}) as fake:
        yield fake


def _searches(fake):
    return [json.loads(b)["variables"] for b in fake.bodies if "PrhubMergedPulls" in b]


def test_seven_weeks_with_an_empty_one_cost_one_search_request_per_50_prs(fake_2025, tmp_path):
    """2025-W22..W28: 150, 129, 124, 114, 112, 0 (no PR merged in the archive's W27) and 172 PRs = 801.
    Week by week that is 3+3+3+3+3+1+4 = 20 search requests; as one stream ceil(801/50) = 17. W23 holds
    #19100 (1,432 files: 14 follow-up pages of 100)."""
    fake = fake_2025
    fake.reset_log()
    weeks = week_range(IsoWeek(2025, 22), IsoWeek(2025, 28))
    source = GitHubPullRequestSource(TOKEN, clock=SYSTEM_CLOCK, base_url=fake.base_url)
    with SqlStore.open(f"sqlite:///{tmp_path / 'b.db'}", clock=SYSTEM_CLOCK) as store:
        outcomes = list(fetch_weeks(source, store, VLLM_REPO, weeks, "UTC", clock=SYSTEM_CLOCK))
        assert [len(o.prs) for o in outcomes] == [150, 129, 124, 114, 112, 0, 172]
        assert len(store.merged_between(VLLM_REPO, *IsoWeek(2025, 23).utc_window(ZoneInfo("UTC")))) == 129  # stored per week
    big = next(p for o in outcomes for p in o.prs if p.number == 19100)
    assert len(big.files) == big.changed_files == 1432
    searches = _searches(fake)
    assert len(searches) == math.ceil(801 / 50) == 17
    asked = [sum(v for k, v in s.items() if k.startswith("first")) for s in searches]
    assert asked == [50] * 16 + [22]  # one page of PRs a request; the last asks for the 22 PRs left of W28
    assert fake.requests == source.requests == sum(o.requests for o in outcomes) == 17 + 14
    # W22 (150 PRs) fills exactly 3 pages; W23's 129 leave 21 for W24's first page, which W24 shares
    assert [s["first0"] for s in searches if "first1" in s][:2] == [29, 3]
