"""``review-open`` (review data only): a person's review thread known to be neither resolved nor
outdated at merge (a thread of unknown state, as in the threads export, is no evidence)."""

from __future__ import annotations

from chatbot.models import PullRequest, ReviewThread
from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


def open_threads(pr: PullRequest) -> list[ReviewThread]:
    """Threads known to be unresolved and not outdated."""
    return [t for t in pr.review_threads if t.is_resolved is False and t.is_outdated is False]


def check(ctx: RiskContext) -> RiskFinding | None:
    """How many such threads and the first one's path."""
    human_open = [t for t in open_threads(ctx.pr) if not t.author_is_bot]
    if not human_open:
        return None
    path = human_open[0].path
    return RiskFinding(tag=RULE.tag, reason=phrase("reason.review_open", n=len(human_open), path=path or "-"), path=path)


RULE = RiskRule(tag="review-open", check=check)
