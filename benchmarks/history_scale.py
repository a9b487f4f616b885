"""Cost as the stored history grows (issue 13): 1x / 10x / 50x stores of the real 2025 vLLM year.

A benchmark, not a test (the 50x build takes minutes: keep it out of CI). The Nx history is the
2025 archive (``../shared/data/vllm-2025.json.gz``, 8,251 merged PRs) plus N-1 copies shifted back
by whole 52-week years (364 days, so weekdays stay) with distinct PR numbers; the newest year is
the real one, so the week measured is the same real week at every scale.

For each scale and each database (SQLite always; PostgreSQL too when ``PRHUB_TEST_DATABASE_URL`` is
set) it builds the Nx file (gzip) and prints, each measured in a fresh process through the real
paths (store, Alembic, report provider), CPU seconds (user + system) and peak RSS (MiB, ru_maxrss):

* ``import`` of the Nx file into an empty store, then ``reimport`` of the same file (unchanged);
* ``digest``: the one-week digest from the store;
* ``report``: the week's HTML report page with history, trends and charts (``StoreReports.render``);
* ``archive``: the archive page (``StoreReports.archive``).

Then the ratios of each figure against 1x. Targets (issue 13): at 50x, report and archive at most
1.5x the 1x CPU and 1.2x the peak memory; re-import at most 25% of the import's CPU; the 10x import
peaking at most 1.5x the 1x import's memory.

Usage: python benchmarks/history_scale.py [--scales 1,10,50] [--week 2025-W20] [--db sqlite|postgresql|both]
       [--workdir DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

YEAR = ROOT.parent / "shared" / "data" / "vllm-2025.json.gz"
REPO = "vllm-project/vllm"
SHIFT = timedelta(days=364)
NUMBER_STRIDE = 1_000_000
KINDS = ("import", "reimport", "digest", "report", "archive")


def build_file(scale: int, out: Path) -> None:
    """Write the ``scale``x history as one gzip JSON array, a record at a time."""
    base = json.loads(gzip.decompress(YEAR.read_bytes()))
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=1) as f:
        f.write("[")
        first = True
        for k in range(scale):
            for rec in base:
                r = dict(rec)
                if k:
                    when = datetime.fromisoformat(str(r["mergedAt"]).replace("Z", "+00:00")) - SHIFT * k
                    r["mergedAt"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
                    r["number"] = int(r["number"]) + NUMBER_STRIDE * k
                    if isinstance(r.get("url"), str):
                        r["url"] = f"https://github.com/{REPO}/pull/{r['number']}"
                f.write(("" if first else ",\n") + json.dumps(r, ensure_ascii=False))
                first = False
        f.write("]\n")


def measure(kind: str, url: str, path: str, week: str) -> None:
    """In this (fresh) process: run ``kind`` once and print ``cpu_s peak_mib``."""
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from prhub import bootstrap
    from prhub.report import StoreReports, week_digest
    from chatbot.weeks import IsoWeek

    store = SqlStore.open(url, clock=SYSTEM_CLOCK)
    rules = bootstrap.rules_for(REPO, None)
    if kind in ("report", "archive"):  # warm what every request of a running server has loaded already
        import adapters.report.charts  # noqa: F401
        import chatbot.render.html  # noqa: F401
    t0 = os.times()
    if kind in ("import", "reimport"):
        bootstrap.import_exports([path], repo=None, skip_invalid=False, store=store)
    elif kind == "digest":
        week_digest(store, REPO, IsoWeek.parse(week), "UTC", rules, "en")
    elif kind == "report":
        StoreReports(store, rules_for=lambda _r: rules).render(REPO, week, "en", "html")
    elif kind == "archive":
        StoreReports(store, rules_for=lambda _r: rules).archive(REPO, "en")
    t1 = os.times()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{(t1.user - t0.user) + (t1.system - t0.system):.3f} {peak:.1f}")


def run(kind: str, url: str, path: Path, week: str) -> tuple[float, float]:
    out = subprocess.run([sys.executable, __file__, "--measure", kind, "--url", url, "--file", str(path), "--week", week],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    cpu, peak = out.stdout.split()[-2:]
    return float(cpu), float(peak)


def pg_url(base: str, scale: int) -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    schema = f"prhub_bench_{scale}x"
    eng = create_engine(base, poolclass=NullPool)
    with eng.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    return make_url(base).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", default="1,10,50")
    ap.add_argument("--week", default="2025-W20")
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--measure", choices=KINDS, help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure, args.url, args.file, args.week)
        return 0
    if not YEAR.exists():
        print(f"needs {YEAR}", file=sys.stderr)
        return 1
    scales = [int(s) for s in args.scales.split(",")]
    pg = os.environ.get("PRHUB_TEST_DATABASE_URL")
    dbs = [d for d in (("sqlite", "postgresql") if args.db == "both" else (args.db,)) if d == "sqlite" or pg]
    work = Path(args.workdir or tempfile.mkdtemp(prefix="prhub-history-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"week {args.week}; scales {scales}; databases {dbs}; work dir {work} (2-core machine, shared: noisy)")
    results: dict[tuple[str, int, str], tuple[float, float]] = {}
    try:
        for scale in scales:
            path = work / f"vllm-{scale}x.json.gz"
            t = time.perf_counter()
            build_file(scale, path)
            print(f"{scale}x: {scale * 8251} PRs, file {path.stat().st_size / 2**20:.1f} MiB built in {time.perf_counter() - t:.0f} s")
            for db in dbs:
                url = f"sqlite:///{work / f'store-{scale}x.db'}" if db == "sqlite" else pg_url(pg or "", scale)
                for kind in KINDS:
                    cpu, peak = results[(db, scale, kind)] = run(kind, url, path, args.week)
                    print(f"  {db:10s} {scale:3d}x {kind:9s} cpu {cpu:7.3f} s  peak {peak:7.1f} MiB", flush=True)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    base = scales[0]
    print(f"\nratios against {base}x (cpu, peak):")
    for db in dbs:
        for scale in scales[1:]:
            parts = []
            for kind in KINDS:
                c0, m0 = results[(db, base, kind)]
                c, m = results[(db, scale, kind)]
                parts.append(f"{kind} {c / c0:.2f}x/{m / m0:.2f}x")
            print(f"  {db} {scale}x: " + ", ".join(parts))
        for scale in scales:
            ci, _ = results[(db, scale, "import")]
            cr, _ = results[(db, scale, "reimport")]
            print(f"  {db} {scale}x: reimport/import cpu {cr / ci:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
