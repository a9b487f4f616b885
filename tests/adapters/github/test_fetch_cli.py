"""``prhub fetch`` / ``prhub digest --source github`` against the fake GitHub; final weeks cost 0 requests."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from chatbot.weeks import IsoWeek
from chatbot.fetching import fetch_week, is_final
from tests.adapters.github.conftest import TOKEN
from tests.conftest import ROOT, shared_file
from tests.fakes.github_server import EXAMPLE_REPO, VLLM_REPO

UTC = timezone.utc


class FixedClock:
    def __init__(self, now: datetime) -> None:
        self.moment = now

    def now(self) -> datetime:
        return self.moment


def prhub(fake, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url}
    env.pop("PRHUB_DEBUG", None)
    env.pop("PRHUB_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)


def test_fetch_week_refetches_until_final_then_costs_nothing(fake, make_source, tmp_path):
    week = IsoWeek(2026, 20)
    end = datetime(2026, 5, 18, tzinfo=UTC)
    with SqlStore.open(f"sqlite:///{tmp_path / 'p.db'}", clock=SYSTEM_CLOCK) as store:
        early = fetch_week(make_source(), store, EXAMPLE_REPO, week, "UTC", clock=FixedClock(end + timedelta(hours=2)))
        assert not early.cached and early.requests > 0
        assert not is_final(store.week_fetch(EXAMPLE_REPO, "2026-W20", "UTC"), end)
        again = fetch_week(make_source(), store, EXAMPLE_REPO, week, "UTC", clock=FixedClock(end + timedelta(hours=25)))
        assert not again.cached and again.requests == early.requests  # fetch began <= 24 h after: not final yet
        fake.reset_log()
        final = fetch_week(make_source(), store, EXAMPLE_REPO, week, "UTC", clock=FixedClock(end + timedelta(days=3)))
        assert final.cached and final.requests == 0 and fake.requests == 0
        assert [p.number for p in final.prs] == [p.number for p in again.prs]
        assert final.prs == sorted(again.prs, key=lambda p: p.number)  # reviews, threads... all stored
        refreshed = fetch_week(make_source(), store, EXAMPLE_REPO, week, "UTC", refresh=True,
                               clock=FixedClock(end + timedelta(days=3)))
        assert not refreshed.cached and fake.requests == refreshed.requests > 0


def test_cli_fetch_then_final_digest_makes_no_request(fake, tmp_path):
    shared_file("vllm", "2026-W20.json")
    db = f"sqlite:///{tmp_path / 'prhub.db'}"
    r = prhub(fake, "fetch", "--repo", VLLM_REPO, "--from", "2026-W19", "--to", "2026-W20", "--db", db)
    assert r.returncode == 0, r.stderr
    assert f"{VLLM_REPO} 2026-W20: 217 PRs, {math.ceil(217 / 50)} requests" in r.stdout
    assert "prhub: fetch vllm-project/vllm 2026-W19..2026-W20: search page 1" in r.stderr  # plain lines off a TTY
    assert TOKEN not in r.stdout + r.stderr
    first = fake.requests
    assert first == math.ceil(199 / 50) + math.ceil(217 / 50)
    # the weeks ended long before this fetch began: final, so the digest makes 0 requests
    d = prhub(fake, "digest", "--repo", VLLM_REPO, "--week", "2026-W20", "--source", "github", "--db", db, "--format", "json")
    assert d.returncode == 0, d.stderr
    assert fake.requests == first
    f = prhub(fake, "digest", "--input", str(shared_file("vllm", "2026-W19.json")), "--input",
              str(shared_file("vllm", "2026-W20.json")), "--week", "2026-W20", "--format", "json")
    assert f.returncode == 0, f.stderr
    fields = ("number", "title", "author", "modules", "additions", "deletions")
    gh, fl = json.loads(d.stdout), json.loads(f.stdout)
    assert [{k: p[k] for k in fields} for p in gh["prs"]] == [{k: p[k] for k in fields} for p in fl["prs"]]
    assert gh["total_prs"] == 217
    # --refresh fetches again
    again = prhub(fake, "fetch", "--repo", VLLM_REPO, "--from", "2026-W20", "--db", db, "--refresh")
    assert again.returncode == 0 and fake.requests == first + math.ceil(217 / 50)
    cached = prhub(fake, "fetch", "--repo", VLLM_REPO, "--from", "2026-W20", "--db", db)
    assert "0 requests (final: read from the store)" in cached.stdout and fake.requests == first + math.ceil(217 / 50)


def test_cli_rate_limit_is_one_line_with_the_reset_time(fake, tmp_path):
    reset = datetime.now(UTC) + timedelta(hours=2)
    fake.fail(403, at=1, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset.timestamp()))},
              message="API rate limit exceeded for user ID 1.")
    r = prhub(fake, "fetch", "--repo", EXAMPLE_REPO, "--from", "2026-W20", "--db", f"sqlite:///{tmp_path / 'p.db'}")
    assert r.returncode == 75
    assert r.stderr.strip().splitlines()[-1].startswith(f"prhub: error: GitHub rate-limited until {reset:%H:%M} UTC")


def test_cli_needs_a_token(fake, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_API_URL": fake.base_url}
    env.pop("GITHUB_TOKEN", None)
    r = subprocess.run([sys.executable, "-m", "prhub", "fetch", "--repo", EXAMPLE_REPO, "--from", "2026-W20",
                        "--db", f"sqlite:///{tmp_path / 'p.db'}"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "set GITHUB_TOKEN" in r.stderr and fake.requests == 0


@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "vllm").is_dir(), reason="needs ../shared")
def test_benchmark_prints_three_lines():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "github_requests.py")], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    *_, naive, prs, per_week, yard = r.stdout.strip().splitlines()
    assert yard.startswith("yardstick_json_loads_ms: ")
    k, m, n = int(naive.split(": ")[1]), int(prs.split(": ")[1]), int(per_week.split(": ")[1])
    assert naive.startswith("naive_requests: ") and prs.startswith("prs: ") and per_week.startswith("requests_per_week: ")
    assert m == 217 and n <= math.ceil(m / 50) + 5 and k >= 4 * m
