"""A trend row from the analysis alone (chatbot/digest.py ``analysis_stats``, ``analysis_module_names``):
the same numbers as the written digest's ``week_stats``, on every real week in en and zh.

Kills the mutations: key PRs counted without leaving out reverted, docs-only or CI-only PRs (the
synthetic week: every real week has more eligible PRs than the key-PR cut of 24), and contributors
counted with bots.
"""

from __future__ import annotations

import pytest

from chatbot.digest import analysis_module_names, analysis_stats, analyze_week, digest_from
from chatbot.history import week_stats
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs

WEEKS = ["2026-W15", "2026-W16", "2026-W17", "2026-W18", "2026-W19", "2026-W20"]


@pytest.mark.parametrize("name", WEEKS)
def test_analysis_stats_equal_the_written_digests(name, vllm_rules):
    week = IsoWeek.parse(name)
    prs = week_prs(name) + (week_prs(str(week.previous())) if name != WEEKS[0] else [])
    wa = analyze_week(prs, repo="vllm-project/vllm", week=week, rules=vllm_rules)
    for lang in ("en", "zh"):
        d = digest_from(wa, lang)
        assert analysis_stats(wa) == week_stats(d)
        assert list(analysis_module_names(wa, lang).items()) == list(d.module_names.items())


def test_w20_row_pinned(vllm_rules):
    week = IsoWeek.parse("2026-W20")
    wa = analyze_week(week_prs("2026-W20") + week_prs("2026-W19"), repo="vllm-project/vllm", week=week,
                      rules=vllm_rules)
    st = analysis_stats(wa)
    assert (st.week, st.total_prs, st.key_prs) == ("2026-W20", 217, 24)
    assert st.contributors == len(digest_from(wa, "en").contributors)
    assert list(st.label_counts)[:1] == ["bugfix"]


def _pr(number, title, path, login="alice", is_bot=False):
    from datetime import datetime, timedelta, timezone

    from chatbot.models import Author, FileChange, PullRequest

    f = FileChange(path=path, additions=40, deletions=2)
    return PullRequest(number=number, title=title, body="", url=f"https://github.com/o/r/pull/{number}",
                       author=Author(login=login, is_bot=is_bot),
                       merged_at=datetime(2026, 5, 11, tzinfo=timezone.utc) + timedelta(hours=number),
                       files=(f,), additions=40, deletions=2, changed_files=1)


def test_key_prs_leave_out_reverted_docs_and_ci_only(vllm_rules):
    """Fewer eligible PRs than the key-PR cut: the count is the eligible PRs' (the real weeks all hit the cut)."""
    prs = [_pr(1, "Add a scheduler knob", "vllm/v1/core/sched/scheduler.py"),
           _pr(2, "Fix the docs", "docs/usage/faq.md"),
           _pr(3, "Bump the CI image", ".buildkite/test-pipeline.yaml"),
           _pr(4, "Add a sampler flag", "vllm/v1/sample/sampler.py"),
           _pr(5, 'Revert "Add a sampler flag" (#4)', "vllm/v1/sample/sampler.py"),
           _pr(6, "Pin a wheel", "vllm/v1/engine/core.py", login="dependabot[bot]", is_bot=True)]
    wa = analyze_week(prs, repo="o/r", week=IsoWeek.parse("2026-W20"), rules=vllm_rules)
    st = analysis_stats(wa)
    assert st == week_stats(digest_from(wa, "en"))
    assert (st.total_prs, st.key_prs, st.contributors) == (6, 3, 1)  # 1, 5 and 6; 2 docs, 3 CI, 4 reverted
