"""The validator on the week-27 red-team suite: keep and catch rates, and its speed (a benchmark, not a test).

Runs the sentences of ``tests/fixtures/prose/2026-W27.zh.jsonl`` (seed 001's sentences about the
week, labelled true/false/unverifiable, and 50 edits of the true ones) through the same path as
``prhub check-prose --input ../shared/data/vllm-threads/2026-W27.json --week 2026-W27 --lang zh``
and prints::

    true_kept: 46/47 (97.9%)              target >= 90%
    false_rejected: 5/5
    edits_rejected: 50/50 (100.0%)        target >= 90%
    edits_rejected_swapped_pr: 10/10        target: all (also wrong_subject_number, inverted, false_relation)
    ...
    check_cpu_ms_per_sentence: 0.9 (= 0.4x yardstick)
    yardstick_json_loads_ms: 2.10 (...)

``check_cpu_ms_per_sentence`` is the median CPU time of checking one sentence (facts built once),
over ``--rounds`` passes of the suite. Without ``../shared`` it prints the yardstick alone.

Usage: python benchmarks/prose_check.py [--data FILE] [--rounds N] [--quick]   (``--quick``: one pass)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.yardstick import yardstick, yardstick_line  # noqa: E402
from chatbot.prose_check import Claim, check_claim  # noqa: E402

SUITE = ROOT / "tests" / "fixtures" / "prose" / "2026-W27.zh.jsonl"
KINDS = ("swapped_pr", "wrong_subject_number", "inverted", "false_relation", "wrong_author", "wrong_module")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "vllm-threads" / "2026-W27.json"))
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    y = yardstick()
    if not Path(args.data).exists():
        print(f"suite: skipped ({args.data} not found)")
        print(yardstick_line(y))
        return 0
    from prhub.bootstrap import read_inputs
    from prhub.check_prose import read_claims, week_facts

    prs = read_inputs([args.data], sample=False, skip_invalid=False).prs
    facts = week_facts(prs, repo="vllm-project/vllm", week="2026-W27", lang="zh", rules_file=None, tz="UTC")
    rows = [json.loads(x) for x in SUITE.read_text(encoding="utf-8").splitlines() if x.strip()]
    claims = read_claims(SUITE.read_bytes(), str(SUITE))
    times: list[float] = []
    kept: list[bool] = []
    for _ in range(1 if args.quick else max(1, args.rounds)):
        start = time.process_time()
        kept = [not check_claim(Claim(c.text, c.prs, c.facts), facts) for c in claims]
        times.append((time.process_time() - start) / len(claims))
    c: Counter[tuple[str, str, bool]] = Counter((r["label"], r.get("kind", ""), k) for r, k in zip(rows, kept))

    def line(name: str, good: int, total: int, target: str = "") -> None:
        pct = f" ({100 * good / total:.1f}%)" if total else ""
        print(f"{name}: {good}/{total}{pct}" + (f"   target {target}" if target else ""))

    line("true_kept", c[("true", "", True)], c[("true", "", True)] + c[("true", "", False)], ">= 90%")
    line("false_rejected", c[("false", "", False)], c[("false", "", False)] + c[("false", "", True)])
    edits = [(r, k) for r, k in zip(rows, kept) if r["label"] == "edit"]
    line("edits_rejected", sum(not k for _, k in edits), len(edits), ">= 90%")
    for kind in KINDS:
        of_kind = [k for r, k in edits if r["kind"] == kind]
        line(f"edits_rejected_{kind}", sum(not k for k in of_kind), len(of_kind),
             "all" if kind in KINDS[:4] else "")
    per = statistics.median(times)
    print(f"check_cpu_ms_per_sentence: {per * 1000:.2f} (= {per / y:.2f}x yardstick)")
    print(yardstick_line(y))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
