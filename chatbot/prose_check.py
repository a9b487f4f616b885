"""The validator between a model's words and the digest: a sentence stays only if it is true to the facts. Pure.

A sentence is kept only when
- every ``#N`` in it, and every number it lists as cited, is a PR of the week or a PR the week's
  PRs name (a revert's target, a "Fixes #N");
- every other number in it (counts, lines, percentages, ``1.2x``) occurs in the fact sheet;
- it holds no mention or markup syntax (``@user``, ``<!channel>``, ``<at …>``, ``<tag>``,
  Markdown links, emphasis, code, headings, URLs) and is 1-400 characters.
Each rejection comes with a complaint that names the sentence and the fault; the writer sends the
complaints back to the model once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_SENTENCE = 400
"""Characters at most in one model sentence."""

_PR_REF = re.compile(r"#(\d+)")
_NUMBER = re.compile(r"(?<![\w#.])\d[\d,]*(?:\.\d+)?")
_MARKUP = re.compile(r"<[^>]*>|[<>]|@\w|\[[^\]]*\]\(|\*\*|__|(?<!\w)[*_](?=\S)|`|~~|^\s*#(?!\d)|https?://|&[a-z]+;|&#",
                     re.MULTILINE)


def _norm(number: str) -> str:
    n = number.replace(",", "")
    if "." in n:
        n = n.rstrip("0").rstrip(".")
    return n


def sheet_numbers(sheet_text: str) -> frozenset[str]:
    """Every number that occurs in the fact sheet's text (commas removed, trailing zeros dropped)."""
    return frozenset(_norm(m) for m in re.findall(r"\d[\d,]*(?:\.\d+)?", sheet_text))


def check_sentence(text: str, cited: Iterable[int], allowed_prs: frozenset[int], numbers: frozenset[str]) -> list[str]:
    """Faults of one sentence (empty when it may be used).

    Args:
        text: the sentence as the model wrote it.
        cited: the PR numbers the model says the sentence cites.
        allowed_prs: PRs of the week and PRs they name.
        numbers: :func:`sheet_numbers` of the fact sheet.
    """
    faults: list[str] = []
    if not text.strip():
        return ["is empty"]
    if len(text) > MAX_SENTENCE:
        faults.append(f"is longer than {MAX_SENTENCE} characters")
    refs = {int(n) for n in _PR_REF.findall(text)} | set(cited)
    unknown = sorted(n for n in refs if n not in allowed_prs)
    if unknown:
        faults.append("cites PRs that are not in this week: " + ", ".join(f"#{n}" for n in unknown))
    plain = _PR_REF.sub(" ", text)
    wrong = sorted({m for m in (_norm(x) for x in _NUMBER.findall(plain)) if m not in numbers})
    if wrong:
        faults.append("states numbers that are not in the fact sheet: " + ", ".join(wrong))
    if _MARKUP.search(text):
        faults.append("contains mention or markup syntax (write plain text)")
    return faults
