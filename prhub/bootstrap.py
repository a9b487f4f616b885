"""Wiring: from command-line choices to concrete sources, rules and services.

The only place that knows every package; importing it connects to nothing.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from adapters.export.ghjson import ParsedExport, load_exports
from chatbot.errors import InputError
from chatbot.rules import Rules, default_rules_for, load_rules

SAMPLE_WEEK = "2026-W20"
_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def sample_path() -> Path:
    """Path of the real vLLM week shipped with prhub (``prhub/data/2026-W20.json``)."""
    return Path(str(resources.files("prhub").joinpath("data", f"{SAMPLE_WEEK}.json")))


def check_repo(repo: str) -> str:
    """Validate an ``owner/name`` repository name.

    Raises:
        InputError: not of that form.
    """
    if not _REPO_RE.match(repo):
        raise InputError(f"invalid repository {repo!r}: use owner/name, e.g. vllm-project/vllm")
    return repo


def rules_for(repo: str, rules_file: str | None) -> Rules:
    """The rules file given with ``--rules``, else the shipped rules for ``repo`` (generic for others)."""
    if rules_file:
        return load_rules(rules_file)
    return default_rules_for(repo)


def read_inputs(paths: list[str], *, sample: bool, skip_invalid: bool) -> ParsedExport:
    """PRs from ``--input`` files (and the shipped sample week with ``--sample``).

    Raises:
        InputError: no input at all, or an input that cannot be read or validated.
    """
    all_paths = list(paths)
    if sample:
        all_paths.insert(0, str(sample_path()))
    if not all_paths:
        raise InputError("no input: pass --input FILE (a gh pr list --json export) or --sample")
    return load_exports(all_paths, skip_invalid=skip_invalid)
