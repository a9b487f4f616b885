"""``core-path-change``: at least ``thresholds.core_path_min_lines`` changed lines (added plus deleted)
in files under the rules' ``core_paths``. A one-line fix in the scheduler is not what a reviewer
re-reads; a rewrite of it is (W20: 33 PRs touched a core path, 24 of them fewer than 100 lines).
Not counted for importance: core files already score through the ``core`` term."""

from __future__ import annotations

from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_finding


def check(ctx: RiskContext) -> RiskFinding | None:
    """The largest core file and how many more, when the core lines reach the threshold."""
    if sum(f.lines for f in ctx.core) < ctx.rules.rules.thresholds.core_path_min_lines:
        return None
    return file_finding(RULE.tag, "reason.core", ctx.core)


RULE = RiskRule(tag="core-path-change", check=check, counts_for_importance=False)
