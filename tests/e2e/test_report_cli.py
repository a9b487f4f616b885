"""prhub import / trends / digest --format html|pdf as a user runs them (real data; skipped without ../shared)."""

import gzip
import json
from collections import Counter
from datetime import datetime

import pytest

from chatbot.weeks import IsoWeek, load_zone
from tests.conftest import shared_file
from tests.e2e.test_cli import prhub

WEEKS = ["2026-W15", "2026-W16", "2026-W17", "2026-W18", "2026-W19", "2026-W20"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'prhub.db'}"
    r = prhub("import", *[str(shared_file("vllm", f"{w}.json")) for w in WEEKS], "--db", url)
    assert r.returncode == 0, r.stderr
    return url


def test_trends_six_weeks(db):
    r = prhub("trends", "--repo", "vllm-project/vllm", "--weeks", "6", "--db", db, "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["weeks"]
    assert [w["stats"]["week"] for w in rows] == WEEKS
    assert [w["stats"]["total_prs"] for w in rows] == [180, 186, 200, 177, 199, 217]
    assert [w["total_delta"] for w in rows] == [None, 6, 14, -23, 22, 18]
    md = prhub("trends", "--repo", "vllm-project/vllm", "--weeks", "6", "--db", db).stdout
    assert "| 2026-W16 | 186 (+6) |" in md and "| 2026-W20 | 217 (+18) |" in md


def test_html_report_from_store_has_history(db, tmp_path):
    out = tmp_path / "w20.html"
    r = prhub("digest", "--repo", "vllm-project/vllm", "--week", "2026-W20", "--db", db, "--format", "html", "--out", str(out))
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert "bugfix 77, <span" in html and "vs 2026-W19" in html
    assert "History in the store reaches back to 2026-W15 (5 weeks before this one)." in html


def test_pdf_needs_out(db):
    r = prhub("digest", "--repo", "vllm-project/vllm", "--db", db, "--format", "pdf")
    assert r.returncode == 2 and r.stderr.strip() == "prhub: error: --format pdf writes a binary file: pass --out FILE.pdf"


def test_2025_archive_gives_eight_week_trends(tmp_path):
    path = shared_file("vllm-2025.json.gz")
    url = f"sqlite:///{tmp_path / 'y.db'}"
    assert prhub("import", str(path), "--db", url).returncode == 0
    zone = load_zone("UTC")
    with gzip.open(path, "rt") as fh:
        merged = {p["number"]: p["mergedAt"] for p in json.load(fh)}
    counts = Counter(str(IsoWeek.containing(datetime.fromisoformat(m.replace("Z", "+00:00")), zone)) for m in merged.values())
    for last in ("2025-W12", "2025-W34", "2025-W52"):
        r = prhub("trends", "--repo", "vllm-project/vllm", "--to", last, "--from",
                  str(IsoWeek.parse(last).previous().previous().previous().previous().previous().previous().previous()),
                  "--db", url, "--format", "json")
        assert r.returncode == 0, r.stderr
        rows = json.loads(r.stdout)["weeks"]
        assert len(rows) == 8 and rows[-1]["stats"]["week"] == last
        assert [w["stats"]["total_prs"] for w in rows] == [counts[w["stats"]["week"]] for w in rows]


@pytest.mark.parametrize("n", ["0", "-1", "521"])
def test_trends_week_counts_outside_1_to_520_are_refused(db, tmp_path, n):
    for store in (db, f"sqlite:///{tmp_path / 'empty.db'}"):  # checked before the store is read
        r = prhub("trends", "--repo", "vllm-project/vllm", "--weeks", n, "--db", store)
        assert (r.returncode, r.stdout, r.stderr) == (2, "", f"prhub: error: --weeks {n}: use a number from 1 to 520\n")


def test_trends_of_one_week_say_week(db):
    r = prhub("trends", "--repo", "vllm-project/vllm", "--weeks", "1", "--db", db)
    assert r.returncode == 0 and "1 week · merged PRs 217 in all" in r.stdout and "1 weeks" not in r.stdout
    assert "6 weeks · merged PRs 1159 in all" in prhub("trends", "--repo", "vllm-project/vllm", "--weeks", "6", "--db", db).stdout
