"""``data_paths`` (tuned kernel configs): left out of churn, importance and large-change."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.digests import written_digest
from chatbot.models import FileChange, PullRequest
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs

W19 = IsoWeek.parse("2026-W19")


def _w19(rules):
    return written_digest(week_prs("2026-W19") + week_prs("2026-W18"), repo="vllm-project/vllm", week=W19, rules=rules)


def test_helion_configs_are_not_churn_importance_or_a_large_change(vllm_rules):
    d = _w19(vllm_rules)
    p = next(p for p in d.prs if p.number == 40850)  # +31,837/-27,941, 58,974 lines of Helion configs
    assert (p.additions, p.deletions) == (31837, 27941)
    assert "large-change" not in p.risk_tags and p.importance == 3.2  # was large-change and 4.1
    kernels = next(s for s in d.module_stats if s.module == "kernels")
    assert (kernels.prs, kernels.additions + kernels.deletions) == (17, 9641)  # was 68,139 with the configs
    biggest = max(d.module_stats, key=lambda s: (s.additions + s.deletions, s.module))
    assert biggest.module == "docs"  # kernels no longer the week's biggest churn
    assert not any("helion/configs" in r.detail for r in d.risks)


def _pr(path: str, lines: int) -> PullRequest:
    return PullRequest(number=7, title="[Kernel] Tune fused MoE", merged_at=datetime(2026, 5, 6, tzinfo=timezone.utc),
                       files=(FileChange(path="vllm/model_executor/layers/fused_moe/layer.py", additions=10),
                              FileChange(path=path, additions=lines)),
                       additions=10 + lines, changed_files=2)


def test_large_change_counts_only_lines_outside_data_paths(vllm_rules):
    th = vllm_rules.thresholds.large_change_lines
    tuned = "vllm/model_executor/layers/fused_moe/configs/E=128,N=384,device_name=NVIDIA_H100.json"
    code = "vllm/model_executor/layers/fused_moe/fused_moe.py"

    def tags(path, lines):
        return written_digest([_pr(path, lines)], repo="vllm-project/vllm", week=W19, rules=vllm_rules).prs[0]

    assert "large-change" not in tags(tuned, 5 * th).risk_tags  # 10 code lines, the rest tuned configs
    assert "large-change" not in tags(code, th - 10).risk_tags  # exactly the threshold: not over it
    assert "large-change" in tags(code, th - 9).risk_tags
    assert tags(tuned, 5 * th).importance < tags(code, 5 * th).importance
    d = written_digest([_pr(tuned, 5 * th)], repo="vllm-project/vllm", week=W19, rules=vllm_rules)
    moe = next(s for s in d.module_stats if s.module == d.prs[0].primary_module)
    assert (moe.additions, moe.deletions) == (10, 0)
