"""``tests-removed``: test lines net-removed beyond ``thresholds.tests_removed_min_lines`` (strictly
more). A test file emptied while the PR adds as many test lines elsewhere is a move, not a loss
(W20 #41826 empties test_speculators_dflash.py, -171, and adds test_speculators_correctness.py,
+209); the largest file that only lost lines is the evidence named when there is one. The data
holds line counts, not file status, so the reason says "lines only deleted from", never "emptied":
W27's "test_common.py emptied (+0/-25)" was 25 lines of a large shared test file. Not counted for
importance: the tag can vanish as a PR adds lines, and the score must not fall as a PR grows."""

from __future__ import annotations

from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_lines, largest


def check(ctx: RiskContext) -> RiskFinding | None:
    """The net count of removed test lines with the largest emptied (else largest) test file."""
    net = sum(f.additions - f.deletions for f in ctx.tests)
    if not ctx.tests or -net <= ctx.rules.rules.thresholds.tests_removed_min_lines:
        return None
    emptied = largest(f for f in ctx.tests if f.additions == 0 and f.deletions > 0)
    top = emptied or largest(ctx.tests)
    assert top is not None
    key = "reason.tests_removed_emptied" if emptied is not None else "reason.tests_removed_net"
    return RiskFinding(tag=RULE.tag, reason=phrase(key, net=f"{net:,}", path=top.path, lines=file_lines(top)),
                       path=top.path, additions=top.additions, deletions=top.deletions)


RULE = RiskRule(tag="tests-removed", check=check, counts_for_importance=False,
                words={"en": (r"\b(?:tests?|testing) (?:were |was |got )?(?:removed|deleted|dropped)\b"
                                r"|\b(?:remov|delet|drop)\w* (?:the |any |some )?tests?\b"),
                       "zh": "删(?:了|除了?)?测试|移除了?测试|测试被删"})
