"""``security-sensitive``: a file under ``security_paths`` (docs excluded) changed, else a
``security_keywords`` match in the title, then in the description. The evidence weighs 2, 1 and 0
in that order, so the observation names a security path or a "fix(security)" title before a
description that mentions "out of bounds" (W27 #46301, a CUDA index crash, was named first)."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_finding

WEIGHTS = {"path": 2, "title": 1, "body": 0}
"""Evidence weight by where the rule found it (:attr:`RiskFinding.weight`)."""


def check(ctx: RiskContext) -> RiskFinding | None:
    """The largest security file, or the keyword and where it was found."""
    found = file_finding(RULE.tag, "reason.security_path", ctx.security, more=False)
    if found is not None:
        return found.model_copy(update={"weight": WEIGHTS["path"]})
    if ctx.rules.security_keywords is None:
        return None
    for where, text in (("title", ctx.pr.title), ("body", ctx.pr.body)):
        m = ctx.rules.security_keywords.search(text)
        if m:
            return RiskFinding(tag=RULE.tag, reason=phrase("reason.security_keyword", word=m.group(0),
                                                           where=phrase(f"where.{where}")), weight=WEIGHTS[where])
    return None


RULE = RiskRule(tag="security-sensitive", check=check,
                words={"en": r"\bsecurity\b|\bsecure\b|\bcves?\b|\bvulnerab\w*",
                       "zh": "安全"})
