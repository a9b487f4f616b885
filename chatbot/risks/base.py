"""What a risk rule is: a tag, a check over one PR that returns a :class:`RiskFinding` (data, no
language) or None, and whether the tag counts for importance. The week's observation of a rule is
one sentence (:mod:`chatbot.risks.observations`, text ``obs.<tag>``).

A rule's reason templates are the catalog keys its findings use (``reason.*``); a rule that
brings new keys declares them in ``texts`` (``{lang: {key: template}}``), so a rule is one module
plus one line in :data:`chatbot.risks.RISKS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from chatbot.globs import PathMatcher
from chatbot.i18n import lines_text
from chatbot.models import FileChange, PullRequest
from chatbot.phrases import Phrase, phrase
from chatbot.rules import CompiledRules


class RiskFinding(BaseModel):
    """One risk of one PR, as data: ``tag``, the ``reason`` phrase, and the facts it cites — the
    ``path`` it names with that file's ``additions``/``deletions`` (lines), and ``ref_number``, the
    PR it refers to (reverted or fixed PR), when any. ``weight`` is how strong the evidence is
    (0: the rule's weakest kind; higher is stronger): an observation names its PRs strongest first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tag: str
    reason: Phrase
    path: str | None = None
    additions: int = 0
    deletions: int = 0
    ref_number: int | None = None
    weight: int = 0


@dataclass(frozen=True)
class RiskContext:
    """What a check sees of one PR: the PR, its labels, its files split by path class (one pass
    over the files, in file order), the compiled rules, and the links the week gives it.

    ``follow_up`` is the (number, merged_at UTC) of the recent PR this bugfix fixes, if any.
    """

    pr: PullRequest
    labels: tuple[str, ...]
    rules: CompiledRules
    is_revert: bool
    follow_up: tuple[int, datetime] | None
    core: tuple[FileChange, ...] = ()
    source: tuple[FileChange, ...] = ()
    tests: tuple[FileChange, ...] = ()
    dependency: tuple[FileChange, ...] = ()
    security: tuple[FileChange, ...] = ()
    data: tuple[FileChange, ...] = ()
    """Files under ``data_paths`` (left out of every other class: no churn, importance or size)."""


Check = Callable[[RiskContext], "RiskFinding | None"]


@dataclass(frozen=True)
class RiskRule:
    """A risk rule (one module under ``chatbot/risks``, one line in the registry).

    Args:
        tag: the risk tag id (``[a-z-]+``), shown through the catalog key ``risk.<tag>``.
        check: the PR's finding, or None.
        counts_for_importance: whether the tag adds ``importance.risk_tag`` points (False for tags
            that could make the score fall as a PR grows, see :func:`chatbot.analysis.importance`).
        texts: catalog entries the rule brings, ``{lang: {key: template}}`` (``risk.<tag>``,
            ``rec.<tag>``, its ``reason.*``); the shipped rules keep theirs in the catalogs.
        words: what people call the tag in chat, ``{lang: regex source}`` searched in cleaned
            text (``{"en": r"\\bhotfix(?:es)?\\b", "zh": "紧急修复"}``): a message naming it asks
            for the tag (:mod:`chatbot.entities`, the ``risk_tag`` intent); ``{}``: chat does not
            name it.
        words_before: tags whose words this rule's words are read before (the first tag a
            message names is the one it asks about; each tag's words are then cut from the
            text): :attr:`RiskRegistry.tag_words` orders the words by these constraints, and by
            the registry's order where none applies.
    """

    tag: str
    check: Check
    counts_for_importance: bool = True
    texts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)
    words_before: tuple[str, ...] = ()


def largest(files: Iterable[FileChange]) -> FileChange | None:
    """The file with the most changed lines (ties: path order), or None."""
    best: FileChange | None = None
    for f in files:
        if best is None or f.lines > best.lines or (f.lines == best.lines and f.path < best.path):
            best = f
    return best


def file_lines(f: FileChange) -> str:
    """``+a/-d`` of one file."""
    return lines_text(f.additions, f.deletions)


def with_more(reason: Phrase, extra: int) -> Phrase:
    """``reason`` followed by "and N more" when ``extra`` > 0."""
    return phrase("reason.more_files", text=reason, n=extra) if extra > 0 else reason


def file_finding(tag: str, key: str, files: tuple[FileChange, ...], *, more: bool = True) -> RiskFinding | None:
    """The finding naming the largest of ``files`` (``{path}``, ``{lines}``), "and N more" when
    ``more``; None when ``files`` is empty."""
    top = largest(files)
    if top is None:
        return None
    reason = phrase(key, path=top.path, lines=file_lines(top))
    return RiskFinding(tag=tag, reason=with_more(reason, len(files) - 1) if more else reason,
                       path=top.path, additions=top.additions, deletions=top.deletions)
