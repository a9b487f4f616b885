"""``no-human-approval`` (review data only): review states are known and none is APPROVED by a person."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


def check(ctx: RiskContext) -> RiskFinding | None:
    """A fixed reason."""
    reviews = ctx.pr.reviews
    states_known = all(r.state is not None for r in reviews)
    if reviews and states_known and not any(r.state == "APPROVED" and not r.is_bot for r in reviews):
        return RiskFinding(tag=RULE.tag, reason=phrase("reason.no_human_approval"))
    return None


RULE = RiskRule(tag="no-human-approval", check=check)
