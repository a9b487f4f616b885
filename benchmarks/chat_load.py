"""Chat load through the real HTTP path: ``prhub serve`` (waitress, bolt, the store) as a subprocess,
driven by concurrent senders of signed Slack ``app_mention`` events, answered into the fake Slack.

For each database (SQLite file; PostgreSQL when ``PRHUB_TEST_DATABASE_URL`` or ``--pg URL`` is given):

1. **queries**: every line of ``benchmarks/queries.txt`` (1,000 queries: every intent, English and
   Chinese) sent once, one at a time, as a signed mention: reply p50/p99/max in ms, from the POST to
   the fake Slack receiving the answer (this replaces ``query_latency.py``, which timed parse +
   answer + rendering in-process and so skipped HTTP, signatures, the store and the post).
   Relative weeks ("this week") resolve on the real clock; the stored week is 2026-W20.
2. **load**: for each number of concurrent senders (1, 8, 20, 32; ``--levels``) signed
   ``app_mention`` events for ``--seconds``, each sender taking the next line of the same mixed
   question set (every intent, en and zh; a sender sends its next question when the previous one
   is acked): replies/s, reply p50/p99 of the real answers, "busy" answers counted apart (their
   share of all answers, target <= 5%), ack p99, the server's RSS and its CPU seconds (user +
   system from ``/proc/PID/stat``) during the level.
3. **bodies**: the RSS before and after four concurrent unsigned 100 MB POSTs (refused with 413
   before they are read), once at idle (before 1 and 2) and once after the load.

Targets: reply p99 <= 1 s at 20 senders and <= 2 s at 50 on SQLite and PostgreSQL with <= 5% "busy"
answers (issue 20), RSS within 20 MiB after the refused bodies (issue 9). Figures from a 2-core
machine shared with other work: compare within one run; the yardstick (:mod:`benchmarks.yardstick`,
CPU of ``json.loads`` of the shipped week) is measured in the same run and printed last.

Usage: python benchmarks/chat_load.py [--seconds 5] [--levels 1,8,20,50] [--queries N] [--no-sqlite]
       [--pg postgresql+psycopg://postgres@127.0.0.1:5432/test] [--no-bodies] [--quick]
(``--quick``: the CI smoke run, SQLite, 20 queries, 2 senders for 1 s, no 100 MB bodies.)
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

from benchmarks.yardstick import proc_cpu_seconds as cpu_seconds, rss_mib, yardstick, yardstick_line  # noqa: E402
from tests.adapters.storage.conftest import pg_schema  # noqa: E402
from tests.e2e.bot_support import free_port, vllm_github_config  # noqa: E402
from tests.fakes.inbound import slack_event, slack_headers  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402

SECRET = "bench-signing-secret"
LEVELS = (1, 8, 20, 50)
QUERIES = ROOT / "benchmarks" / "queries.txt"


def questions() -> list[str]:
    """The mixed question set: every line of :data:`QUERIES` without the bot mention."""
    lines = [q.strip() for q in QUERIES.read_text(encoding="utf-8").splitlines() if q.strip()]
    return [q.replace("<@U_BOT>", "").strip() for q in lines]


def is_busy(post: dict[str, object]) -> bool:
    """True when a reply is the "busy, try again" card (catalog key ``card.busy``, en or zh)."""
    blocks = json.dumps(post.get("blocks"), ensure_ascii=False)
    return "prhub is busy right now" in blocks or "prhub 正忙" in blocks


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
    lines = questions()[:limit]
    times: list[float] = []
    busy = 0
    for n, text in enumerate(lines):
        start = len(slack.posts)
        t0 = time.monotonic()
        ts, _ = mention(port, n, "qq", text)
        end = t0 + 30
        reply = None
        while time.monotonic() < end and reply is None:
            reply = next((p for p in slack.posts[start:] if p.get("thread_ts") == ts), None)
            time.sleep(0.0005)
        times.append((time.monotonic() - t0) * 1000)
        busy += reply is not None and is_busy(reply)
    return {"queries": len(times), "p50_ms": pct(times, 0.5), "p99_ms": pct(times, 0.99), "max_ms": max(times),
            "busy": busy}


def run_level(port: int, slack: FakeSlack, senders: int, seconds: float, tag: str,
              pid: int | None = None) -> dict[str, float]:
    """``senders`` threads sending the mixed question set for ``seconds``: the answers' latencies,
    "busy" answers apart, the server's CPU seconds (``pid``) during the level."""
    lines = questions()
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
            ts, ack = mention(port, n, tag, lines[n % len(lines)])
            with lock:
                sent[ts] = t0
                acks.append(ack)

    seen: dict[str, float] = {}
    busy: set[str] = set()
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
                    if is_busy(p):
                        busy.add(th)
            time.sleep(0.002)

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    threads = [threading.Thread(target=sender) for _ in range(senders)]
    cpu0 = cpu_seconds(pid) if pid else 0.0
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
    cpu = (cpu_seconds(pid) - cpu0) if pid else float("nan")
    lat = [seen[ts] - t0 for ts, t0 in sent.items() if ts in seen and ts not in busy]
    answered = sum(ts in seen for ts in sent)
    return {"sent": len(sent), "answered": answered, "real": len(lat), "busy": len(busy),
            "busy_pct": 100.0 * len(busy) / max(1, answered),
            "answers_per_s": len(lat) / max(1e-9, t_end - t_start), "server_cpu_s": cpu,
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
    ap.add_argument("--no-bodies", action="store_true", help="skip the refused 100 MB bodies")
    ap.add_argument("--quick", action="store_true", help="CI smoke run: SQLite, 20 queries, 2 senders for 1 s")
    args = ap.parse_args()
    levels = tuple(int(x) for x in args.levels.split(",") if x.strip())
    if args.quick:
        args.seconds, levels, args.queries, args.pg = 1.0, (2,), 20, None
    with tempfile.TemporaryDirectory() as tmp:
        dbs = [] if args.no_sqlite else [("sqlite", f"sqlite:///{tmp}/bench.db")]
        if args.pg:
            dbs.append(("postgresql", args.pg))
        for name, db in dbs:
            with contextlib.ExitStack() as stack:
                if name == "postgresql":
                    db = stack.enter_context(pg_schema(db))  # a fresh schema, dropped after
                bench(name, db, Path(tmp), args.seconds, levels, args.queries, bodies=not (args.quick or args.no_bodies))
    print(yardstick_line(yardstick()))


def bench(name: str, db: str, tmp: Path, seconds: float, levels: tuple[int, ...] = LEVELS,
          queries: int | None = None, bodies: bool = True) -> None:
    """One database: start prhub serve, the queries, every sender level, then the refused bodies."""
    with FakeSlack() as slack:
        proc, port = start_serve(db, slack, tmp)
        try:
            idle = rss_mib(proc.pid)
            print(f"{name}: idle_rss_mib: {idle:.1f}")
            if bodies:
                statuses = refuse_big_bodies(port)
                time.sleep(1.0)
                after = rss_mib(proc.pid)
                print(f"{name}: four 100 MB bodies at idle -> {statuses}; rss_mib idle {idle:.1f} after {after:.1f} "
                      f"(+{after - idle:.1f})", flush=True)
            if queries != 0:
                q = run_queries(port, slack, queries)
                print(f"{name} queries: {q['queries']} one at a time: reply_p50_ms {q['p50_ms']:.1f} "
                      f"reply_p99_ms {q['p99_ms']:.1f} max_ms {q['max_ms']:.1f} busy {q['busy']}", flush=True)
            yard = yardstick()
            for n in levels:
                r = run_level(port, slack, n, seconds, tag=f"{name[:2]}{n:02d}", pid=proc.pid)
                per_answer = r["server_cpu_s"] / max(1, r["answered"])
                print(f"{name} senders={n}: sent {r['sent']} answered {r['answered']} = {r['real']} answers + "
                      f"{r['busy']} busy ({r['busy_pct']:.1f}% busy) answers_per_s {r['answers_per_s']:.1f} "
                      f"reply_p50_s {r['p50_s']:.3f} reply_p99_s {r['p99_s']:.3f} ack_p99_s {r['ack_p99_s']:.3f} "
                      f"server_cpu_s {r['server_cpu_s']:.2f} ({per_answer * 1000:.1f} ms = {per_answer / yard:.1f}x "
                      f"yardstick per reply) rss_mib {rss_mib(proc.pid):.1f}", flush=True)
            if bodies:
                before = rss_mib(proc.pid)
                statuses = refuse_big_bodies(port)
                time.sleep(1.0)
                after = rss_mib(proc.pid)
                print(f"{name}: four 100 MB bodies -> {statuses}; rss_mib before {before:.1f} after {after:.1f} "
                      f"(+{after - before:.1f})", flush=True)
            log = (tmp / "serve.log").read_text(errors="replace")
            print(f"{name}: server log: {log.count('Connection pool is full')} urllib3 'Connection pool is full' "
                  f"warnings, {log.count('Traceback')} tracebacks", flush=True)
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
