"""``changes-requested`` (GitHub source only): a person's latest review asked for changes and no
commit was pushed after it before the merge (the PR's last commit is older than that review).

Evidence needed: review states with submission times and the last commit's ``committedDate``
(:attr:`chatbot.models.PullRequest.last_commit_at`); the threads export has neither, so it never
gets this tag. A later review by the same person (an approval, a comment-only review) replaces
the request; bots' reviews do not count.
"""

from __future__ import annotations

from chatbot.models import PullRequest, Review
from chatbot.phrases import phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule


def standing_requests(pr: PullRequest) -> list[Review]:
    """Each person's latest review when it is CHANGES_REQUESTED, submitted after the last commit
    (oldest first); [] when the last commit or the review times are unknown."""
    if pr.last_commit_at is None:
        return []
    latest: dict[str, Review] = {}
    for r in sorted((r for r in pr.reviews if r.submitted_at is not None and not r.is_bot and r.state is not None
                     and r.state != "PENDING"), key=lambda r: r.submitted_at or pr.merged_at):
        latest[r.reviewer] = r
    return [r for r in latest.values()
            if r.state == "CHANGES_REQUESTED" and r.submitted_at is not None and r.submitted_at > pr.last_commit_at]


def check(ctx: RiskContext) -> RiskFinding | None:
    """The first such reviewer, the review's date and how many reviewers asked."""
    standing = standing_requests(ctx.pr)
    if not standing:
        return None
    first = standing[0]
    when = f"{first.submitted_at:%m-%d}" if first.submitted_at else "-"
    return RiskFinding(tag=RULE.tag, reason=phrase("reason.changes_requested", reviewer=first.reviewer, date=when,
                                                   n=len(standing)))


RULE = RiskRule(tag="changes-requested", check=check, texts={
    "en": {"risk.changes-requested": "changes requested, no later commit",
           "reason.changes_requested": "{reviewer} requested changes on {date} ({n} reviewer(s) in all); no commit after it before the merge",
           "rec.changes-requested": "Ask whether the changes requested on {target} were made elsewhere; if not, open follow-up PRs.",
           "obs.changes-requested": "{n} PR(s) merged with a change request no later commit answered ({items}): the requested fix may be missing."},
    "zh": {"risk.changes-requested": "要求修改后无新提交",
           "reason.changes_requested": "{reviewer} 于 {date} 要求修改（共 {n} 位评审者），此后到合并前没有新提交",
           "rec.changes-requested": "确认 {target} 上要求的修改是否已在别处完成；若没有，请提交后续 PR。",
           "obs.changes-requested": "{n} 个 PR 在评审者要求修改后没有新提交就合并了（{items}）：要求的修复可能缺失。"},
})
