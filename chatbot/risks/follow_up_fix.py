"""``follow-up-fix``: a bugfix citing a PR merged in the same week or the 7 days before it (the
link is found by :func:`chatbot.analysis.analyze_prs`)."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


def check(ctx: RiskContext) -> RiskFinding | None:
    """``fixes #N, merged MM-DD``."""
    if ctx.follow_up is None:
        return None
    num, when = ctx.follow_up
    return RiskFinding(tag=RULE.tag, reason=phrase("reason.follow_up", number=num, date=f"{when:%m-%d}"), ref_number=num)


RULE = RiskRule(tag="follow-up-fix", check=check,
                words={"en": r"\bfollow[- ]?up fix(?:es)?\b|\bhotfix(?:es)?\b",
                       "zh": "紧急修复|后续修复"})
