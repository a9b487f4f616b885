"""CPU time of the PDF report of the largest shipped week, in English and Chinese (a benchmark, not a test).

The real ``prhub digest --format pdf`` path (:func:`prhub.report.digest_report_bytes`: digest, report
with history from the input weeks, charts, WeasyPrint) on the largest week of ``../shared/data/vllm``
(by PR count; the shipped ``prhub/data`` week without ../shared), every week of that directory as the
history. Each language runs in a fresh process (imports warm, caches cold: the CLI's case) and is timed
with ``time.process_time`` (CPU, not wall): the whole report, and the WeasyPrint print alone
(:func:`adapters.report.pdf.html_to_pdf` of the same page). Then ``pdftotext -bbox`` checks that every
word lies between the page's side margins (:func:`tests.goldens.words_outside_margins`).

The yardstick (:mod:`benchmarks.yardstick`, CPU of ``json.loads`` of the shipped week) is measured in
each child and printed beside the figures: the goal is <= 2 s CPU on a quiet machine, i.e. <= 600x
the yardstick.

Usage: python benchmarks/pdf_speed.py [--runs N] [--profile] [--quick]
(--profile: cProfile's top 40 of the first report + PDF, to stderr; --quick: the CI smoke run, one English run
of the first 20 PRs of the week, no margin check, no second print: "print alone" is -1.00.)
Last lines: ``pdf_cpu_seconds_en: X (N x yardstick)``, ``pdf_cpu_seconds_zh: Y (...)`` (target <= 2 each,
<= 600x), ``words_outside_margins: N`` (target 0), ``yardstick_json_loads_ms: Z``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "data" / "vllm"
def weeks() -> list[Path]:
    files = sorted(SHARED.glob("2026-W*.json"))
    return files or [ROOT / "prhub" / "data" / "2026-W20.json"]


def largest(files: list[Path]) -> Path:
    return max(files, key=lambda p: (len(json.loads(p.read_bytes())), p.name))


def one(lang: str, profile: bool, limit: int | None = None) -> dict[str, float | str]:
    """In this process: CPU seconds of the whole report and of the print alone, the yardstick; the PDF
    path. ``limit``: only the first ``limit`` PRs of every week (the --quick run, which skips the second
    print: the print alone is then reported as -1)."""
    from benchmarks.yardstick import yardstick

    from adapters.export.ghjson import load_exports
    from adapters.report.pdf import html_to_pdf
    from chatbot.digest_service import DigestService
    from chatbot.rules import shipped_rules
    from chatbot.weeks import IsoWeek
    from prhub.report import PrList, build_report, digest_report_bytes, report_html

    files = weeks()
    big = largest(files)
    prs = [p for f in files for p in load_exports([str(f)]).prs[:limit]]
    rules = shipped_rules("vllm")
    week = IsoWeek.parse(big.stem)
    service = DigestService(lambda _r, _w: prs, rules_for=lambda _r: rules, tz_for=lambda _r: "UTC")
    import weasyprint  # noqa: F401  (import time is not the print's)
    import matplotlib.pyplot  # noqa: F401

    import cProfile
    import pstats

    prof = cProfile.Profile()
    t0 = time.process_time()
    if profile:
        prof.enable()
    d = service.written("vllm-project/vllm", week, lang)  # the CLI's digest, written in the output language
    data = digest_report_bytes(d, "pdf", prs=prs, db=None, from_store=False, rules=rules)
    if profile:
        prof.disable()
    whole = time.process_time() - t0
    if profile:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    printing = -1.0
    if limit is None:  # the --quick smoke run checks that the path runs, not how long a second print takes
        html = report_html(build_report(d, PrList(prs), rules))
        t1 = time.process_time()
        html_to_pdf(html)
        printing = time.process_time() - t1
    out = Path(tempfile.mkdtemp()) / f"{big.stem}.{lang}.pdf"
    out.write_bytes(data)
    return {"week": big.stem, "prs": len(d.prs), "whole": whole, "print": printing, "pdf": str(out), "bytes": len(data),
            "yardstick": yardstick()}


def outside_margins(pdf: str) -> int:
    """Words outside the side margins (:func:`tests.goldens.words_outside_margins`); -1 without poppler."""
    from tests.goldens import words_outside_margins

    try:
        return len(words_outside_margins(Path(pdf).read_bytes()))
    except RuntimeError:
        return -1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per language; the median is printed")
    ap.add_argument("--profile", action="store_true", help="cProfile the first run's report + PDF (to stderr)")
    ap.add_argument("--quick", action="store_true", help="CI smoke run: one English run of 20 PRs, no margin check")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--limit", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.profile, args.limit)))
        return 0
    from benchmarks.yardstick import yardstick_line

    figures: dict[str, list[dict[str, float | str]]] = {}
    langs, runs_n = (("en",), 1) if args.quick else (("en", "zh"), max(1, args.runs))
    for lang in langs:
        for i in range(runs_n):
            cmd = [sys.executable, __file__, "--one", lang] + (["--profile"] if args.profile and i == 0 else [])
            cmd += ["--limit", "20"] if args.quick else []
            run = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
            if args.profile and i == 0:
                sys.stderr.write(run.stderr)
            figures.setdefault(lang, []).append(json.loads(run.stdout.strip().splitlines()[-1]))
    bad = 0
    for lang, runs in figures.items():
        r0 = runs[0]
        wholes = ", ".join(f"{float(r['whole']):.2f}" for r in runs)
        prints = ", ".join(f"{float(r['print']):.2f}" for r in runs)
        words = 0 if args.quick else outside_margins(str(r0["pdf"]))
        bad += max(words, 0)
        print(f"{lang}: {r0['week']} ({r0['prs']} PRs), PDF {int(r0['bytes']):,} bytes; report + PDF {wholes} s CPU; "
              f"print alone {prints} s CPU; words outside the margins: {words}")
    yards = sorted(float(r["yardstick"]) for runs in figures.values() for r in runs)
    yard = yards[len(yards) // 2]
    for lang, runs in figures.items():
        med = sorted(float(r["whole"]) for r in runs)[len(runs) // 2]
        print(f"pdf_cpu_seconds_{lang}: {med:.2f} ({med / yard:.0f}x yardstick; goal <= 2 s on a quiet machine, <= 600x)")
    print(f"words_outside_margins: {bad}")
    print(yardstick_line(yard) + f"; median of the {len(yards)} children")
    return 0


if __name__ == "__main__":
    sys.exit(main())
