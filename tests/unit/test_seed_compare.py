"""``benchmarks/seed_compare.py`` on W27 beside the report of that week (seed 001), issue 17 item 8.

The figure it prints, cited PRs the digest puts in its key PRs or storylines, is pinned, so a
change to importance or storylines that loses the week's story fails here. Skipped without ../shared.
"""

from __future__ import annotations

import pytest

from benchmarks.seed_compare import cjk_share, compare, lines, report_storylines
from chatbot.rules import shipped_rules
from tests.conftest import SHARED, shared_file, thread_prs


def _seed(prefix: str) -> str:
    shared_file("vllm-threads", "2026-W27.json")  # skips without ../shared
    path = next(iter(sorted((SHARED / "seeds").glob(f"{prefix}_*.txt"))), None)
    if path is None:
        pytest.skip(f"needs ../shared/seeds/{prefix}_*.txt")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def w27():
    return compare(thread_prs("2026-W27"), _seed("001"), shipped_rules("vllm"))


def test_the_report_cites_38_prs_of_the_week_in_five_storylines(w27):
    assert len(w27.cited) == 38
    assert [(s.name.split("：")[0], len(s.prs)) for s in w27.report_storylines] == [
        ("投机解码", 5), ("模型加载", 2), ("Rust前端", 7), ("注意力后端生态丰富", 5), ("多模态与工具解析", 5)]


def test_cited_prs_found_in_key_prs_or_storylines(w27):
    out = lines(w27)
    # 28 before kernel tests counted as kernels: a kernels storyline (6 PRs) now outranks the
    # distributed one (4 PRs) that held #46703
    assert out[0] == "cited_found: 27/38 (key PRs 15, storylines 23, risks 22)"
    assert len(w27.missed) == 38 - 27 == len([x for x in out if x.startswith("  #")])
    why = {n: w for n, _, w in w27.missed}
    # the Rust frontend's enum-backed types: its storyline cites five more newsworthy Rust PRs
    assert why[47283].endswith("storyline 'Rust frontend' cites 5 PRs, not this one")
    assert {45890, 46800, 46684} <= set(w27.in_storylines)  # TLS/mTLS, the Harmony renderer, repetition detection


def test_the_seeds_storylines_are_the_digests(w27):
    names = [s.name for s in w27.digest_storylines]
    assert {"Rust frontend", "speculative decoding", "attention backends"} <= set(names)
    assert names[-2:] == ["hardening", "dependency updates"]  # kept beside the six ranked ones
    assert 5 <= len(names) - 2 <= 7
    assert all(3 <= len(s.prs) <= 7 for s in w27.digest_storylines if s.name != "hardening")


def test_the_done_when_figures_of_w27(w27):
    assert (w27.flagged, w27.total_prs, w27.risk_observations) == (50, 247, 7)
    assert w27.max_mentions[1] <= 3
    assert w27.zh_chars <= 9000


def test_report_storylines_of_the_bulleted_report():
    names = [s.name for s in report_storylines(_seed("000"))]
    assert names == ["新模型原生支持", "投机解码深度增强", "Kimi-K3 性能优化", "基础设施演进", "前端与接口"]


def test_cjk_share_counts_non_space_characters():
    assert cjk_share("中文 ab") == round(2 / 4, 3)
    assert cjk_share("  ") == 0.0
