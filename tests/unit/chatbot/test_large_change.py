"""``large-change`` (chatbot/risks/large_change.py) at its thresholds: more than 30 files or more
than 1,000 lines, tests and data left out of both counts.

Kills the mutation ``n_files > th.large_change_files`` -> ``>=`` (a PR of exactly 30 counted files
flagged) and its twin on lines; the real row is W27's #47140 (31 files, one a test: 30 counted).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from chatbot.analysis import analyze_prs
from chatbot.models import Author, FileChange, PullRequest
from chatbot.rules import shipped_rules
from tests.conftest import thread_prs

RULES = shipped_rules("vllm").compiled
T0 = datetime(2026, 5, 11, tzinfo=timezone.utc)


def _pr(files: list[tuple[str, int, int]]) -> PullRequest:
    fs = tuple(FileChange(path=p, additions=a, deletions=d) for p, a, d in files)
    return PullRequest(number=1, title="Refactor", url="https://github.com/o/r/pull/1", author=Author(login="alice"),
                       merged_at=T0, files=fs, additions=sum(f.additions for f in fs),
                       deletions=sum(f.deletions for f in fs), changed_files=len(fs))


def _large(pr: PullRequest) -> bool:
    (a,), _ = analyze_prs([pr], {pr.number: pr}, RULES, T0)
    return "large-change" in a.risk_tags


def _src(n: int, lines: int = 1) -> list[tuple[str, int, int]]:
    return [(f"vllm/m{i}.py", lines, 0) for i in range(n)]


@pytest.mark.parametrize("files,large", [
    (_src(30), False),                                          # exactly 30 files: not more than 30
    (_src(31), True),                                           # one past
    (_src(30) + [("tests/test_m.py", 1, 0)], False),            # 31 files, the test left out: 30
    (_src(30) + [("vllm/model_executor/layers/fused_moe/configs/E=8.json", 1, 0)], False),  # data left out
    ([("vllm/a.py", 600, 400)], False),                         # exactly 1,000 lines
    ([("vllm/a.py", 600, 401)], True),                          # one past
    ([("vllm/a.py", 600, 400), ("tests/test_a.py", 500, 0)], False),  # test lines left out
], ids=["30-files", "31-files", "30+test", "30+data", "1000-lines", "1001-lines", "1000+test-lines"])
def test_large_change_is_more_than_30_files_or_1000_lines(files, large):
    assert _large(_pr(files)) is large


def test_w27_47140_has_30_counted_files_and_is_not_large():
    pr = next(p for p in thread_prs("2026-W27") if p.number == 47140)
    assert (pr.changed_files, len(pr.files), pr.additions + pr.deletions) == (31, 31, 130)
    assert sum(1 for f in pr.files if f.path.startswith("tests/")) == 1
    assert not _large(pr)
