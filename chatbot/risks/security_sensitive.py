"""``security-sensitive``: a file under ``security_paths`` (docs excluded) changed, else a
``security_keywords`` match in the title, then in the description."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_finding


def check(ctx: RiskContext) -> RiskFinding | None:
    """The largest security file, or the keyword and where it was found."""
    found = file_finding(RULE.tag, "reason.security_path", ctx.security, more=False)
    if found is not None or ctx.rules.security_keywords is None:
        return found
    for where, text in (("title", ctx.pr.title), ("body", ctx.pr.body)):
        m = ctx.rules.security_keywords.search(text)
        if m:
            return RiskFinding(tag=RULE.tag, reason=phrase("reason.security_keyword", word=m.group(0),
                                                           where=phrase(f"where.{where}")))
    return None


RULE = RiskRule(tag="security-sensitive", check=check,
                words={"en": r"\bsecurity\b|\bsecure\b|\bcves?\b|\bvulnerab\w*",
                       "zh": "安全"})
