"""Every script in ``benchmarks/`` runs in its ``--quick`` form and prints the yardstick (issue 20, item 6).

The scripts are discovered by glob, so a new benchmark is covered the day it lands; one that does
not accept ``--quick`` (argparse exits 2), crashes on an API change, or prints no yardstick line
fails here. The quick forms together stay within the 90 s CI budget (each has its own timeout).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))
YARDSTICK = re.compile(r"^yardstick_json_loads_ms: (\d+\.\d\d)\b", re.MULTILINE)
TIMEOUT_S = 150
"""Wall seconds one quick run may take on the shared 2-core machine before it counts as hung."""


def test_benchmarks_are_found() -> None:
    """The glob sees the scripts (a moved directory would silently test nothing)."""
    names = {p.name for p in BENCHMARKS}
    assert {"chat_load.py", "pdf_speed.py", "startup.py", "history_scale.py", "yardstick.py",
             "seed_compare.py"} <= names


@pytest.mark.parametrize("script", BENCHMARKS, ids=[p.stem for p in BENCHMARKS])
def test_quick_run(script: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_"))}
    if os.environ.get("PRHUB_TEST_DATABASE_URL"):  # the scripts' PostgreSQL path, when CI has one
        env["PRHUB_TEST_DATABASE_URL"] = os.environ["PRHUB_TEST_DATABASE_URL"]
    run = subprocess.run([sys.executable, str(script), "--quick"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=TIMEOUT_S)
    assert run.returncode == 0, f"{script.name} --quick exited {run.returncode}:\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    m = YARDSTICK.search(run.stdout)
    assert m is not None, f"{script.name} --quick printed no 'yardstick_json_loads_ms:' line:\n{run.stdout[-2000:]}"
    assert 0.05 < float(m.group(1)) < 200  # a real parse of 224 KB: not zero, not seconds
