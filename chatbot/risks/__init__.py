"""The risk-rule registry: every risk tag prhub knows, in the order observations are listed (most
actionable first). Adding a rule is one module under ``chatbot/risks`` plus one line here (see
docs/architecture.md); a test builds its own :class:`RiskRegistry` the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from chatbot.i18n import add_texts
from chatbot.precedence import ordered
from chatbot.risks import (
    assert_runtime_check,
    bot_review_flag,
    changes_requested,
    core_path_change,
    dependency_change,
    follow_up_fix,
    large_change,
    missing_tests,
    no_human_approval,
    review_open,
    revert,
    security_sensitive,
    tests_removed,
)
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


class RiskRegistry:
    """Risk rules in listing order; registers the catalog entries rules bring (``RiskRule.texts``).

    Raises:
        ValueError: two rules share a tag, a rule's text contradicts the catalogs, or the rules'
            ``words_before`` name a tag without words or form a cycle.
    """

    def __init__(self, *rules: RiskRule) -> None:
        tags = [r.tag for r in rules]
        if len(set(tags)) != len(tags):
            raise ValueError(f"risk tags given twice: {sorted(t for t in set(tags) if tags.count(t) > 1)}")
        self.rules = rules
        self.by_tag = {r.tag: r for r in rules}
        self.order: tuple[str, ...] = tuple(tags)
        worded = [r.tag for r in rules if r.words]
        chat = ordered(worded, {r.tag: r.words_before for r in rules if r.words}, what="risk tag with words")
        self.tag_words: tuple[tuple[str, Mapping[str, str]], ...] = tuple((t, self.by_tag[t].words) for t in chat)
        """``(tag, {lang: regex})`` of the rules with chat words, in the order chat reads them."""
        for r in rules:
            add_texts(r.texts)

    def __iter__(self) -> Iterator[RiskRule]:
        return iter(self.rules)

    def findings(self, ctx: RiskContext) -> tuple[RiskFinding, ...]:
        """Every rule's finding for one PR, in registry order."""
        return tuple(f for f in (r.check(ctx) for r in self.rules) if f is not None)

    def with_rule(self, rule: RiskRule) -> RiskRegistry:
        """This registry plus ``rule`` (listed last)."""
        return RiskRegistry(*self.rules, rule)


RISKS = RiskRegistry(
    revert.RULE,
    follow_up_fix.RULE,
    security_sensitive.RULE,
    changes_requested.RULE,
    review_open.RULE,
    bot_review_flag.RULE,
    assert_runtime_check.RULE,
    tests_removed.RULE,
    core_path_change.RULE,
    missing_tests.RULE,
    dependency_change.RULE,
    large_change.RULE,
    no_human_approval.RULE,
)
"""The shipped risk rules, in the order a reviewer should act: what already broke (a revert, a fix
of a fresh PR), then exposure (security), then concerns reviewers raised, then what lacks a safety
net (tests removed or missing on core and behavioural code), then what is merely big or new."""

__all__ = ["RISKS", "RiskContext", "RiskFinding", "RiskRegistry", "RiskRule"]
