"""What a sentence states, as tokens: numbers, versions, dates, PR references, identifiers. Pure.

CJK-aware: a number glued to Chinese (``超70%``, ``共合并246个``, ``约2,750行``) is a number, while
one glued to Latin letters or digits (``Qwen3``, ``B300``, ``W8A8``, ``GLM5.2``, ``8B``) is part of an
identifier and states nothing to check. Recognised forms, in the order they are taken out of the text:

- PR references ``#N`` and ISO weeks ``2026-W27``;
- dates ``2026-06-29``, ``06-29``/``06.29``/``06/29`` (two-digit month with its leading zero and day;
  ``10.28`` to ``12.31`` only beside another date, ``10.28 - 11.03``: alone it is a number), ``6月29日``;
- versions ``0.6.13``, ``v1.10.2``, ``v0.6`` (three or more parts, or a leading ``v``);
- numbers ``246``, ``2,750``, ``6.4``, with an optional sign (``+6.4k``, ``-94``), a suffix
  ``k``/``K`` (thousands), ``%``/``％``, ``x``/``×``/``倍`` (times) and a range ``1.2x–2.2x`` / ``1.9%~5.0%``
  (each end a number of its own, both with the range's suffix).

Section numbers and list ordinals state nothing about the week and are no number (:func:`ordinals`):
a leading ``1.``/``1、``/``1)`` before a heading or list item (``5. 重点 PR 速览``); a leading ``2.1``/``3.2``
before one that starts with no unit, suffix or lower-case English word (``2.5 个``, ``6.4 is the average``
stay numbers); ``第 2 节``/``第 3 章`` (not ``第 27 周``: the week is a claim); ``Top 5``.

Each number carries the unit word that follows it (:data:`UNITS`: lines, files, PRs, percent,
times, thousands, week, count) and whether an approximation word (``约``, ``超``, ``about``, ``over``,
``350+``) qualifies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PR_REF = re.compile(r"#(\d+)")
"""A PR reference: ``#`` and digits."""

_CJK = r"\u3400-\u9fff\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK}]")
"""One CJK ideograph."""

_ISO_DATE = re.compile(r"(?<![\w.])(\d{4})-(\d{2})-(\d{2})(?!\w|\.\d)", re.ASCII)
_DAY = r"(0[1-9]|[12]\d|3[01])"
_MD_DATE = re.compile(  # 06-29, 06.29, 06/29; 10-12 only beside another date ("10.28 - 11.03"): else 10.25 is a number
    rf"(?<![\w.\-/])(?:(0[1-9])[-./]{_DAY}|(1[0-2])[-./]{_DAY}(?=\s*[–—~～\-至到]\s*\d{{2}}[-./]\d{{2}}(?!\d))"
    rf"|(?<=[–—~～\-至到]\s)(1[0-2])[-./]{_DAY}|(?<=[–—~～\-至到])(1[0-2])[-./]{_DAY})(?![\w\-/]|\.\d)", re.ASCII)
_ZH_DATE = re.compile(r"(?<!\d)(\d{1,2})月(\d{1,2})日")
_VERSION = re.compile(r"(?<![\w.])(v?\d+(?:\.\d+){2,}|v\d+(?:\.\d+)+)(?!\w|\.\d)", re.ASCII | re.IGNORECASE)
_ISO_WEEK = re.compile(r"(?<![\w.])\d{4}-?W\d{1,2}(?!\w)", re.ASCII)
_IDENT_DIGITS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[.\-/][A-Za-z0-9_]+)*", re.ASCII)
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.#])(?P<sign>[+\-−])?(?P<num>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?"
    r"(?P<suffix>[kK](?![A-Za-z])|%|％|[xX×](?![A-Za-z])|倍)?",
)
_RANGE_SEP = re.compile(r"\s*(?:–|—|~|～|-|to|至|到)\s*")

APPROX_BEFORE = ("约", "大约", "近", "将近", "接近", "逾", "超", "超过", "多达", "高达", "about", "around", "approximately",
                 "roughly", "nearly", "almost", "over", "more than", "~", "≈")
"""Words before a number that make it approximate (see :func:`chatbot.prose_check.numbers.matches`)."""
_APPROX_AFTER = re.compile(r"^\s*(?:\+(?![\d])|多|余|左右)")

UNITS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("prs", re.compile(r"^\s*(?:个\s*)?(?:重点\s*)?(?:PRs?\b|pull requests?|合并请求)", re.IGNORECASE)),
    ("lines", re.compile(r"^\s*(?:个?\s*)?(?:行|lines?\b|LOC\b)", re.IGNORECASE)),
    ("files", re.compile(r"^\s*(?:个\s*)?(?:模型)?(?:文件|files?\b)", re.IGNORECASE)),
    ("week", re.compile(r"^\s*(?:周|weeks?\b)", re.IGNORECASE)),
    ("count", re.compile(r"^\s*(?:个|次|项|位|名|条|处|款|种|times\b)", re.IGNORECASE)),
)
"""Unit words after a number, first match wins (``count`` is any other counted thing)."""


@dataclass(frozen=True)
class Number:
    """One number of a sentence: its value, how it was written, its unit and where it stands.

    ``value`` is the written value (``6.4k`` → 6400.0, ``70%`` → 70.0); ``decimals`` the digits
    after the point as written (``6.4k`` → 1); ``suffix`` ``k``, ``%``, ``x`` or ``""``; ``unit`` a
    key of :data:`UNITS` or ``""``; ``sign`` ``+``/``-``/``""``; ``start`` the offset in the text.
    """

    text: str
    value: float
    decimals: int
    suffix: str
    unit: str
    sign: str
    approx: bool
    start: int


@dataclass(frozen=True)
class Date:
    """A date of a sentence: ``month``/``day`` (``year`` 0 when not written), with its offset."""

    text: str
    year: int
    month: int
    day: int
    start: int


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            chars[i] = " "
    return "".join(chars)


def dates(text: str) -> list[Date]:
    """Every date written in ``text`` (ISO, ``MM-DD``/``MM.DD``/``MM/DD``, ``M月D日``), in order."""
    out = [Date(m.group(0), int(m.group(1)), int(m.group(2)), int(m.group(3)), m.start()) for m in _ISO_DATE.finditer(text)]
    rest = _blank(text, [(m.start(), m.end()) for m in _ISO_DATE.finditer(text)])
    for m in _MD_DATE.finditer(rest):
        month, day = [int(g) for g in m.groups() if g is not None]
        out.append(Date(m.group(0), 0, month, day, m.start()))
    out += [Date(m.group(0), 0, int(m.group(1)), int(m.group(2)), m.start()) for m in _ZH_DATE.finditer(rest)]
    return sorted(out, key=lambda d: d.start)


def versions(text: str) -> list[str]:
    """Every version token (``0.6.13``, ``v1.10.2``), lower-cased, without its leading ``v``."""
    return [m.group(1).lower().lstrip("v") for m in _VERSION.finditer(PR_REF.sub(" ", text))]


_LEADING_ORDINAL = re.compile(  # "1. 执行摘要", "1、", "1)", "- 2.1 投机解码", "3.2 Bugfix"
    r"^\s*(?:[-*•·]\s*)?([1-9]\d?(?:\.\d{1,2}){1,2}\.?(?=\s|[\u3400-\u9fff])|[1-9]\d?(?:[.)）](?=\s|[\u3400-\u9fff])|、))")
_ORDINAL_WORD = re.compile(r"第\s*(\d{1,2})\s*(?=小节|节|章|部分|段|条|点|步|项)|(?<![A-Za-z])(?i:top)[\s\-]?(\d{1,2})(?![\d.,])")
_STATES_AFTER = re.compile(r"\s*(?:[%％倍万亿分xX×kK](?![A-Za-z])|[a-z]+(?![A-Za-z0-9_\-]))")


def ordinals(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the section numbers and list ordinals of ``text`` (see the module docstring):
    they number the text itself, so no fact is about them."""
    out = []
    m = _LEADING_ORDINAL.match(text)
    if m:  # "5. 重点 PR 速览" is an item; a bare "2.5 个 PR" or "6.4 is ..." states its number
        after = text[m.end():m.end() + 12]
        if m.group(1)[-1] in ".)）、" or not (_STATES_AFTER.match(after) or _unit(after, "")):
            out.append(m.span(1))
    out += [m.span(g) for m in _ORDINAL_WORD.finditer(text) for g in (1, 2) if m.group(g)]
    return out


def _masked(text: str) -> str:
    """``text`` with PR references, dates, versions, identifiers and ordinals blanked (same length)."""
    spans = [(m.start(), m.end()) for m in PR_REF.finditer(text)]
    spans += [(m.start(), m.end()) for m in _ISO_DATE.finditer(text)]
    spans += [(m.start(), m.end()) for m in _MD_DATE.finditer(text)]
    spans += [(m.start(), m.end()) for m in _ZH_DATE.finditer(text)]
    spans += [(m.start(), m.end()) for m in _VERSION.finditer(text)]
    spans += [(m.start(), m.end()) for m in _ISO_WEEK.finditer(text)]
    spans += [(m.start(), m.end()) for m in _IDENT_DIGITS.finditer(text) if any(c.isdigit() for c in m.group(0))]
    spans += ordinals(text)
    out = _blank(text, spans)
    # digits glued to letters after them (8B, 4bit, 3rd) belong to an identifier as well
    return re.sub(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?=[A-Za-jl-wyzA-JL-WYZ_])",
                  lambda m: " " * len(m.group(0)), out)


def _unit(after: str, suffix: str) -> str:
    if suffix == "%":
        return "percent"
    if suffix == "x":
        return "times"
    for name, rx in UNITS:
        if rx.match(after):
            return name
    return "thousands" if suffix == "k" else ""


def _approx(text: str, start: int, after: str) -> bool:
    before = text[max(0, start - 14):start].rstrip().lower()
    return before.endswith(APPROX_BEFORE) or bool(_APPROX_AFTER.match(after))


def numbers(text: str) -> list[Number]:
    """Every number stated in ``text`` (see the module docstring), in order; PR references, dates,
    versions and identifier digits excluded. A range's ends are two numbers with the range's suffix."""
    masked = _masked(text)
    found = list(_NUMBER.finditer(masked))
    out: list[Number] = []
    for i, m in enumerate(found):
        suffix = {"K": "k", "％": "%", "X": "x", "×": "x", "倍": "x"}.get(m.group("suffix") or "", m.group("suffix") or "")
        sign = {"−": "-"}.get(m.group("sign") or "", m.group("sign") or "")
        if not suffix and i + 1 < len(found):  # "1.2–2.2x": the first end takes the second's suffix
            nxt = found[i + 1]
            gap = masked[m.end():nxt.start()]
            if _RANGE_SEP.fullmatch(gap) and nxt.group("suffix") and not nxt.group("sign"):
                suffix = {"K": "k", "％": "%", "X": "x", "×": "x", "倍": "x"}.get(nxt.group("suffix"), nxt.group("suffix"))
        if sign == "-" and m.start() > 0 and masked[m.start() - 1].isdigit():
            sign = ""
        frac = m.group("frac") or ""
        value = float(m.group("num").replace(",", "") + frac)
        if suffix == "k":
            value *= 1000
        after = masked[m.end():m.end() + 12]
        if i + 1 < len(found) and not m.group("suffix"):
            gap = masked[m.end():found[i + 1].start()]
            paired = gap.strip() == "/" and bool(found[i + 1].group("sign"))  # "+1,821/-94 lines"
            if _RANGE_SEP.fullmatch(gap) or paired:  # a range's first end takes the unit of its second
                after = masked[found[i + 1].end():found[i + 1].end() + 12]
        second_end = i > 0 and bool(_RANGE_SEP.fullmatch(masked[found[i - 1].end():m.start()]))
        out.append(Number(text=text[m.start():m.end()], value=value, decimals=max(0, len(frac) - 1), suffix=suffix,
                          unit=_unit(after, suffix), sign=sign,
                          approx=out[-1].approx if second_end and out else _approx(text, m.start(), after),
                          start=m.start()))
    return out


def pr_refs(text: str) -> list[tuple[int, int]]:
    """``(number, offset)`` of every ``#N`` in ``text``."""
    return [(int(m.group(1)), m.start()) for m in PR_REF.finditer(text)]


_CLAUSE = re.compile(r"[，。；;！？!?\n]|,(?!\d{3})|(?<=[a-z\)])\.\s|：|:\s")


_OPEN, _CLOSE = "（(【[", "）)】]"
_LIST_SEP = re.compile(r"(?<!\d)(?<!\d\s)、|、(?!\s*#\d)")  # not in "#47058、#44589"


def _split(text: str, sep: re.Pattern[str], a: int, b: int, in_brackets: bool) -> list[tuple[int, int]]:
    out, start, depth, at = [], a, 0, a
    for m in sep.finditer(text, a, b):
        if not in_brackets:
            for ch in text[at:m.start()]:
                depth = depth + 1 if ch in _OPEN else max(0, depth - 1) if ch in _CLOSE else depth
            at = m.start()
            if depth:
                continue
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < b:
        out.append((start, b))
    return out


def clauses(text: str, *, in_brackets: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the clauses of ``text``: split at ``，。；;！？!?:：``, at a comma
    that is not a thousands separator and at an English full stop; with ``in_brackets=False`` not
    inside brackets (``hmellor（12 PR，#47058）、BugenZhao（10，#47283）`` is one clause, not three)."""
    return _split(text, _CLAUSE, 0, len(text), in_brackets)


def items(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the list items of ``text``: its clauses (brackets kept whole) split
    at ``、`` outside brackets, except between PR references (``#47058、#44589`` is one item):
    ``hmellor（12 PR，#47058）、BugenZhao（10，#47283）`` is two."""
    return [x for a, b in clauses(text, in_brackets=False) for x in _split(text, _LIST_SEP, a, b, False)]
