"""Start-up of the real ``prhub serve`` process: CPU seconds until ``/healthz`` answers, and idle RSS.

Starts ``python -m prhub serve`` (Slack and Feishu over HTTP: signing secret, encrypt key and
verification token set) against the fake Slack and fake Feishu of the tests on 127.0.0.1, with a
fresh SQLite store and one repository scheduled (no catch-up run at start). The child's CPU time
(user + system, from ``/proc/PID/stat``) is read the moment ``/healthz`` first answers; its resident
memory (``VmRSS``) after 3 s idle. Then the same with the Feishu long connection
(``PRHUB_FEISHU_MODE=long``, lark-oapi's ws client, against the fake long-connection server), which
is reported separately. Also ``import prhub.cli`` (CPU seconds, in a fresh interpreter) and a no-op
``prhub fetch`` (a week already final in the store: 0 requests to the fake GitHub; CPU of the child
from ``wait4``; ``--profile`` prints its cProfile).

Usage: python benchmarks/startup.py [--runs N] [--quick] [--profile]   (Linux: reads /proc)
(``--quick``: the CI smoke run, one start over HTTP, no long connection.)
Last lines: ``ready_cpu_seconds: X``, ``idle_rss_mib: Y``, ``long_connection_ready_cpu_seconds: ...``,
``long_connection_idle_rss_mib: ...``, ``import_cli_cpu_seconds: Z``, ``noop_fetch_cpu_seconds: F``
(targets: X <= 2, Y < 150, Z <= 0.25, F <= 1.5),
each CPU figure also in yardsticks, and ``yardstick_json_loads_ms: ...`` (:mod:`benchmarks.yardstick`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.yardstick import proc_cpu_seconds, rss_mib, yardstick, yardstick_line  # noqa: E402
from tests.e2e.bot_support import example_config, example_week_dir, subprocess_env  # noqa: E402
from tests.fakes.feishu_server import FakeFeishu  # noqa: E402
from tests.fakes.feishu_ws import FakeFeishuWs  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(tmp: Path) -> Path:
    edir = example_week_dir(tmp, ["2026-W20"])
    path = tmp / "prhub.yaml"
    path.write_text(example_config(edir, '{cron: "0 9 * * 1", timezone: UTC, catch_up_grace_seconds: 0}',
                                   rest="server: {host: 127.0.0.1, port: 0, threads: 4}\n"))
    return path


def serve_once(env: dict[str, str], config: Path, idle_s: float = 3.0) -> tuple[float, float, float]:
    """``(CPU seconds until /healthz answered, wall seconds, RSS MiB after idle_s)`` of one ``prhub serve``."""
    port = _port()
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "prhub", "serve", "--config", str(config), "--port", str(port)],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"prhub serve exited {proc.returncode}: {proc.stderr.read()[-2000:] if proc.stderr else ''}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    r.read()
                break
            except OSError:
                time.sleep(0.02)
            if time.monotonic() - t0 > 60:
                raise SystemExit("prhub serve did not answer /healthz within 60 s")
        cpu, wall = proc_cpu_seconds(proc.pid), time.monotonic() - t0
        time.sleep(idle_s)
        rss = rss_mib(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    return cpu, wall, rss


def import_cli_cpu() -> float:
    """CPU seconds of ``import prhub.cli`` in a fresh interpreter (interpreter start excluded)."""
    code = "import time; t = time.process_time(); import prhub.cli; print(time.process_time() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    return float(out.stdout.strip())


def noop_fetch(tmp: Path, runs: int, profile: bool) -> list[float]:
    """CPU seconds (user + system, ``os.wait4`` of the child) of ``prhub fetch`` of a week already final
    in the store (0 requests: the store's open path, the CLI and reading the week back), against the
    fake GitHub; ``profile``: one more run under cProfile, its top 30 to stderr. Empty without
    ../shared (the fake GitHub serves its data)."""
    from tests.fakes.github_server import VLLM_DIR, FakeGitHub, load_schema

    if load_schema() is None or not (VLLM_DIR / "2026-W20.json").exists():
        print("no-op fetch: skipped (needs ../shared/data)")
        return []
    out: list[float] = []
    with FakeGitHub(token="bench-token") as fake:
        env = {**os.environ, "GITHUB_TOKEN": "bench-token", "GITHUB_API_URL": fake.base_url, "PYTHONPATH": str(ROOT)}
        env.pop("PRHUB_DATABASE_URL", None)
        cmd = ["-m", "prhub", "fetch", "--repo", "vllm-project/vllm", "--from", "2026-W20", "--db", f"sqlite:///{tmp}/fetch.db"]
        subprocess.run([sys.executable, *cmd], env=env, cwd=ROOT, check=True, capture_output=True)  # the week, now final
        before = fake.requests
        for _ in range(runs):
            child = subprocess.Popen([sys.executable, *cmd], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            if status != 0:
                raise SystemExit(f"prhub fetch exited with status {status}")
            out.append(usage.ru_utime + usage.ru_stime)
        if fake.requests != before:
            raise SystemExit(f"the no-op fetch sent {fake.requests - before} requests")
        if profile:
            prof = Path(tmp) / "fetch.prof"
            subprocess.run([sys.executable, "-m", "cProfile", "-o", str(prof), *cmd], env=env, cwd=ROOT, check=True,
                           capture_output=True)
            import pstats

            pstats.Stats(str(prof), stream=sys.stderr).sort_stats("cumulative").print_stats(30)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="starts per mode; the median is printed (default 3)")
    ap.add_argument("--quick", action="store_true", help="CI smoke run: one start over HTTP, no long connection")
    ap.add_argument("--profile", action="store_true", help="cProfile one no-op prhub fetch (top 30 to stderr)")
    args = ap.parse_args()
    runs = 1 if args.quick else max(1, args.runs)
    yard = yardstick()

    def median(xs: list[float]) -> float:
        return sorted(xs)[len(xs) // 2]

    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as slack, FakeFeishu() as feishu:
        config = _config(Path(tmp))
        http = []
        for i in range(runs):
            env = subprocess_env(slack, feishu, f"sqlite:///{tmp}/http{i}.db") | {"FEISHU_ENCRYPT_KEY": "bench-key"}
            http.append(serve_once(env, config, 1.0 if args.quick else 3.0))
        print("serve, Slack + Feishu over HTTP: " + "; ".join(f"{c:.2f} s CPU ({w:.1f} s wall), {r:.0f} MiB" for c, w, r in http))
        long: list[tuple[float, float, float]] = []
        with contextlib.ExitStack() if args.quick else FakeFeishuWs(app_id=feishu.app_id, app_secret=feishu.app_secret) as ws:
            for i in range(0 if args.quick else runs):
                env = subprocess_env(slack, feishu, f"sqlite:///{tmp}/long{i}.db") | {
                    "PRHUB_FEISHU_MODE": "long", "FEISHU_API_URL": ws.url}
                env.pop("FEISHU_VERIFICATION_TOKEN", None)
                long.append(serve_once(env, config))
        if long:
            print("serve, Slack over HTTP + Feishu long connection: "
                  + "; ".join(f"{c:.2f} s CPU ({w:.1f} s wall), {r:.0f} MiB" for c, w, r in long))
        fetches = noop_fetch(Path(tmp), runs, args.profile)
    imports = [import_cli_cpu() for _ in range(runs)]
    ready = median([c for c, _, _ in http])
    print(f"ready_cpu_seconds: {ready:.2f} ({ready / yard:.0f}x yardstick)")
    print(f"idle_rss_mib: {median([r for _, _, r in http]):.0f}")
    if long:
        lc = median([c for c, _, _ in long])
        print(f"long_connection_ready_cpu_seconds: {lc:.2f} ({lc / yard:.0f}x yardstick)")
        print(f"long_connection_idle_rss_mib: {median([r for _, _, r in long]):.0f}")
    print(f"import_cli_cpu_seconds: {median(imports):.3f} ({median(imports) / yard:.0f}x yardstick)")
    if fetches:
        nf = median(fetches)
        print(f"noop_fetch_cpu_seconds: {nf:.2f} ({nf / yard:.0f}x yardstick; runs {', '.join(f'{f:.2f}' for f in fetches)})")
    print(yardstick_line(yard))
    return 0


if __name__ == "__main__":
    sys.exit(main())
