"""``bot-review-flag`` (review data): a review bot's finding at a reported severity
(:func:`chatbot.review_findings.review_findings` with the rules' ``review_findings``; a thread
resolved or outdated at fetch time does not count), quoted with its path:line."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.review_findings import review_findings
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, with_more


def check(ctx: RiskContext) -> RiskFinding | None:
    """The first finding (bot, severity, where, quote) and how many more."""
    findings = review_findings(ctx.pr, ctx.rules.rules.review_findings)
    if not findings:
        return None
    f = findings[0]
    where = f"{f.path}:{f.line}" if f.path and f.line else (f.path or "-")
    key = "reason.bot_review_flag" if f.quote else "reason.bot_review_flag_bare"
    reason = phrase(key, reviewer=f.bot, severity=f.severity, where=where, quote=f.quote)
    return RiskFinding(tag=RULE.tag, reason=with_more(reason, len(findings) - 1), path=f.path)


RULE = RiskRule(tag="bot-review-flag", check=check)
