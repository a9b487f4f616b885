"""What a PR does, in its own words: an extractive gist of its description. Pure.

``extract_gist(title, body)`` keeps the description's purpose (the "Purpose"/"Summary" section, or
the text before the first heading) and leaves out what PR templates and tools add: headings,
checklists, ``<details>`` blocks, HTML comments, "PLEASE FILL IN..." placeholders, images, code
blocks, tables, test plans and logs, "Fixes #N"/"cc @x" lines and bare links. The first sentences
that fit in :data:`GIST_MAX` characters are the gist (cut at a word with "…" when the first is
longer). Measured results the description states ("30%+ prefill E2E", "+4.84% output
throughput") are quoted exactly as :attr:`Gist.results` (each a substring of the description).
Without a usable description the gist is the title without its ``[Tag]`` prefixes. Nothing is
invented: every word comes from the title or the description.
"""

from __future__ import annotations

import re
from typing import Literal

from chatbot.models import Frozen

GIST_MAX = 200
"""Characters at most in a gist (the issue's limit for highlights, key-PR tables and cards)."""
_CUT_TRIM = " ,;:-"
"""What a gist cut at a word drops from its end before the "…"."""
SHORT_GIST = 80
"""Characters below which sentences take the next one too (:func:`fit_sentences`)."""
RESULT_MAX = 80
"""Characters at most in one quoted result."""
RESULTS_MAX = 2
"""Results quoted per PR at most."""


class Gist(Frozen):
    """A PR's gist: ``text`` (≤ 200 characters, plain text), its ``source`` and quoted ``results``."""

    text: str
    source: Literal["description", "title"]
    results: tuple[str, ...] = ()


_FENCE = re.compile(r"^\s*(```|~~~).*?(^\s*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_HTML_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.DOTALL)
_DETAILS = re.compile(r"<details\b.*?(</details>|\Z)", re.DOTALL | re.IGNORECASE)
_HTML_TAG = re.compile(r"</?(?:a|abbr|b|blockquote|br|center|code|del|details|div|em|font|h[1-6]|hr|i|img|ins|kbd|li|ol|p|"
                       r"picture|pre|s|source|span|strike|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul|video)"
                       r"(?:\s[^<>\n]*)?/?>", re.IGNORECASE)
"""An HTML tag GitHub renders; ``x<y and y>z`` and ``std::vector<int>`` are text."""
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\((?:[^()\n]|\([^)\n]*\))*\)")
_PR_URL = re.compile(r"https?://github\.com/[\w.-]+/[\w.-]+/(?:pull|issues)/(\d+)[^\s)]*")
_URL = re.compile(r"<?https?://[^\s>)]*[^\s>).,;:!?]>?")
"""A bare URL, without the sentence's punctuation after it."""
_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s*(?P<h>.*?)\s*#*\s*|\*\*(?P<b>[^*\n]{1,60})\*\*:?\s*|(?P<c>[A-Z][A-Za-z ]{1,40}):)$")
_CHECKBOX = re.compile(r"^\s*[-*]\s*\[[ xX]\]")
_TABLE = re.compile(r"^\s*\|")
_HR = re.compile(r"^\s*([-*_=])(\s*\1){2,}\s*$")
_NOISE_LINE = re.compile(
    r"^\s*(?:[-*]\s*)?(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|related(?: to)?|follow[- ]?up(?: (?:of|to))?|part of|"
    r"see(?: also)?|depends on|following|follow(?:s|ing)? (?:of|on|up)|ref(?:erence)?s?|supersedes|co-authored-by|signed-off-by|cc|ping)\b[:\s]*"
    r"(?:#\d+|https?://\S+|@[\w-]+|[\w.-]+/[\w.-]+#\d+|[\s,&.]|and)*$|@[\w-]+(?:[\s,]+@[\w-]+)*\s*$|"
    r"this pr\s*:?\s*$)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"PLEASE FILL IN|BEFORE SUBMITTING|ESSENTIAL ELEMENTS|\(\*?link existing issues|"
                          r"^\s*FILL IN|^\s*N/?A\.?\s*$|^\s*TBD\.?\s*$|^\s*none\.?\s*$", re.IGNORECASE)
_SKIP_SECTIONS = re.compile(
    r"^(test(ing|s)?( plan| result(s)?| results?/?| commands?)?|test plan.*|test result.*|how (was|is) (this|it) tested.*|"
    r"checklist|essential elements.*|before submitting.*|benchmarks?( results?)?|results?|"
    r"accuracy( tests?)?|evaluation|e2e|perf(ormance)?( results?| numbers| tests?)?|repro(duction|duce)?.*|logs?|output|screenshots?|"
    r"documentation( update)?|release notes?|notes? for reviewers?|ai assistance.*|"
    r"(unit |e2e )?tests?.*)$",
    re.IGNORECASE,
)
_PURPOSE_SECTIONS = re.compile(r"^(purpose|summary|motivation|description|overview|what( this pr does)?.*|"
                               r"why.*|changes?|key changes|problem|background|context|tl;?dr|pr description)\b",
                               re.IGNORECASE)
_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*:?\s*)+")
_TRAILING_NUM = re.compile(r"\s*\(#\d+\)\s*$")
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<=[.!?])\s+(?=[A-Z`\"'(])")
_COMMAND = re.compile(r"^\s*(?:\$\s*)?(?:[A-Z][A-Z0-9_]+=\S*\s+)*(?:pytest|python3?|vllm|pip|uv|curl|bash|export|git|"
                      r"docker|lm_eval|torchrun|CUDA_VISIBLE_DEVICES=\S*)\s")
_CODE_SPAN = re.compile(r"`+([^`\n]*)`+")
"""A code span; :func:`inline_text` keeps its text as written."""
_INLINE = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")
_SPACES = re.compile(r"\s+")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
"""A Markdown backslash escape ("\\>1.5 years old"): the character as the reader sees it."""
_STRUCK = re.compile(r"~~[^~\n]+~~")
"""Struck-through text: what the author withdrew."""
_WITHDRAWN = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[(?:reverted|removed|dropped|abandoned|obsolete|withdrawn|"
                        r"no longer needed|not needed)\]", re.IGNORECASE)
"""A list item the author marked as no longer part of the PR ("- [reverted] Remove the padding ...")."""

_NUM = r"(?<![\w.])[+\-−~≈]?\d+(?:[.,]\d+)?"
_MEASURE = rf"{_NUM}\s?(?:%|x\b|×)(?:\s?(?:[-–~]|to)\s?{_NUM}\s?(?:%|x\b|×))?\+?"
_RESULT_NUM = re.compile(_MEASURE, re.IGNORECASE)
_METRIC = re.compile(
    r"\b(throughput|latency|speed ?ups?|faster|slower|tpot|ttft|itl|e2el?|e2e|prefill|decode|decoding|memory|"
    r"improv\w*|reduc\w*|lower|higher|gain|boost|tok(?:en)?s?/s|req(?:uest)?s?/s|qps|accuracy|gsm8k|"
    r"perf(?:ormance)?|overhead|utili[sz]ation|acceptance|bandwidth|time)\b",
    re.IGNORECASE,
)
_LEADING_JOINER = re.compile(r"^(?:and|but|with|while|which|so that|whereas)\s+", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r"[;:()\[\]|]|,\s|\.\s|\.$|\s[-–—]\s")


def title_without_tags(title: str) -> str:
    """The title without its leading ``[Tag]`` prefixes and a trailing ``(#123)``, first letter upper.

    ``"[ROCm][Bugfix]: align BLOCK_DMODEL (#41119)"`` -> ``"Align BLOCK_DMODEL"``; a title made of
    tags only is returned stripped.
    """
    rest = _TRAILING_NUM.sub("", _TAGS.sub("", title)).strip()
    if not rest:
        return title.strip()
    return rest[0].upper() + rest[1:]


def clean_markdown(body: str) -> str:
    """Markdown without HTML comments, ``<details>`` blocks, code fences, images and HTML tags."""
    text = body.replace("\r\n", "\n")
    text = _HTML_COMMENT.sub("", text)
    text = _DETAILS.sub("", text)
    text = _FENCE.sub("\n", text)
    text = _IMAGE.sub("", text)
    text = _HTML_TAG.sub("", text)
    return text


def inline_text(line: str) -> str:
    """One Markdown line as plain text: links to their text, PR URLs to ``#N``, other URLs and emphasis
    removed; code spans keep their text as written (``__init__.py``, ``**kwargs``)."""
    line = _STRUCK.sub("", line)
    line = _LINK.sub(lambda m: m.group(1), line)
    line = _PR_URL.sub(lambda m: f"#{m.group(1)}", line)
    bare = _URL.sub("", line)
    if bare != line:  # "see <url>." / "via <url>:" left dangling by the removed URL
        bare = re.sub(r"(?<![\w-])(?:via|at|in|see|from)\s*([:.,]|$)", r"\1", bare)
        bare = re.sub(r"\s*,?\s+([.,;:])|,([.;:])", r"\1\2", bare)  # "doc, ." -> "doc."
    parts = _CODE_SPAN.split(bare)  # odd parts: code
    line = "".join(p if i % 2 else _INLINE.sub("", _ESCAPED.sub(r"\1", p)) for i, p in enumerate(parts))
    line = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line)
    return _SPACES.sub(" ", line).strip()


def _sections(text: str) -> list[tuple[str | None, list[str]]]:
    """``(heading or None, lines)`` in order; the text before the first heading has heading None."""
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in text.split("\n"):
        m = _HEADING.match(line)
        if m:
            heading = (m.group("h") or m.group("b") or m.group("c") or "").strip().strip(":").strip()
            out.append((heading, []))
        else:
            out[-1][1].append(line)
    return out


_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def _paragraphs(lines: list[str]) -> list[str]:
    """Prose paragraphs of a section: blank lines separate; noise lines, tables, checklists dropped.

    List items stay with their paragraph, joined with ``; `` (so "Should benefit:" keeps its items).
    """
    paras: list[list[tuple[str, bool]]] = [[]]
    for raw in lines:
        if not raw.strip() or _HR.match(raw):
            paras.append([])
            continue
        if (_CHECKBOX.match(raw) or _WITHDRAWN.match(raw) or _TABLE.match(raw) or _PLACEHOLDER.search(raw) or _NOISE_LINE.match(raw)
                or _COMMAND.match(raw.strip("`"))):
            continue
        text = inline_text(raw)
        if not text or _NOISE_LINE.match(text) or not re.search(r"[A-Za-z\u4e00-\u9fff]{2}", text):
            continue
        paras[-1].append((text, bool(_ITEM.match(raw))))
    out = []
    for p in paras:
        if not p:
            continue
        joined = p[0][0]
        for i, (text, item) in enumerate(p[1:], start=1):
            if item and p[i - 1][1]:
                sep = " " if joined.endswith((".", ";")) else "; "
            elif item and not joined.endswith((".", ":", ";", ",", "!", "?")):
                sep = ". "  # "... before this PR" + "- [reverted] Remove ...": the list starts a new sentence
            else:
                sep = " "
            joined = f"{joined}{sep}{text}"
        out.append(joined)
    return out


def fit_sentences(text: str, limit: int = GIST_MAX, *, go_on: bool = False) -> str:
    """Whole sentences of ``text`` up to ``limit`` characters; the first one cut at a word with "…".
    With ``go_on``, whole sentences shorter than :data:`SHORT_GIST` are followed by the next one,
    cut at a word when it does not fit (a gist's "Fixes #45736." alone says nothing)."""
    sentences = _SENTENCE_END.split(text)
    out = ""
    for s in sentences:
        cand = f"{out} {s}".strip() if out else s.strip()
        if len(cand) <= limit:
            out = cand
            if len(out) >= SHORT_GIST:
                break
        else:
            if go_on and out and len(out) < SHORT_GIST:  # "Second pass at #46102." says too little: go on, cut at a word
                return clip_words(cand, limit, trim=_CUT_TRIM)
            break
    if out:
        return out
    return clip_words(text, limit, trim=_CUT_TRIM)


def clip_words(text: str, limit: int, trim: str = " ,;:.") -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary (the last space past half of
    it), the ``trim`` characters taken off the cut end and ``…`` marking the cut (unchanged when it
    fits or ``limit`` is 0)."""
    if not limit or len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(trim) + "…"


def _purpose(body: str) -> str | None:
    sections = _sections(clean_markdown(body))
    ordered = [s for s in sections if s[0] is not None and _PURPOSE_SECTIONS.match(s[0])]
    ordered += [s for s in sections if s[0] is None]
    ordered += [s for s in sections if s[0] is not None and not _PURPOSE_SECTIONS.match(s[0])
                and not _SKIP_SECTIONS.match(s[0])]
    for _, lines in ordered:
        paras = _paragraphs(lines)
        for i, para in enumerate(paras):
            if len(para) >= 12:
                if para.endswith(":") and i + 1 < len(paras):
                    para = f"{para} {paras[i + 1]}"  # "computes offsets using int32 arithmetic:" + what follows
                return para
    return None


def measured_results(body: str, limit: int = RESULTS_MAX) -> tuple[str, ...]:
    """Measured results the description states, each quoted exactly (a substring of ``body``).

    A result is a clause (split at ``, ; : ( )`` and sentence ends) holding a percentage or a factor
    (``30%+``, ``1.2x–2.2x``, ``+4.84%``) and a metric word (throughput, latency, TTFT, speedup,
    prefill, memory...), at most :data:`RESULT_MAX` characters. Code blocks and tables are not read.
    :func:`extract_gist` passes the title as the first line (titles state results too: "28.9% E2E latency").
    """
    text = _HTML_COMMENT.sub("", body.replace("\r\n", "\n"))
    text = _FENCE.sub("\n", text)
    found: list[str] = []
    for line in text.split("\n"):
        if _TABLE.match(line) or _CHECKBOX.match(line) or _PLACEHOLDER.search(line) or "http" in line and _RESULT_NUM.search(_URL.sub("", line)) is None:
            continue
        for m in _RESULT_NUM.finditer(line):
            start = max((c.end() for c in _CLAUSE_SPLIT.finditer(line, 0, m.start())), default=0)
            after = _CLAUSE_SPLIT.search(line, m.end())
            end = after.start() if after else len(line)
            clause = _LEADING_JOINER.sub("", line[start:end].strip(" *_`-"))
            if not _METRIC.search(clause) or _URL.search(clause):
                continue
            if len(clause) > RESULT_MAX:
                clause = _window(line, m.start(), m.end())
                if not _METRIC.search(clause):
                    continue
            if clause and clause not in found and all(clause not in f for f in found):
                found.append(clause)
            if len(found) >= limit:
                return tuple(found)
    return tuple(found)


def _window(line: str, start: int, end: int, words: int = 5) -> str:
    """The number at ``line[start:end]`` with up to ``words`` words on each side, as in the line."""
    left = line[:start].split(" ")
    right = line[end:].split(" ")
    lo = " ".join(left[-words - 1:]) if len(left) > words else line[:start]
    hi = " ".join(right[: words + 1])
    return f"{lo}{line[start:end]}{hi}".strip(" ,.;*_`-")[:RESULT_MAX].strip()


def extract_gist(title: str, body: str) -> Gist:
    """The gist of a PR from its ``title`` and Markdown description ``body``.

    Returns a :class:`Gist` whose ``text`` has at most :data:`GIST_MAX` characters and no Markdown
    markup; ``source`` is ``description`` when the text comes from the body, else ``title``.
    """
    purpose = _purpose(body) if body.strip() else None
    results = measured_results(f"{title}\n{body}")
    if purpose is None:
        return Gist(text=fit_sentences(title_without_tags(title)), source="title", results=results)
    return Gist(text=fit_sentences(purpose, go_on=True), source="description", results=results)
