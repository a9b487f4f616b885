"""Test helper: a digest built and written in one language at once (what an output does)."""

from __future__ import annotations

from typing import Any

from chatbot.digest import build_digest, write
from chatbot.models import DigestText


def written_digest(prs: Any, *, lang: str = "en", **kw: Any) -> DigestText:
    """:func:`chatbot.digest.build_digest` of ``prs`` (``kw`` as its keywords), written in ``lang``."""
    return write(build_digest(prs, **kw), lang)
