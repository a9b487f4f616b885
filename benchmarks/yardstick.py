"""The yardstick every benchmark prints beside its figures: CPU time of ``json.loads`` of the shipped week;
and how a benchmark measures the process it names (its CPU, resident and peak memory from ``/proc``).

A figure alone cannot tell a loaded or slower machine from a regression; the same machine's CPU time
for a fixed, well-known piece of work, measured in the same run, can. The work is ``json.loads`` of
``prhub/data/2026-W20.json`` (217 PRs, ~224 KB, bytes already in memory), timed with
``time.process_time`` (CPU of this process, not wall) over ``rounds`` rounds with the garbage
collector off; the median is the yardstick. On a quiet core it is ~2 ms; issue 20 measured
3.5–3.9 ms on a slower shared host. A benchmark reports a figure ``F`` as ``F / yardstick`` too, so
"the PDF at <= 2 s CPU on a quiet machine" reads as "<= 600x the yardstick" anywhere.

Use::

    from benchmarks.yardstick import yardstick, yardstick_line
    y = yardstick()                     # seconds (float)
    print(yardstick_line(y))            # "yardstick_json_loads_ms: 2.10 (json.loads of 2026-W20.json, CPU, median of 40)"
    print(f"pdf: {cpu:.2f} s = {cpu / y:.0f}x yardstick")
    peak_rss_mib(child.pid); proc_cpu_seconds(child.pid)   # the measured process, not the driver

Scripts run as ``python benchmarks/x.py`` import it as ``from yardstick import ...`` (the script's
directory is on ``sys.path``) or, with the repository root on the path, as ``benchmarks.yardstick``.

Usage: python benchmarks/yardstick.py [--rounds N] [--quick]   (prints the line alone)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

WEEK = Path(__file__).resolve().parents[1] / "prhub" / "data" / "2026-W20.json"
"""The shipped week whose parse is the yardstick (part of the package, so it is always there)."""

ROUNDS = 40
"""Rounds of the default measurement (median taken; ~0.1 s CPU in all on a quiet core)."""


def yardstick(rounds: int = ROUNDS) -> float:
    """CPU seconds of one ``json.loads`` of :data:`WEEK` in this process: the median of ``rounds``
    rounds (one warm-up first), gc disabled while timing.

    Raises:
        ValueError: ``rounds`` < 1. OSError: the shipped week cannot be read.
    """
    if rounds < 1:
        raise ValueError(f"yardstick: rounds must be >= 1, got {rounds}")
    raw = WEEK.read_bytes()
    json.loads(raw)  # warm-up: page the bytes in, the decoder's caches
    times: list[float] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            t0 = time.process_time()
            json.loads(raw)
            times.append(time.process_time() - t0)
    finally:
        if enabled:
            gc.enable()
    return statistics.median(times)


def yardstick_line(seconds: float, rounds: int = ROUNDS) -> str:
    """The line benchmarks print: ``yardstick_json_loads_ms: X.XX (json.loads of 2026-W20.json, CPU, median of N)``."""
    return f"yardstick_json_loads_ms: {seconds * 1000:.2f} (json.loads of {WEEK.name}, CPU, median of {rounds})"


def proc_cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) from ``/proc/PID/stat``; 0.0
    when the process has exited (a database backend whose connection closed).

    Raises:
        OSError: not Linux (no ``/proc/self``).
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int | str = "self") -> float:
    """Resident memory now (MiB) of process ``pid``, ``VmRSS`` of ``/proc/PID/status``.

    Raises:
        OSError: no such process, or not Linux.
    """
    return _status_mib(pid, "VmRSS:")


def _status_mib(pid: int | str, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    raise OSError(f"/proc/{pid}/status has no {key} line")


def peak_rss_mib(pid: int | str = "self") -> float:
    """Peak resident memory (MiB) of process ``pid`` (default: this one) from ``/proc/PID/status``
    ``VmHWM``: the process's own high-water mark. Not ``ru_maxrss``: Linux carries a parent's peak
    into a child across ``fork``/``exec``, so a small child of a big driver reported the driver's.

    Raises:
        OSError: no such process, or not Linux.
    """
    return _status_mib(pid, "VmHWM:")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--quick", action="store_true", help="10 rounds (the CI smoke run)")
    args = ap.parse_args()
    rounds = 10 if args.quick else args.rounds
    print(yardstick_line(yardstick(rounds), rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
