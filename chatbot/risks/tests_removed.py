"""``tests-removed``: a test file emptied (0 additions, >0 deletions), or test lines net-removed
beyond ``thresholds.tests_removed_min_lines`` (strictly more). Not counted for importance: the tag
can vanish as a PR adds lines, and the score must not fall as a PR grows."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_finding, file_lines, largest


def check(ctx: RiskContext) -> RiskFinding | None:
    """The largest emptied test file, else the net count of removed test lines."""
    if not ctx.tests:
        return None
    emptied = tuple(f for f in ctx.tests if f.additions == 0 and f.deletions > 0)
    if emptied:
        return file_finding(RULE.tag, "reason.tests_removed_file", emptied)
    net = sum(f.additions - f.deletions for f in ctx.tests)
    if -net > ctx.rules.rules.thresholds.tests_removed_min_lines:
        top = largest(ctx.tests)
        assert top is not None
        return RiskFinding(tag=RULE.tag, reason=phrase("reason.tests_removed_net", net=f"{net:,}", path=top.path,
                                                       lines=file_lines(top)),
                           path=top.path, additions=top.additions, deletions=top.deletions)
    return None


RULE = RiskRule(tag="tests-removed", check=check, counts_for_importance=False, cite_largest_file=True)
