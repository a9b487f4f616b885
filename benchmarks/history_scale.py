"""Cost as the stored history grows (issue 13): 1x / 10x / 50x stores of the real 2025 vLLM year.

A benchmark, not a test (the 50x build takes minutes: keep it out of CI). The Nx history is the
2025 archive (``../shared/data/vllm-2025.json.gz``, 8,251 merged PRs) plus N-1 copies shifted back
by whole 52-week years (364 days, so weekdays stay) with distinct PR numbers; the newest year is
the real one, so the week measured is the same real week at every scale.

For each scale and each database (SQLite always; PostgreSQL too when ``PRHUB_TEST_DATABASE_URL`` is
set) it builds the Nx file (gzip) and prints, each measured in a fresh process through the real
paths (store, Alembic, report provider), CPU seconds (user + system) and the measured process's own
peak RSS (MiB, ``VmHWM`` of the child: ``ru_maxrss`` would carry the driver's peak across the fork),
and on PostgreSQL the server's CPU as well (user + system of every backend the child connected to,
from ``/proc/<backend pid>/stat``; the server runs on this machine):

* ``import`` of the Nx file into an empty store, then ``reimport`` of the same file (unchanged);
* ``digest``: the one-week digest from the store;
* ``newcomers``: the week's new contributors (``authors_before`` of its contributors: what the chat
  answer, the report and the weekly job ask the store), the digest built before the clock starts;
* ``report``: the week's HTML report page with history, trends and charts (``StoreReports.render``);
* ``archive``: the archive page (``StoreReports.archive``).

Then the ratios of each figure against 1x. Targets (issue 13): at 50x, report and archive at most
1.5x the 1x CPU and 1.2x the peak memory; re-import at most 25% of the import's CPU; the 10x import
peaking at most 1.5x the 1x import's memory. Issue 20: new contributors and the report at most
1.5x at 10x and 2x at 50x on both stores (CPU of the child plus, on PostgreSQL, the server's).

The yardstick (:mod:`benchmarks.yardstick`, CPU of ``json.loads`` of the shipped week) is measured
in every child and printed with the figures.

Usage: python benchmarks/history_scale.py [--scales 1,10,50] [--week 2025-W20] [--db sqlite|postgresql|both]
       [--workdir DIR] [--quick]
(``--quick``: the CI smoke run, import, newcomers and report of 1x the year's last 300 PRs, SQLite and
PostgreSQL when set.)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
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
KINDS = ("import", "reimport", "digest", "newcomers", "report", "archive")
QUICK_PRS = 300
"""PRs of the --quick run: the year's last 300 (its newest week is the one measured)."""
QUICK_KINDS = ("import", "newcomers", "report")
"""What the --quick run measures (a fresh child each: the import path and the heaviest read)."""


def build_file(scale: int, out: Path, limit: int | None = None) -> None:
    """Write the ``scale``x history as one gzip JSON array, a record at a time (``limit``: only the
    year's last ``limit`` records, the --quick run)."""
    base = json.loads(gzip.decompress(YEAR.read_bytes()))
    if limit is not None:
        base = base[-limit:]
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


def newest_week(limit: int | None) -> str:
    """The ISO week (UTC) of the newest merge among the year's last ``limit`` records."""
    base = json.loads(gzip.decompress(YEAR.read_bytes()))[-(limit or 0):]
    newest = max(datetime.fromisoformat(str(r["mergedAt"]).replace("Z", "+00:00")) for r in base)
    year, week, _ = newest.isocalendar()
    return f"{year}-W{week:02d}"


def _backend_pids(store: object) -> set[int]:
    """The PostgreSQL backend pids of every connection ``store``'s engine opens from now on (empty on SQLite)."""
    from sqlalchemy import event

    pids: set[int] = set()
    engine = store.engine  # type: ignore[attr-defined]
    if engine.dialect.name != "postgresql":
        return pids

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: object, _record: object) -> None:
        cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
        cur.execute("SELECT pg_backend_pid()")
        pids.add(int(cur.fetchone()[0]))
        cur.close()
        dbapi_conn.rollback()  # the store's reads switch to autocommit, which psycopg refuses in a transaction

    engine.dispose()  # connections opened before now (the open's) are not counted: reconnect
    return pids


def measure(kind: str, url: str, path: str, week: str) -> None:
    """In this (fresh) process: run ``kind`` once and print ``cpu_s peak_mib server_cpu_s yardstick_s``."""
    from adapters.storage import SqlStore
    from benchmarks.yardstick import peak_rss_mib, proc_cpu_seconds, yardstick
    from prhub.clock import SYSTEM_CLOCK
    from prhub import bootstrap
    from prhub.report import StoreReports, week_digest
    from chatbot.weeks import IsoWeek, load_zone

    store = SqlStore.open(url, clock=SYSTEM_CLOCK)
    pids = _backend_pids(store)
    rules = bootstrap.rules_for(REPO, None)
    contributors: list[str] = []
    if kind == "newcomers":
        contributors = [c.login for c in week_digest(store, REPO, IsoWeek.parse(week), "UTC", rules, "en").contributors]
    if kind in ("report", "archive"):  # warm what every request of a running server has loaded already
        import adapters.report.charts  # noqa: F401
        import chatbot.render.html  # noqa: F401
    t0 = time.process_time()  # user + system CPU of this process, ns resolution (os.times ticks at 10 ms)
    server: dict[int, float] = {}
    if kind in ("import", "reimport"):
        bootstrap.import_exports([path], repo=None, skip_invalid=False, store=store)
    elif kind == "digest":
        week_digest(store, REPO, IsoWeek.parse(week), "UTC", rules, "en")
    elif kind == "newcomers":
        store.authors_before(REPO, IsoWeek.parse(week).utc_window(load_zone("UTC"))[0], contributors)
    elif kind == "report":
        StoreReports(store, rules_for=lambda _r: rules).render(REPO, week, "en", "html")
    elif kind == "archive":
        StoreReports(store, rules_for=lambda _r: rules).archive(REPO, "en")
    t1 = time.process_time()
    server = {pid: proc_cpu_seconds(pid) for pid in pids}  # before the pool closes and the backends exit
    peak = peak_rss_mib()
    print(f"{t1 - t0:.6f} {peak:.1f} {sum(server.values()):.3f} {yardstick():.6f}")


def run(kind: str, url: str, path: Path, week: str) -> tuple[float, float, float, float]:
    """``(client CPU s, child peak MiB, server CPU s, yardstick s)`` of one fresh ``--measure`` child."""
    out = subprocess.run([sys.executable, __file__, "--measure", kind, "--url", url, "--file", str(path), "--week", week],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    cpu, peak, server, yard = out.stdout.split()[-4:]
    return float(cpu), float(peak), float(server), float(yard)


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
    ap.add_argument("--quick", action="store_true", help="CI smoke run: 1x of the year's last 300 PRs")
    ap.add_argument("--measure", choices=KINDS, help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure, args.url, args.file, args.week)
        return 0
    from benchmarks.yardstick import yardstick_line

    if not YEAR.exists():
        print(f"needs {YEAR}", file=sys.stderr)
        return 1
    limit = QUICK_PRS if args.quick else None
    kinds = QUICK_KINDS if args.quick else KINDS
    if args.quick:
        args.scales, args.week = "1", newest_week(limit)
    scales = [int(s) for s in args.scales.split(",")]
    pg = os.environ.get("PRHUB_TEST_DATABASE_URL")
    dbs = [d for d in (("sqlite", "postgresql") if args.db == "both" else (args.db,)) if d == "sqlite" or pg]
    work = Path(args.workdir or tempfile.mkdtemp(prefix="prhub-history-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"week {args.week}; scales {scales}; databases {dbs}; work dir {work} (2-core machine, shared: noisy)")
    results: dict[tuple[str, int, str], tuple[float, float, float, float]] = {}
    try:
        for scale in scales:
            path = work / f"vllm-{scale}x.json.gz"
            t = time.perf_counter()
            build_file(scale, path, limit)
            print(f"{scale}x: {scale * (limit or 8251)} PRs, file {path.stat().st_size / 2**20:.1f} MiB built in {time.perf_counter() - t:.0f} s")
            for db in dbs:
                url = f"sqlite:///{work / f'store-{scale}x.db'}" if db == "sqlite" else pg_url(pg or "", scale)
                for kind in kinds:
                    cpu, peak, server, yard = results[(db, scale, kind)] = run(kind, url, path, args.week)
                    srv = f"  server cpu {server:7.3f} s" if db == "postgresql" else ""
                    print(f"  {db:10s} {scale:3d}x {kind:9s} cpu {cpu:7.3f} s  peak {peak:7.1f} MiB{srv}  "
                          f"({(cpu + server) / yard:,.0f}x yardstick)", flush=True)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    base = scales[0]
    print(f"\nratios against {base}x (CPU of the child + the database server, peak of the child):")
    for db in dbs:
        for scale in scales[1:]:
            parts = []
            for kind in kinds:
                c0, m0, s0, _ = results[(db, base, kind)]
                c, m, s, _ = results[(db, scale, kind)]
                parts.append(f"{kind} {(c + s) / max(c0 + s0, 1e-6):.2f}x/{m / m0:.2f}x")
            print(f"  {db} {scale}x: " + ", ".join(parts))
        for scale in scales if "reimport" in kinds else ():
            ci, _, si, _ = results[(db, scale, "import")]
            cr, _, sr, _ = results[(db, scale, "reimport")]
            print(f"  {db} {scale}x: reimport/import cpu {(cr + sr) / (ci + si):.2f}")
    yards = sorted(r[3] for r in results.values())
    print(yardstick_line(yards[len(yards) // 2]) + f"; median of the {len(yards)} children")
    return 0


if __name__ == "__main__":
    sys.exit(main())
