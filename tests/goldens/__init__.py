"""Golden files: every output format of real weeks, written once from ``main`` and diffed by a test.

A golden is the exact output of the ``prhub digest`` command line (run in-process through Typer)
for one *case* (which input, which ISO week), one language and one format:

- ``sample`` — the vLLM week 2026-W20 shipped in the package (``--sample``; needs no ``../shared``);
- ``vllm-2026-W15`` … ``vllm-2026-W20`` — the six real weeks in ``../shared/data/vllm``, all six files
  given as input with ``--week`` (so reverts, follow-up fixes and the report's history and trends see
  the weeks before); these cases are skipped without ``../shared``.

Formats: ``markdown``, ``json``, ``slack``, ``feishu``, ``html`` and ``pdf`` (compared as the text
``pdftotext -layout`` extracts). Two normalisations keep goldens small and reviewable while still
pinning every byte that prhub computes: an embedded PNG chart (``data:image/png;base64,…``) is stored
as the SHA-256 of its bytes, and the PDF is stored as its text. ``PRHUB_PUBLIC_URL`` is fixed to
:data:`PUBLIC_URL` so that "Full report" buttons are covered; nothing reads the wall clock.

Regenerate (only this way, and review ``git diff tests/goldens`` before committing)::

    python -m tests.goldens --update          # write every golden that can be made here
    python -m tests.goldens --check           # compare all of them, print a diff of each difference
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DIR = Path(__file__).resolve().parent / "data"
SHARED_VLLM = Path(os.environ.get("PRHUB_SHARED", ROOT.parent / "shared")) / "data" / "vllm"
PUBLIC_URL = "https://prhub.example.org"
LANGS = ("en", "zh")
VLLM_WEEKS = tuple(f"2026-W{n}" for n in range(15, 21))
FAST_FORMATS = ("markdown", "json", "slack", "feishu")
REPORT_FORMATS = ("html", "pdf")
FORMATS = FAST_FORMATS + REPORT_FORMATS
_SUFFIX = {"markdown": "md", "json": "json.gz", "slack": "slack.json.gz", "feishu": "feishu.json.gz",
           "html": "html.gz", "pdf": "pdf.txt.gz"}
_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


@dataclass(frozen=True)
class Golden:
    """One golden: ``case`` (``sample`` or ``vllm-2026-Www``), ``lang`` and output ``fmt``."""

    case: str
    lang: str
    fmt: str

    @property
    def path(self) -> Path:
        """Where the golden is stored (``.gz`` for the large JSON and HTML outputs)."""
        return GOLDEN_DIR / f"{self.case}.{self.lang}.{_SUFFIX[self.fmt]}"

    @property
    def needs_shared(self) -> bool:
        """True when the case reads ``../shared/data/vllm``."""
        return self.case != "sample"

    @property
    def fast(self) -> bool:
        """Checked by the default test run: every Markdown, JSON, Slack and Feishu golden, the HTML
        of the sample and of W20, the PDF of the sample. The other reports (2–6 s each) are checked
        by ``python -m tests.goldens --check`` and ``PRHUB_GOLDENS=all pytest``; the same HTML gives
        the same PDF, so the HTML goldens already pin what the PDF is made from."""
        if self.fmt == "html":
            return self.case in ("sample", "vllm-2026-W20")
        if self.fmt == "pdf":
            return self.case == "sample"
        return True

    def __str__(self) -> str:
        return f"{self.case}/{self.lang}/{self.fmt}"


def all_goldens() -> list[Golden]:
    """Every golden, sample first."""
    cases = ["sample"] + [f"vllm-{w}" for w in VLLM_WEEKS]
    return [Golden(c, lang, fmt) for c in cases for lang in LANGS for fmt in FORMATS]


def shared_available() -> bool:
    """True when the six real weeks are present in ``../shared``."""
    return all((SHARED_VLLM / f"{w}.json").exists() for w in VLLM_WEEKS)


def _args(g: Golden) -> list[str]:
    if g.case == "sample":
        inputs = ["--sample"]
    else:
        inputs = [a for w in VLLM_WEEKS for a in ("--input", str(SHARED_VLLM / f"{w}.json"))]
        inputs += ["--week", g.case.removeprefix("vllm-")]
    return ["digest", *inputs, "--lang", g.lang, "--format", g.fmt]


def _pdf_text(pdf: bytes) -> str:
    exe = shutil.which("pdftotext")
    if exe is None:
        raise RuntimeError("pdftotext not found: install poppler-utils")
    return subprocess.run([exe, "-layout", "-enc", "UTF-8", "-", "-"], input=pdf, capture_output=True,
                          check=True).stdout.decode("utf-8")


A4_WIDTH_PT = 595.28
SIDE_MARGIN_PT = 14 * 72 / 25.4
"""The report's left and right page margin (``@page`` in ``report.css.j2``: 14 mm = 39.7 pt)."""


def words_outside_margins(pdf: bytes, *, tolerance: float = 0.5) -> list[str]:
    """Words of ``pdf`` (``pdftotext -bbox``) whose box leaves the text column between the side margins
    by more than ``tolerance`` points (a glyph's side bearing), as ``"page N: word"``; the running header
    and footer sit in the top and bottom margins and are not checked.

    Raises:
        RuntimeError: pdftotext is missing.
    """
    exe = shutil.which("pdftotext")
    if exe is None:
        raise RuntimeError("pdftotext not found: install poppler-utils")
    xml = subprocess.run([exe, "-bbox", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode("utf-8")
    out, page = [], 0
    left, right = SIDE_MARGIN_PT - tolerance, A4_WIDTH_PT - SIDE_MARGIN_PT + tolerance
    for line in xml.splitlines():
        if "<page " in line:
            page += 1
        m = re.search(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">(.*)</word>', line)
        if m and (float(m.group(1)) < left or float(m.group(2)) > right):
            out.append(f"page {page}: {m.group(3)}")
    return out


def _hash_png(match: re.Match[str]) -> str:
    import base64

    return "data:image/png;sha256," + hashlib.sha256(base64.b64decode(match.group(1))).hexdigest()


def produce(g: Golden) -> str:
    """Run ``prhub digest`` for ``g`` in-process and return its normalised output text.

    Raises:
        RuntimeError: the command failed (its output is in the message).
    """
    from typer.testing import CliRunner

    from prhub.cli import app

    env = {"PRHUB_PUBLIC_URL": PUBLIC_URL, "PRHUB_DATABASE_URL": "sqlite://"}
    args = _args(g)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.pdf"
        if g.fmt == "pdf":
            args += ["--out", str(out)]
        result = CliRunner().invoke(app, args, env=env, catch_exceptions=False)
        if result.exit_code != 0:
            raise RuntimeError(f"prhub {' '.join(args)} exited {result.exit_code}: {result.output}")
        if g.fmt == "pdf":
            return _pdf_text(out.read_bytes())
    text = result.stdout_bytes.decode("utf-8")
    if g.fmt == "html":
        text = _PNG.sub(_hash_png, text)
    return text


def read(g: Golden) -> str | None:
    """The stored golden text, or None when it was never written."""
    if not g.path.exists():
        return None
    data = g.path.read_bytes()
    if g.path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def write(g: Golden, text: str) -> bool:
    """Store ``text`` as the golden (gzip with mtime 0, so the same text gives the same bytes).

    Returns True when the stored golden changed.
    """
    if read(g) == text:
        return False
    data = text.encode("utf-8")
    if g.path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=9, mtime=0)
    g.path.parent.mkdir(parents=True, exist_ok=True)
    g.path.write_bytes(data)
    return True


def diff(g: Golden, expected: str | None, actual: str, limit: int = 60) -> str:
    """A unified diff of the stored golden and ``actual`` (at most ``limit`` lines) with a hint."""
    if expected is None:
        return f"{g}: no golden at {g.path.relative_to(ROOT)}; run python -m tests.goldens --update"
    lines = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"golden {g}", f"now {g}",
                                      n=2, lineterm=""))
    shown = lines[:limit]
    more = f"\n... {len(lines) - limit} more diff lines" if len(lines) > limit else ""
    return (f"{g} differs from {g.path.relative_to(ROOT)} "
            "(an intended change? run python -m tests.goldens --update and review git diff):\n"
            + "\n".join(shown) + more)


def runnable(goldens: list[Golden] | None = None) -> Iterator[Golden]:
    """The goldens that can be made on this machine (the ``../shared`` cases only when present)."""
    have_shared = shared_available()
    for g in goldens or all_goldens():
        if g.needs_shared and not have_shared:
            continue
        yield g
