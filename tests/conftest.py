"""Shared fixtures: the real vLLM data in ../shared (tests that need it skip cleanly without it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.export.ghjson import load_exports
from chatbot.models import PullRequest
from chatbot.rules import Rules, shipped_rules

pytest_plugins = ["tests.fakes.chat_fixtures"]

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PRHUB_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_file(*parts: str) -> Path:
    """A file under ../shared/data, or skip the test when it is absent."""
    p = DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"needs ../shared ({p} not found)")
    return p


_CACHE: dict[str, list[PullRequest]] = {}


def week_prs(name: str) -> list[PullRequest]:
    """PRs of a real week file (``2026-W20``), loaded once per session."""
    if name not in _CACHE:
        _CACHE[name] = load_exports([str(shared_file("vllm", f"{name}.json"))]).prs
    return _CACHE[name]


def thread_prs(name: str = "2026-W20") -> list[PullRequest]:
    """PRs of the threads export of a real week (descriptions, comments, reviews, review threads)."""
    key = f"threads/{name}"
    if key not in _CACHE:
        _CACHE[key] = load_exports([str(shared_file("vllm-threads", f"{name}.json"))]).prs
    return _CACHE[key]


@pytest.fixture(scope="session")
def vllm_rules() -> Rules:
    return shipped_rules("vllm")
