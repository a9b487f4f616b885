"""``prhub check-prose``: the LLM writer's validator as a command, for any text about a week.

Reads sentences — plain text, one a line, or JSONL ``{"text": ..., "prs": [...], "facts": [...]}``
(``prs``/``facts`` optional; without ids a sentence cites the PRs it names and the week-level
facts) — and checks each with :func:`chatbot.prose_check.check_claim` against the facts of the
week's digest built from the ``--input`` records (with their descriptions, display names and
co-authors). Prints one verdict per sentence with its faults, or ``[{text, kept, faults}]`` as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chatbot.errors import InputError
from chatbot.json_input import read_json
from chatbot.models import PullRequest
from chatbot.prose_check import Claim, Facts, check_claim

MAX_TEXT_BYTES = 8 * 1024 * 1024
"""Largest sentence file read (bytes)."""


@dataclass(frozen=True)
class Verdict:
    """One sentence's verdict: kept when it has no fault."""

    text: str
    kept: bool
    faults: tuple[str, ...]


def read_claims(raw: bytes, source: str) -> list[Claim]:
    """The sentences of ``raw``: JSONL when its first non-blank line starts with ``{``, else one per line.

    Raises:
        InputError: over :data:`MAX_TEXT_BYTES`, not UTF-8, a JSONL line that is not an object with a
            string ``text`` (and integer ``prs``, string ``facts``), or no sentence at all.
    """
    if len(raw) > MAX_TEXT_BYTES:
        raise InputError(f"{source}: {len(raw)} bytes, over the limit of {MAX_TEXT_BYTES}; split the file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: not UTF-8 (byte {exc.start}); save the file as UTF-8") from None
    lines = [(i, x.strip()) for i, x in enumerate(text.splitlines(), 1) if x.strip()]
    if not lines:
        raise InputError(f"{source}: no sentences; write one sentence a line, or JSONL {{\"text\": ..., \"prs\": [...]}}")
    if not lines[0][1].startswith("{"):
        return [Claim(x) for _, x in lines]
    out = []
    for i, line in lines:
        obj = read_json(line, source=f"{source} line {i}", max_bytes=MAX_TEXT_BYTES)
        ok = isinstance(obj, dict) and isinstance(obj.get("text"), str)
        prs, facts = (obj.get("prs", []), obj.get("facts")) if ok else ([], None)
        ok = ok and isinstance(prs, list) and all(type(n) is int for n in prs)
        ok = ok and (facts is None or (isinstance(facts, list) and all(isinstance(x, str) for x in facts)))
        if not ok:
            raise InputError(f'{source} line {i}: expected {{"text": string, "prs": [integers], "facts": [strings]}}')
        out.append(Claim(obj["text"].strip(), tuple(prs), None if facts is None else tuple(facts)))
    return out


def read_file(path: str) -> list[Claim]:
    """:func:`read_claims` of a file (``-``: standard input).

    Raises:
        InputError: the file cannot be read, or :func:`read_claims` refuses it.
    """
    import sys

    try:
        raw = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1) if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror}); pass a text or JSONL file of sentences") from None
    return read_claims(raw, "standard input" if path == "-" else path)


def verdicts(claims: Sequence[Claim], facts: Facts) -> list[Verdict]:
    """Each sentence checked by every named check (no slot: any PR of the week may be named)."""
    out = []
    for c in claims:
        faults = tuple(check_claim(c, facts))
        out.append(Verdict(text=c.text, kept=not faults, faults=faults))
    return out


def week_facts(prs: Sequence[PullRequest], *, repo: str, week: str, lang: str, rules_file: str | None, tz: str) -> Facts:
    """The facts of ``repo``'s digest of ``week`` in ``lang`` built from ``prs`` (raw records included).

    Raises:
        InputError: a bad ``week``, or the week holds no PR of the input.
    """
    from chatbot.digest import build_digest, select_repo, write
    from chatbot.weeks import IsoWeek
    from prhub import bootstrap

    iso = IsoWeek.parse(week)
    rules = bootstrap.rules_for(repo, rules_file)
    mine = select_repo(prs, repo)
    d = write(build_digest(mine, repo=repo, week=iso, rules=rules, tz=tz), lang)
    if d.total_prs == 0:
        raise InputError(f"--week {week}: the input holds no PR of {repo} merged that week; pass the week's export")
    return Facts.build(d, [p for p in mine if p.number in {x.number for x in d.prs}])


def render_text(out: Sequence[Verdict]) -> str:
    """One line per sentence (``kept`` or ``rejected``), its faults indented below, a closing count line."""
    lines = []
    for v in out:
        lines.append(("kept: " if v.kept else "rejected: ") + v.text)
        lines += [f"  - {f}" for f in v.faults]
    kept = sum(v.kept for v in out)
    lines.append(f"{kept} kept, {len(out) - kept} rejected")
    return "\n".join(lines) + "\n"


def render_json(out: Sequence[Verdict]) -> str:
    """``[{"text", "kept", "faults"}]`` (UTF-8, indented)."""
    return json.dumps([{"text": v.text, "kept": v.kept, "faults": list(v.faults)} for v in out],
                      ensure_ascii=False, indent=2) + "\n"
