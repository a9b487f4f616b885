"""``dependency-change``: a file under the rules' ``dependency_paths`` changed."""

from __future__ import annotations

from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_finding


def check(ctx: RiskContext) -> RiskFinding | None:
    """The largest dependency file and how many more."""
    return file_finding(RULE.tag, "reason.dependency", ctx.dependency)


RULE = RiskRule(tag="dependency-change", check=check,
                words={"en": r"\bdependenc(?:y|ies)\b|\bdeps\b|\bdependency bumps?\b",
                       "zh": "依赖"},
                words_before=("follow-up-fix",))
