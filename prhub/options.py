"""Choices the command line declares at import time, kept in a module that imports nothing heavy.

``import prhub.cli`` must stay fast (issue 13: at most 0.25 s CPU), so the option types that Typer
reads when the app is defined live here instead of in :mod:`prhub.bootstrap`, which pulls in
pydantic models, the rules and the export reader.
"""

from __future__ import annotations

from enum import Enum

SAMPLE_WEEK = "2026-W20"
"""The real vLLM week shipped with prhub (``prhub/data/2026-W20.json``)."""


class DigestSource(str, Enum):
    """Where ``prhub digest`` takes its PRs from (``--source``)."""

    store = "store"
    file = "file"
    github = "github"
