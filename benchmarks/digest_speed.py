"""Digest build speed and memory on the real vLLM data (a benchmark, not a test).

1. For one real week, in this process, alternately time ``json.loads`` of the file's bytes (already
   in memory) and the build from that parsed list to the finished Digest (record validation and
   analysis included, rendering excluded), >= 50 rounds with gc disabled, CPU time (``process_time``); print the ratio of the
   medians as ``build_to_parse_ratio: R`` (target R <= 5).
2. In a fresh process, build all 50 weekly digests of ``vllm-2025.json.gz``; print
   ``year_seconds: S``, ``year_cpu_seconds: C`` and ``year_peak_mib: M`` (the child's own peak RSS,
   ``VmHWM``; target M < 300).
3. The yardstick (:mod:`benchmarks.yardstick`): CPU of ``json.loads`` of the shipped week, this run.

Usage: python benchmarks/digest_speed.py [--week PATH] [--year PATH] [--rounds N] [--quick]
(``--quick``: the CI smoke run, 5 rounds and no year.)
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.export.ghjson import parse_records  # noqa: E402
from benchmarks.yardstick import peak_rss_mib, yardstick, yardstick_line  # noqa: E402
from chatbot.digest import build_digest, newest_week, write  # noqa: E402
from chatbot.rules import shipped_rules  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"


def ratio(week_path: Path, rounds: int) -> None:
    raw = week_path.read_bytes()
    rules = shipped_rules("vllm")
    data = json.loads(raw)
    week = newest_week(parse_records(data, week_path.name).prs, "UTC")
    assert week is not None

    def build() -> None:
        prs = parse_records(data, week_path.name).prs
        write(build_digest(prs, repo="vllm-project/vllm", week=week, rules=rules), "en")

    build()  # warm-up: imports, rules compilation, template-free code paths
    parse_t: list[float] = []
    build_t: list[float] = []
    gc.disable()
    try:
        for _ in range(rounds):
            t0 = time.process_time()
            json.loads(raw)
            t1 = time.process_time()
            build()
            t2 = time.process_time()
            parse_t.append(t1 - t0)
            build_t.append(t2 - t1)
    finally:
        gc.enable()
    p, b = statistics.median(parse_t), statistics.median(build_t)
    print(f"week: {week_path.name} ({len(data)} PRs, {len(raw):,} bytes), rounds: {rounds}")
    print(f"parse_median_ms: {p * 1000:.2f}")
    print(f"build_median_ms: {b * 1000:.2f}")
    print(f"build_to_parse_ratio: {b / p:.2f}")


def year(path: Path) -> None:
    t0 = time.perf_counter()
    c0 = time.process_time()
    raw = json.loads(gzip.decompress(path.read_bytes()))
    prs = parse_records(raw, path.name).prs
    rules = shipped_rules("vllm")
    from chatbot.weeks import IsoWeek, load_zone

    utc = load_zone("UTC")
    weeks = sorted({IsoWeek.containing(p.merged_at, utc) for p in prs})
    total = 0
    for w in weeks:
        total += build_digest(prs, repo="vllm-project/vllm", week=w, rules=rules).total_prs
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    print(f"year: {len(weeks)} weeks, {total:,} PRs")
    print(f"year_seconds: {seconds:.2f}")
    print(f"year_cpu_seconds: {cpu:.2f} ({cpu / yardstick():.0f}x yardstick, measured in this child)")
    print(f"year_peak_mib: {peak_rss_mib():.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--week", type=Path, default=SHARED / "vllm" / "2026-W20.json")
    ap.add_argument("--year", type=Path, default=SHARED / "vllm-2025.json.gz")
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--quick", action="store_true", help="CI smoke run: 5 rounds, no year")
    ap.add_argument("--year-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.year_only:
        year(args.year)
        return
    if not args.week.exists():
        args.week = ROOT / "prhub" / "data" / "2026-W20.json"
    ratio(args.week, 5 if args.quick else max(50, args.rounds))
    print(yardstick_line(yardstick()))
    if args.quick:
        print("year: skipped (--quick)")
    elif args.year.exists():
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__, "--year-only", "--year", str(args.year)], check=True)
    else:
        print(f"year: skipped ({args.year} not found)")


if __name__ == "__main__":
    main()
