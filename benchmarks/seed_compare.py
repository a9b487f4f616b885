"""A week's digest beside a human-written weekly report of the same week (issue 17, item 8).

Reads a week of PRs (a ``gh`` export, e.g. ``../shared/data/vllm-threads/2026-W27.json``) and a report
(``../shared/seeds/001_*.txt``, the W27 one), builds the digest with the shipped vLLM rules and prints:

1. ``cited_found: F/N``: of the N distinct PRs of the week the report cites (``#N``), how many the digest
   puts in its key PRs or its storylines (the figure issue 17 asks >= 28/38 of), with the key-PR,
   storyline and risk counts apart;
2. every missed PR with its score rank among the highlight candidates and the rule that kept it out
   (reverted, docs- or CI-only, below the key-PR cut, its storyline group not chosen or cited only
   to its first few, no storyline group);
3. the report's storylines beside the digest's (name and PRs; for each report storyline the digest
   storyline sharing most of its PRs);
4. ``flagged_share`` (PRs with risk tags), ``risk_observations``, ``max_pr_mentions`` (the most a
   Markdown digest names one PR), ``zh_markdown_chars`` (link targets left out) and
   ``zh_cjk_share`` (CJK characters of the non-space ones; the report's beside it).

The comparison is a function (:func:`compare`), so ``tests/unit/test_seed_compare.py`` pins its figures.

Usage: python benchmarks/seed_compare.py [WEEK.json REPORT.txt] [--quick]
(without arguments: W27 and seed 001 from ``../shared``; ``--quick`` is the CI smoke run: the same
comparison, which takes ~2 s.) Bad input: a one-line error, exit 2.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.export.ghjson import load_exports  # noqa: E402
from benchmarks.yardstick import yardstick, yardstick_line  # noqa: E402
from chatbot.digest import build_digest, left_out, newest_week, write  # noqa: E402
from chatbot.errors import InputError  # noqa: E402
from chatbot.models import DigestText, PullRequest  # noqa: E402
from chatbot.render.markdown import render_markdown  # noqa: E402
from chatbot.rules import Rules, shipped_rules  # noqa: E402

SHARED = ROOT.parent / "shared"
DEFAULT_WEEK = SHARED / "data" / "vllm-threads" / "2026-W27.json"
DEFAULT_REPORT = next(iter(sorted((SHARED / "seeds").glob("001_*.txt"))), SHARED / "seeds" / "001.txt")

_CITED = re.compile(r"#(\d{3,})\b")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_NAMED = re.compile(r"(?<![\w&])#(\d+)\b")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SECTION = re.compile(r"^\s*(?:\d+\.\s*)?(本周重点变化|本周亮点|Highlights)\s*$")
_TOP_HEADING = re.compile(r"^\s*(?:\d+\.\s+\S|(?:执行摘要|模块与主题趋势|风险观察|重点 ?PR ?速览|后续建议|完整周报)\s*$)")
_SUB_HEADING = re.compile(r"^\s*\d+\.\d+\s+(\S.*)$")
_BULLET = re.compile(r"^\s*[•\-*]\s*([^：:]{2,40})[：:]")


@dataclass(frozen=True)
class Storyline:
    """A named storyline and the PRs it cites, in citation order."""

    name: str
    prs: tuple[int, ...]


@dataclass(frozen=True)
class Comparison:
    """The digest of a week beside a report of it (see the module docstring for each figure)."""

    cited: tuple[int, ...]
    in_key: tuple[int, ...]
    in_storylines: tuple[int, ...]
    in_risks: tuple[int, ...]
    missed: tuple[tuple[int, int | None, str], ...]
    """(PR, score rank among the highlight candidates or None, the rule that kept it out)."""
    report_storylines: tuple[Storyline, ...]
    digest_storylines: tuple[Storyline, ...]
    total_prs: int
    flagged: int
    risk_observations: int
    max_mentions: tuple[int, int]
    """(PR, times) of the most-named PR of the en Markdown digest."""
    zh_chars: int
    zh_cjk_share: float
    report_chars: int
    report_cjk_share: float

    @property
    def found(self) -> tuple[int, ...]:
        """Cited PRs in the key PRs or a storyline."""
        return tuple(n for n in self.cited if n in set(self.in_key) | set(self.in_storylines))


def cjk_share(text: str) -> float:
    """CJK characters among the non-space characters of ``text`` (0.0 for an empty text)."""
    chars = re.sub(r"\s", "", text)
    return round(len(_CJK.findall(chars)) / len(chars), 3) if chars else 0.0


def report_storylines(report: str) -> tuple[Storyline, ...]:
    """The storylines of a report's highlights section (``本周重点变化``, else ``本周亮点``): its
    numbered sub-headings (``2.3 Rust前端：…``) or, without them, its bullets (``• 名称：…``), each with
    the ``#N`` cited under it."""
    lines = report.splitlines()
    starts = {m.group(1): i for i, line in enumerate(lines) if (m := _SECTION.match(line))}
    start = starts.get("本周重点变化", starts.get("本周亮点", starts.get("Highlights")))
    if start is None:
        return ()
    body: list[str] = []
    for line in lines[start + 1:]:
        if _TOP_HEADING.match(line) and not _SUB_HEADING.match(line):
            break
        body.append(line)
    heads = [i for i, line in enumerate(body) if _SUB_HEADING.match(line)]
    if not heads:
        heads = [i for i, line in enumerate(body) if _BULLET.match(line)]
        pat = _BULLET
    else:
        pat = _SUB_HEADING
    out = []
    for j, i in enumerate(heads):
        m = pat.match(body[i])
        assert m is not None
        chunk = "\n".join(body[i: heads[j + 1] if j + 1 < len(heads) else len(body)])
        nums = tuple(dict.fromkeys(int(n) for n in _CITED.findall(chunk)))
        out.append(Storyline(m.group(1).strip(), nums))
    return tuple(out)


def without_link_targets(md: str) -> str:
    """Markdown ``md`` with every link target ``](…)`` left out: the text a reader reads (the length
    issue 17 bounds: "zh Markdown at most 9,000 characters without link targets")."""
    return _LINK_TARGET.sub("]", md)


def pr_mentions(md: str, week: set[int]) -> Counter[int]:
    """How many times each PR of ``week`` is named (``#N``) in Markdown ``md``, link targets left out."""
    return Counter(int(n) for n in _NAMED.findall(without_link_targets(md)) if int(n) in week)


def _mentions(md: str, week: set[int]) -> tuple[int, int]:
    named = pr_mentions(md, week)
    return min(named.items(), key=lambda kv: (-kv[1], kv[0])) if named else (0, 0)


def compare(prs: list[PullRequest], report: str, rules: Rules, repo: str = "vllm-project/vllm") -> Comparison:
    """The digest of the newest week of ``prs`` beside ``report`` (its text).

    Raises:
        InputError: no PRs.
    """
    week = newest_week(prs, "UTC")
    if week is None:
        raise InputError("the week file holds no PRs")
    digest = build_digest(prs, repo=repo, week=week, rules=rules)
    en: DigestText = write(digest, "en")
    zh: DigestText = write(digest, "zh")
    week_nums = {p.number for p in en.prs}
    cited = tuple(sorted({int(n) for n in _CITED.findall(report)} & week_nums))
    key = {p.number for p in en.key_prs}
    told = {n for t in en.themes for n in t.prs}
    risky = {n for r in en.risks for n in r.prs}
    why = left_out(digest.analysis, en)
    missed = tuple((n, *why[n]) for n in cited if n not in key and n not in told)
    zh_md = without_link_targets(render_markdown(zh))
    return Comparison(
        cited=cited,
        in_key=tuple(n for n in cited if n in key),
        in_storylines=tuple(n for n in cited if n in told),
        in_risks=tuple(n for n in cited if n in risky),
        missed=missed,
        report_storylines=report_storylines(report),
        digest_storylines=tuple(Storyline(t.name, t.prs) for t in en.themes),
        total_prs=en.total_prs,
        flagged=sum(1 for p in en.prs if p.risk_tags),
        risk_observations=len(en.risks),
        max_mentions=max(_mentions(render_markdown(en), week_nums), _mentions(zh_md, week_nums), key=lambda x: x[1]),
        zh_chars=len(zh_md),
        zh_cjk_share=cjk_share(zh_md),
        report_chars=len(report),
        report_cjk_share=cjk_share(report),
    )


def _nums(nums: tuple[int, ...]) -> str:
    return " ".join(f"#{n}" for n in nums) or "-"


def lines(c: Comparison) -> list[str]:
    """The printed comparison, one figure or item a line."""
    out = [f"cited_found: {len(c.found)}/{len(c.cited)} (key PRs {len(c.in_key)}, storylines {len(c.in_storylines)}, "
           f"risks {len(c.in_risks)})",
           f"found: {_nums(c.found)}",
           f"missed: {len(c.missed)}"]
    out += [f"  #{n} rank {'-' if r is None else r}: {why}" for n, r, why in c.missed]
    out.append("storylines (report | digest sharing most of its PRs):")
    for s in c.report_storylines:
        best = max(c.digest_storylines, key=lambda d: (len(set(d.prs) & set(s.prs)), -c.digest_storylines.index(d)),
                   default=None)
        shared = len(set(best.prs) & set(s.prs)) if best else 0
        out.append(f"  {s.name} [{_nums(s.prs)}] | "
                   + (f"{best.name} [{_nums(best.prs)}] ({shared} shared)" if best and shared else "-"))
    out.append("digest storylines:")
    out += [f"  {d.name} [{_nums(d.prs)}]" for d in c.digest_storylines]
    out += [f"flagged_share: {c.flagged}/{c.total_prs} = {c.flagged / c.total_prs:.1%}" if c.total_prs else "flagged_share: 0/0",
            f"risk_observations: {c.risk_observations}",
            f"max_pr_mentions: {c.max_mentions[1]} (#{c.max_mentions[0]})",
            f"zh_markdown_chars: {c.zh_chars} (report {c.report_chars})",
            f"zh_cjk_share: {c.zh_cjk_share:.1%} (report {c.report_cjk_share:.1%})"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("week", nargs="?", type=Path, default=DEFAULT_WEEK, help="the week's gh export (JSON)")
    ap.add_argument("report", nargs="?", type=Path, default=DEFAULT_REPORT, help="the report of that week (text)")
    ap.add_argument("--quick", action="store_true", help="the CI smoke run (the same comparison)")
    args = ap.parse_args()
    try:
        report = args.report.read_text(encoding="utf-8")
        prs = load_exports([str(args.week)]).prs
        c = compare(prs, report, shipped_rules("vllm"))
    except (OSError, UnicodeDecodeError, InputError) as e:
        print(f"seed_compare: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines(c)))
    print(yardstick_line(yardstick(10 if args.quick else 40), 10 if args.quick else 40))
    return 0


if __name__ == "__main__":
    sys.exit(main())
