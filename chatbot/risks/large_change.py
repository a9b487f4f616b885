"""``large-change``: more files than ``thresholds.large_change_files`` or more lines than
``thresholds.large_change_lines``, or a truncated file list (GitHub lists fewer files than changed).

Files under ``data_paths`` (tuned kernel configs, ...) and ``test_paths`` are left out of both
counts: W19's #40850 changes 13 files, +31,837/-27,941 lines, of which 58,974 lines are Helion
configs; W27's #46076 adds 1,996 lines of which 951 are one new test, and tests are what makes a
large change safer to review, not harder."""

from __future__ import annotations

from chatbot.i18n import lines_text
from chatbot.phrases import Phrase, phrase
from chatbot.risks.base import RiskContext, RiskFinding, RiskRule, file_lines, largest


def check(ctx: RiskContext) -> RiskFinding | None:
    """File and line totals with the largest file; the truncation when the list is cut."""
    pr, th = ctx.pr, ctx.rules.rules.thresholds
    left_out = ctx.data + ctx.tests
    ids = {id(f) for f in left_out}
    files = [f for f in pr.files if id(f) not in ids]
    adds = max(pr.additions - sum(f.additions for f in left_out), sum(f.additions for f in files))
    dels = max(pr.deletions - sum(f.deletions for f in left_out), sum(f.deletions for f in files))
    n_files = max(pr.changed_files - len(left_out), len(files))
    n_lines = adds + dels
    truncated = pr.changed_files > len(pr.files) > 0  # no file list at all is unknown, not truncated
    if not (n_files > th.large_change_files or n_lines > th.large_change_lines or truncated):
        return None
    top = largest(files)
    parts: list[Phrase] = []
    if top is not None:
        parts.append(phrase("reason.large", files=f"{n_files:,}", lines=lines_text(adds, dels),
                            path=top.path, flines=file_lines(top)))
    if truncated:
        parts.append(phrase("reason.truncated", changed=f"{pr.changed_files:,}", listed=f"{len(pr.files):,}"))
    reason = parts[0] if len(parts) == 1 else phrase("reason.both", first=parts[0], second=parts[1])
    return RiskFinding(tag=RULE.tag, reason=reason, path=top.path if top else None,
                       additions=top.additions if top else 0, deletions=top.deletions if top else 0)


RULE = RiskRule(tag="large-change", check=check,
                words={"en": r"\blarge(?: changes?| prs?)?\b|\bbig (?:changes?|prs?)\b|\bhuge\b",
                       "zh": "大改动|大型改动|大规模|大的改动|大改"},
                words_before=("dependency-change",))
