"""Finding the CJK font (Noto Sans CJK SC) with fontconfig, for charts and PDFs."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

from adapters.report.errors import ReportError

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def needs_cjk(text: str) -> bool:
    """True when ``text`` holds CJK ideographs or full-width punctuation."""
    return _CJK.search(text) is not None


CJK_PACKAGE = "fonts-noto-cjk"
"""The Debian package that provides Noto Sans CJK SC."""

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Noto Serif CJK SC")
"""Families tried in order; the first one fontconfig knows is used."""


@dataclass(frozen=True)
class CjkFont:
    """A CJK font fontconfig knows: its family name and the font files (``.ttc``/``.otf``) holding it."""

    family: str
    files: tuple[str, ...]


@lru_cache(maxsize=1)
def _fc_list() -> tuple[tuple[str, str], ...]:
    """``(family, file)`` pairs of fonts that cover Chinese (``fc-list :lang=zh``); () without fontconfig."""
    exe = shutil.which("fc-list")
    if exe is None:
        return ()
    try:
        out = subprocess.run([exe, ":lang=zh", "family", "file"], capture_output=True, text=True, timeout=30,
                             check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    pairs = []
    for line in out.splitlines():
        path, _, fams = line.partition(":")
        for fam in fams.split(","):
            if fam.strip():
                pairs.append((fam.strip(), path.strip()))
    return tuple(sorted(set(pairs)))


def find_cjk_font(required: bool = True) -> CjkFont | None:
    """The first of :data:`CJK_FAMILIES` that fontconfig lists as covering Chinese.

    Args:
        required: raise instead of returning None when none is installed.

    Raises:
        ReportError: ``required`` and no CJK font is installed (the message names ``fonts-noto-cjk``).
    """
    pairs = _fc_list()
    for fam in CJK_FAMILIES:
        files = tuple(sorted({f for name, f in pairs if name == fam}))
        if files:
            return CjkFont(fam, files)
    if required:
        raise ReportError(f"no CJK font found (fc-list :lang=zh lists no Noto Sans CJK SC): install the Debian "
                          f"package {CJK_PACKAGE} (apt-get install {CJK_PACKAGE}) so Chinese text is not rendered as empty boxes")
    return None
