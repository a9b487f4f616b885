"""``missing-tests``: at least ``thresholds.missing_tests_min_lines`` lines added to behavioural
source (``source_paths`` minus ``source_exclude``, outside ``test_paths``), and no test path
changed. Added lines, not deleted ones: removing dead code adds no behaviour to test."""

from __future__ import annotations

from chatbot.i18n import lines_text
from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_lines, largest


def check(ctx: RiskContext) -> RiskFinding | None:
    """Source lines and the largest source file, when no test changed."""
    added = sum(f.additions for f in ctx.source)
    if ctx.tests or added < ctx.rules.rules.thresholds.missing_tests_min_lines:
        return None
    top = largest(ctx.source)
    assert top is not None
    reason = phrase("reason.missing_tests", lines=lines_text(added, sum(f.deletions for f in ctx.source)),
                    path=top.path, flines=file_lines(top))
    return RiskFinding(tag=RULE.tag, reason=reason, path=top.path, additions=top.additions, deletions=top.deletions)


RULE = RiskRule(tag="missing-tests", check=check,
                words={"en": r"\bmissing tests?\b|\bwithout tests?\b|\bno tests?\b|\buntested\b|\btest coverage\b",
                       "zh": "没有测试|缺少?测试|无测试|没测试|未测试"})
