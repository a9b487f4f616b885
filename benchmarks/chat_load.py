"""Chat load through the real HTTP path: ``prhub serve`` (waitress, bolt, the store) as a subprocess,
driven by concurrent senders of signed Slack ``app_mention`` events, answered into the fake Slack.

For each database (SQLite file; PostgreSQL when ``PRHUB_TEST_DATABASE_URL`` or ``--pg URL`` is given):

1. **queries**: every line of ``benchmarks/queries.txt`` (1,000 queries: every intent, English and
   Chinese) sent once, one at a time, as a signed mention: reply p50/p99/max in ms, from the POST to
   the fake Slack receiving the answer (this replaces ``query_latency.py``, which timed parse +
   answer + rendering in-process and so skipped HTTP, signatures, the store and the post).
   Relative weeks ("this week") resolve on the real clock; the stored week is 2026-W20.
2. **load**: for each number of concurrent senders (1, 8, 20, 32; ``--levels``) signed
   ``app_mention`` events ("risks 2026-W20") for ``--seconds``: replies/s, reply p50/p99 (a "busy"
   answer counts as an answer; how many were busy is printed), ack p99 and the server's RSS.
3. **bodies**: the RSS before and after four concurrent unsigned 100 MB POSTs (refused with 413
   before they are read), once at idle (before 1 and 2) and once after the load.

Targets: reply p99 <= 150 ms at 8 senders on SQLite (issue 13), <= 1 s at 20 senders on PostgreSQL,
RSS within 20 MiB after the refused bodies (issue 9). Figures from a 2-core machine shared with
other work: compare within one run.

Usage: python benchmarks/chat_load.py [--seconds 5] [--levels 1,8,20,32] [--queries N] [--no-sqlite]
       [--pg postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.adapters.storage.conftest import pg_schema  # noqa: E402
from tests.e2e.bot_support import free_port, vllm_github_config  # noqa: E402
from tests.fakes.inbound import slack_event, slack_headers  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402

SECRET = "bench-signing-secret"
LEVELS = (1, 8, 20, 32)
QUERIES = ROOT / "benchmarks" / "queries.txt"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def start_serve(db: str, slack: FakeSlack, workdir: Path) -> tuple[subprocess.Popen[str], int]:
    cfg = workdir / "prhub.yaml"
    cfg.write_text(vllm_github_config("C_BENCH", threads=8))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_"))}
    env.update({"PYTHONPATH": str(ROOT), "PRHUB_DATABASE_URL": db, "PRHUB_LOG_LEVEL": "WARNING",
                "SLACK_BOT_TOKEN": slack.token, "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": slack.base_url})
    subprocess.run([sys.executable, "-m", "prhub", "import", str(ROOT / "prhub" / "data" / "2026-W20.json"),
                    "--repo", "vllm-project/vllm"], env=env, cwd=ROOT, check=True, capture_output=True)
    port = free_port()
    # the server's log goes to a file: a pipe nobody drains fills at 64 KiB and then blocks every
    # thread that logs, the accept loop included (the "32 senders hang" of an earlier version)
    log_path = workdir / "serve.log"
    with log_path.open("w") as log_file:
        proc = subprocess.Popen([sys.executable, "-m", "prhub", "serve", "--config", str(cfg), "--port", str(port)],
                                env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log_file, text=True)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc, port
        except OSError:
            time.sleep(0.2)
    raise SystemExit("prhub serve did not start: " + log_path.read_text(errors="replace")[-2000:])


def mention(port: int, n: int, tag: str, text: str) -> tuple[str, float]:
    """POST one signed ``app_mention`` (``ts`` ends with ``tag``); its ts and the ack time (s)."""
    ts = f"{1718000000 + n}.{tag}"
    ev = {"type": "app_mention", "user": "U_LOAD", "channel": "C_LOAD", "ts": ts, "text": "<@U_BOT> " + text}
    body = slack_event(ev, event_id=f"Ev{tag}{n}")
    req = urllib.request.Request(f"http://127.0.0.1:{port}/slack/events", data=body,
                                 headers=slack_headers(body, secret=SECRET), method="POST")
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()
    except OSError:
        pass
    return ts, time.monotonic() - t0


def run_queries(port: int, slack: FakeSlack, limit: int | None) -> dict[str, float]:
    """Every query of :data:`QUERIES` once, one at a time: reply latency (ms) of each."""
    lines = [q.strip() for q in QUERIES.read_text(encoding="utf-8").splitlines() if q.strip()]
    lines = [q.replace("<@U_BOT>", "").strip() for q in lines][:limit]
    times: list[float] = []
    for n, text in enumerate(lines):
        start = len(slack.posts)
        t0 = time.monotonic()
        ts, _ = mention(port, n, "qq", text)
        end = t0 + 30
        while time.monotonic() < end and not any(p.get("thread_ts") == ts for p in slack.posts[start:]):
            time.sleep(0.0005)
        times.append((time.monotonic() - t0) * 1000)
    return {"queries": len(times), "p50_ms": pct(times, 0.5), "p99_ms": pct(times, 0.99), "max_ms": max(times)}


def run_level(port: int, slack: FakeSlack, senders: int, seconds: float, tag: str) -> dict[str, float]:
    sent: dict[str, float] = {}
    acks: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds
    seq = iter(range(10**9))

    def sender() -> None:
        while time.monotonic() < stop:
            with lock:
                n = next(seq)
            t0 = time.monotonic()
            ts, ack = mention(port, n, tag, "risks 2026-W20")
            with lock:
                sent[ts] = t0
                acks.append(ack)

    seen: dict[str, float] = {}
    busy = [0]
    done = threading.Event()

    def watch() -> None:
        i = 0
        while not done.is_set():
            posts = slack.posts
            while i < len(posts):
                p = posts[i]
                i += 1
                th = p.get("thread_ts")
                if th and th.endswith(tag) and th not in seen:
                    seen[th] = time.monotonic()
                    if "busy" in json.dumps(p.get("blocks")):
                        busy[0] += 1
            time.sleep(0.002)

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    threads = [threading.Thread(target=sender) for _ in range(senders)]
    t_start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(seen) < len(sent):
        time.sleep(0.05)
    t_end = max(seen.values(), default=time.monotonic())
    done.set()
    lat = [seen[ts] - t0 for ts, t0 in sent.items() if ts in seen]
    return {"sent": len(sent), "answered": len(lat), "busy": busy[0],
            "answers_per_s": len(lat) / max(1e-9, t_end - t_start),
            "p50_s": pct(lat, 0.5), "p99_s": pct(lat, 0.99), "ack_p99_s": pct(acks, 0.99)}


def refuse_big_bodies(port: int, n: int = 4, size: int = 100 * 1024 * 1024) -> list[int]:
    statuses: list[int] = []

    def one() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      + f"Content-Length: {size}\r\n\r\n".encode())
            chunk = b"A" * (1024 * 1024)
            try:
                for _ in range(size // len(chunk)):
                    s.sendall(chunk)
            except OSError:
                pass  # the server answered 413 and closed: the rest is never read
            try:
                data = s.recv(200)
                statuses.append(int(data.split(b" ", 2)[1]) if data else 0)
            except (OSError, IndexError, ValueError):
                statuses.append(0)

    ts = [threading.Thread(target=one) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return statuses


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--pg", default=os.environ.get("PRHUB_TEST_DATABASE_URL"))
    ap.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    ap.add_argument("--levels", default=",".join(map(str, LEVELS)), help="concurrent senders, comma-separated")
    ap.add_argument("--queries", type=int, default=None, help="send only the first N queries (0: none)")
    args = ap.parse_args()
    levels = tuple(int(x) for x in args.levels.split(",") if x.strip())
    with tempfile.TemporaryDirectory() as tmp:
        dbs = [] if args.no_sqlite else [("sqlite", f"sqlite:///{tmp}/bench.db")]
        if args.pg:
            dbs.append(("postgresql", args.pg))
        for name, db in dbs:
            with contextlib.ExitStack() as stack:
                if name == "postgresql":
                    db = stack.enter_context(pg_schema(db))  # a fresh schema, dropped after
                bench(name, db, Path(tmp), args.seconds, levels, args.queries)


def bench(name: str, db: str, tmp: Path, seconds: float, levels: tuple[int, ...] = LEVELS,
          queries: int | None = None) -> None:
    """One database: start prhub serve, the queries, every sender level, then the refused bodies."""
    with FakeSlack() as slack:
        proc, port = start_serve(db, slack, tmp)
        try:
            idle = rss_mib(proc.pid)
            print(f"{name}: idle_rss_mib: {idle:.1f}")
            statuses = refuse_big_bodies(port)
            time.sleep(1.0)
            after = rss_mib(proc.pid)
            print(f"{name}: four 100 MB bodies at idle -> {statuses}; rss_mib idle {idle:.1f} after {after:.1f} "
                  f"(+{after - idle:.1f})", flush=True)
            if queries != 0:
                q = run_queries(port, slack, queries)
                print(f"{name} queries: {q['queries']} one at a time: reply_p50_ms {q['p50_ms']:.1f} "
                      f"reply_p99_ms {q['p99_ms']:.1f} max_ms {q['max_ms']:.1f}", flush=True)
            for n in levels:
                r = run_level(port, slack, n, seconds, tag=f"{name[:2]}{n:02d}")
                print(f"{name} senders={n}: sent {r['sent']} answered {r['answered']} (busy {r['busy']}) "
                      f"answers_per_s {r['answers_per_s']:.1f} reply_p50_s {r['p50_s']:.3f} "
                      f"reply_p99_s {r['p99_s']:.3f} ack_p99_s {r['ack_p99_s']:.3f} "
                      f"rss_mib {rss_mib(proc.pid):.1f}", flush=True)
            before = rss_mib(proc.pid)
            statuses = refuse_big_bodies(port)
            time.sleep(1.0)
            after = rss_mib(proc.pid)
            print(f"{name}: four 100 MB bodies -> {statuses}; rss_mib before {before:.1f} after {after:.1f} "
                  f"(+{after - before:.1f})", flush=True)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print(f"{name}: prhub serve did not stop within 30 s of SIGTERM: killed", flush=True)
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
