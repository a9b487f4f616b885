"""Slow clients against the real ``prhub serve``: does ``/healthz`` answer while N connections each send
one request byte every 2 s (issue 20, item 2: 105 such connections held 12dedfc down)?

Usage: python benchmarks/slow_clients.py [--connections N] [--interval S] [--quick]
(``--quick``: the CI smoke run, 100 connections for a few seconds.)

Starts ``python -m prhub serve`` (Slack and Feishu over HTTP, against the fakes, SQLite), opens N
connections that trickle a byte of a POST every ``--interval`` seconds, and while they are held asks
``GET /healthz`` 10 times (3 s timeout each). Then waits for the server to close them at
``server.request_deadline_seconds`` (10 s by default). Prints ``held: N``,
``healthz_answered: A/10``, ``healthz_p50_ms`` / ``healthz_max_ms``, ``dropped_after_s`` (first byte to
the last slow connection closed), the server's CPU seconds over the run (and in yardsticks), and
``yardstick_json_loads_ms: ...`` (:mod:`benchmarks.yardstick`). Target: 500 held, 10/10 answered.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.yardstick import proc_cpu_seconds, yardstick, yardstick_line  # noqa: E402
from tests.e2e.bot_support import example_config, example_week_dir, free_port, subprocess_env  # noqa: E402
from tests.fakes.feishu_server import FakeFeishu  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402
from tests.fakes.slow_clients import SlowClients, healthz  # noqa: E402

PROBES = 10


def _wait_ready(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"prhub serve exited {proc.returncode}")
        if healthz(port, timeout=2)[0]:
            return
        time.sleep(0.1)
    raise SystemExit("prhub serve did not answer /healthz within 60 s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=500, help="slow connections held (default 500)")
    ap.add_argument("--interval", type=float, default=2.0, help="seconds between bytes per connection (default 2)")
    ap.add_argument("--quick", action="store_true", help="CI smoke run: 100 connections, 2 s deadline")
    args = ap.parse_args()
    count = 100 if args.quick else args.connections
    deadline = 2.0 if args.quick else 10.0
    yard = yardstick()
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as slack, FakeFeishu() as feishu:
        edir = example_week_dir(Path(tmp), ["2026-W20"])
        config = Path(tmp) / "prhub.yaml"
        config.write_text(example_config(edir, '{cron: "0 9 * * 1", timezone: UTC}',
                                         rest=f"server: {{host: 127.0.0.1, port: 0, threads: 8, "
                                              f"request_deadline_seconds: {deadline}}}\n"))
        env = subprocess_env(slack, feishu, f"sqlite:///{tmp}/bot.db") | {"FEISHU_ENCRYPT_KEY": "bench-key",
                                                                           "PRHUB_LOG_LEVEL": "WARNING"}
        port = free_port()
        with open(Path(tmp) / "serve.log", "w") as log:
            proc = subprocess.Popen([sys.executable, "-m", "prhub", "serve", "--config", str(config), "--port",
                                     str(port)], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
            clients = None
            try:
                _wait_ready(port, proc)
                cpu0 = proc_cpu_seconds(proc.pid)
                clients = SlowClients(port, count, interval=0.5 if args.quick else args.interval).start()
                started = time.monotonic()
                probes = [healthz(port) for _ in range(PROBES)]
                held = clients.open_count()
                probe_s = time.monotonic() - started
                end = started + deadline + 30
                while time.monotonic() < end and clients.open_count():
                    time.sleep(0.2)
                dropped_after = time.monotonic() - started
                left = clients.open_count()
                cpu = proc_cpu_seconds(proc.pid) - cpu0
            finally:
                if clients is not None:
                    clients.stop()
                proc.terminate()
                proc.wait(timeout=30)
    ok = sorted(s for status, s in probes if status == 200)
    print(f"connections: {count} (a byte every {0.5 if args.quick else args.interval:g} s; "
          f"request deadline {deadline:g} s)")
    print(f"held: {held} (while /healthz was asked {PROBES} times in {probe_s:.1f} s)")
    print(f"healthz_answered: {len(ok)}/{PROBES}")
    if ok:
        print(f"healthz_p50_ms: {ok[len(ok) // 2] * 1000:.1f}  healthz_max_ms: {ok[-1] * 1000:.1f}")
    print(f"dropped_after_s: {dropped_after:.1f} ({left} still open)")
    print(f"server_cpu_seconds: {cpu:.2f} ({cpu / yard:.0f}x yardstick)")
    print(yardstick_line(yard))
    return 0 if len(ok) == PROBES and held == count and left == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
