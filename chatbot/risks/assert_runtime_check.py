"""``assert-runtime-check`` (patches, GitHub source only): an added ``assert`` in non-test source."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, with_more


def check(ctx: RiskContext) -> RiskFinding | None:
    """The first such path and how many more."""
    paths = ctx.pr.added_asserts
    if not paths:
        return None
    return RiskFinding(tag=RULE.tag, reason=with_more(phrase("reason.assert", path=paths[0]), len(paths) - 1), path=paths[0])


RULE = RiskRule(tag="assert-runtime-check", check=check)
