"""``python -m tests.goldens --update | --check [--only SUBSTRING]``: write or compare the golden files.

``--update`` is the one way goldens change; it prints each golden it rewrote. ``--check`` prints a
diff of each golden that differs and exits 1. See :mod:`tests.goldens`.
"""

from __future__ import annotations

import argparse
import sys

from tests.goldens import diff, produce, read, runnable, shared_available, write


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (0 all equal / written, 1 differences found)."""
    ap = argparse.ArgumentParser(prog="python -m tests.goldens", description=__doc__)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--update", action="store_true", help="rewrite the goldens from the current code")
    mode.add_argument("--check", action="store_true", help="compare and print diffs")
    ap.add_argument("--only", default="", help="only goldens whose case/lang/format contains this")
    args = ap.parse_args(argv)
    if not shared_available():
        print("note: ../shared/data/vllm not found; only the sample week's goldens are handled", file=sys.stderr)
    bad = 0
    for g in runnable():
        if args.only and args.only not in str(g):
            continue
        text = produce(g)
        if args.update:
            if write(g, text):
                print(f"wrote {g.path.name}")
        else:
            expected = read(g)
            if expected != text:
                bad += 1
                print(diff(g, expected, text))
    if args.check:
        print(f"{bad} golden(s) differ" if bad else "all goldens equal")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
