"""The LLM writer's fact sheet size for the largest week in ../shared/data (a benchmark, not a test).

Scans every export under ../shared/data (the weekly files, the threads week and the 2025 year
file), groups PRs by ISO week (UTC), takes the week with most merged PRs (the threads version
when one exists), builds its digest and prints its fact sheet's estimated tokens
(:func:`chatbot.factsheet.estimate_tokens`, ``ceil(1.5 * (ceil(ascii/4) + non_ascii))``) before and after
fitting it to ``--max-input-tokens``::

    largest_week: 2025-W42 (310 PRs, from vllm-2025.json.gz)
    fact_sheet_tokens: 9876
    fitted_tokens_at_8000: 7391

and the yardstick (:mod:`benchmarks.yardstick`) measured in the same run.

Usage: python benchmarks/fact_sheet_tokens.py [--data DIR] [--max-input-tokens N] [--lang en|zh] [--quick]
(``--quick``: the CI smoke run, the weekly files only, or the shipped week without ../shared.)
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.export.ghjson import load_exports  # noqa: E402
from benchmarks.yardstick import yardstick, yardstick_line  # noqa: E402
from chatbot.digest import build_digest, write  # noqa: E402
from chatbot.factsheet import PROMPT_OVERHEAD, estimate_tokens, fact_sheet, fit_fact_sheet, sheet_text  # noqa: E402
from chatbot.rules import shipped_rules  # noqa: E402
from chatbot.weeks import IsoWeek, load_zone  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--max-input-tokens", type=int, default=8000)
    ap.add_argument("--lang", default="en", choices=("en", "zh"))
    ap.add_argument("--quick", action="store_true", help="CI smoke run: weekly files only (or the shipped week)")
    args = ap.parse_args()
    data = Path(args.data)
    if args.quick:
        files = sorted(data.glob("vllm/*.json"))[-2:] or [ROOT / "prhub" / "data" / "2026-W20.json"]
    else:
        files = sorted(data.glob("vllm/*.json")) + sorted(data.glob("vllm-*.json.gz")) + sorted(data.glob("vllm-threads/*.json"))
    if not files:
        print(f"no exports under {data}", file=sys.stderr)
        return 2
    utc = load_zone("UTC")
    weeks: dict[IsoWeek, dict[int, object]] = defaultdict(dict)
    origin: dict[IsoWeek, str] = {}
    for f in files:  # threads files come last: their records replace the plain ones
        for pr in load_exports([str(f)], skip_invalid=True).prs:
            w = IsoWeek.containing(pr.merged_at, utc)
            weeks[w][pr.number] = pr
            origin[w] = f.name
    week = max(weeks, key=lambda w: (len(weeks[w]), str(w)))
    prs = list(weeks[week].values())
    d = write(build_digest(prs, repo="vllm-project/vllm", week=week, rules=shipped_rules("vllm")), args.lang)
    sheet = fact_sheet(d)
    fitted = fit_fact_sheet(sheet, args.max_input_tokens)
    print(f"largest_week: {week} ({d.total_prs} PRs, from {origin[week]})")
    print(f"fact_sheet_tokens: {estimate_tokens(sheet_text(sheet))}")
    print(f"fitted_tokens_at_{args.max_input_tokens}: {estimate_tokens(sheet_text(fitted))} "
          f"(+{PROMPT_OVERHEAD} prompt overhead; key PRs kept {len(fitted['key_prs'])}/{len(sheet['key_prs'])})")
    print(yardstick_line(yardstick()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
