"""``revert``: the PR reverts another (GitHub's ``Revert "<title>" (#N)``, or a title starting with
``Revert``). The reason comes from the title alone, so the same PR gets the same reason whatever
other weeks the input holds; a revert of a revert is a re-land."""

from __future__ import annotations

from chatbot.reverts import parse_revert
from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


def check(ctx: RiskContext) -> RiskFinding | None:
    """``re-lands "<title>"``, ``reverts #N`` or ``reverts "<title>"``."""
    link = parse_revert(ctx.pr.title) if ctx.is_revert else None
    if link is None:
        return None
    inner = parse_revert(link.title) if link.title else None
    if inner is not None:
        reason = phrase("reason.reland", title=inner.title or link.title or "")
    elif link.number is not None:
        reason = phrase("reason.revert_pr", number=link.number)
    else:
        reason = phrase("reason.revert_title", title=link.title or ctx.pr.title)
    return RiskFinding(tag=RULE.tag, reason=reason, ref_number=link.number)


RULE = RiskRule(tag="revert", check=check,
                words={"en": r"\brevert(?:s|ed|ing)?\b|\brolled back\b|\broll ?backs?\b",
                       "zh": "回滚|回退|撤销"})
