"""``core-path-change``: a file under the rules' ``core_paths`` changed (not counted for importance:
core files already score through the ``core`` term)."""

from __future__ import annotations

from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_finding


def check(ctx: RiskContext) -> RiskFinding | None:
    """The largest core file and how many more."""
    return file_finding(RULE.tag, "reason.core", ctx.core)


RULE = RiskRule(tag="core-path-change", check=check, counts_for_importance=False, group_paths=lambda r: r.core)
