"""``bot-review-flag`` (review data): a review bot's finding at a reported severity
(:func:`chatbot.review_findings.risk_findings`: the rules' ``review_findings``, less nits matching
``review_nits`` and findings on test paths; a thread resolved or outdated at fetch time does not
count), quoted with its path:line."""

from __future__ import annotations

from chatbot.review_findings import finding_phrase, risk_findings
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, with_more


def check(ctx: RiskContext) -> RiskFinding | None:
    """The first finding (bot, severity, where, quote) and how many more."""
    findings = risk_findings(ctx.pr, ctx.rules)
    if not findings:
        return None
    f = findings[0]
    return RiskFinding(tag=RULE.tag, reason=with_more(finding_phrase(f), len(findings) - 1), path=f.path)


RULE = RiskRule(tag="bot-review-flag", check=check)
