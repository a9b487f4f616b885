"""Domain types that every layer passes: pull requests in, digests out.

All models are frozen pydantic v2 models with ``extra="forbid"``. Datetimes are
timezone-aware; instants coming from GitHub are UTC. Line counts are lines
(additions/deletions as GitHub reports them), importance is 0.0-10.0 with one
decimal, shares are fractions 0.0-1.0 rounded to three decimals.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, field_validator

def _utc_in_range(dt: datetime) -> datetime:
    utc = dt.astimezone(timezone.utc)
    if not 1970 <= utc.year <= 2100:
        raise ValueError("date out of range (1970-2100)")
    return utc


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_utc_in_range)]
"""An aware datetime between 1970 and 2100, normalised to UTC (naive datetimes are rejected)."""

BIDI_CONTROLS = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
"""Code points of the bidirectional embedding, override and isolate controls (U+202A–U+202E,
U+2066–U+2069): in a title they can make text read backwards ("Trojan Source"), so they are
removed from every untrusted string when it enters the domain."""

CONTROL_CHARS = frozenset(c for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)] if chr(c) not in "\n\t")
"""C0 controls except newline and tab (NUL, ESC of ``\\x1b[31m`` terminal colours, CR, ...), DEL and
the C1 controls (U+0080–U+009F, where U+009B is an 8-bit CSI): they mean nothing in Markdown or HTML
and can hide or recolour text in a terminal or break a page, so they are removed from untrusted text
when it enters the domain, like :data:`BIDI_CONTROLS`."""

_STRIPPED = dict.fromkeys(BIDI_CONTROLS | CONTROL_CHARS)


def strip_bidi(text: str) -> str:
    """``text`` without bidi controls (:data:`BIDI_CONTROLS`) and control characters
    (:data:`CONTROL_CHARS`: every C0 control but ``\\n`` and ``\\t``, DEL, C1); every other character kept.

    This is the one sanitizer of untrusted PR text for every output (escaping stays per format).
    """
    return text.translate(_STRIPPED)


Untrusted = Annotated[str, AfterValidator(strip_bidi)]
"""Text from a PR (title, body, login, label, path, review text): bidi and control characters removed on validation."""


class Frozen(BaseModel):
    """Base for domain types: immutable, unknown keys rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Author(Frozen):
    """A PR author: ``login`` as GitHub (or the git export) gives it; ``is_bot`` for ``[bot]`` accounts."""

    login: Untrusted
    name: Untrusted | None = None
    is_bot: bool = False


class FileChange(Frozen):
    """One changed file of a PR: full repository path and its added/deleted line counts."""

    path: Untrusted
    additions: int = Field(default=0, ge=0)
    deletions: int = Field(default=0, ge=0)

    @property
    def lines(self) -> int:
        """Changed lines (additions + deletions)."""
        return self.additions + self.deletions


class Comment(Frozen):
    """One comment of a PR conversation or of a review thread: its author, Markdown body and date.

    ``created_at`` is UTC; excerpts in the threads export give only a date (midnight UTC).
    """

    author: Untrusted = ""
    is_bot: bool = False
    body: Untrusted = ""
    created_at: datetime | None = None


class Review(Frozen):
    """A submitted review: ``state`` as GitHub names it (APPROVED, CHANGES_REQUESTED, COMMENTED, ...).

    ``state`` is None when the source does not know it (the threads export keeps review bodies only).
    """

    reviewer: Untrusted
    is_bot: bool = False
    state: str | None = None
    submitted_at: datetime | None = None
    body: Untrusted = ""


class ReviewThread(Frozen):
    """A review thread on a path (and ``line``, None when GitHub gives none): its comments in order.

    ``is_resolved``/``is_outdated`` are the state at fetch time (GitHub source), None when the source
    does not know it (the threads export). ``author``/``author_is_bot``/``first_comment``/``created_at``
    describe the first comment.
    """

    path: Untrusted | None = None
    line: int | None = None
    is_resolved: bool | None = None
    is_outdated: bool | None = None
    author: Untrusted | None = None
    author_is_bot: bool = False
    first_comment: Untrusted = ""
    created_at: datetime | None = None
    comments: tuple[Comment, ...] = ()

    @property
    def is_open(self) -> bool:
        """True unless the thread is known to be resolved or outdated (unknown state counts as open)."""
        return self.is_resolved is not True and self.is_outdated is not True


class ReviewFinding(Frozen):
    """A review bot's finding at a reported severity (see :mod:`chatbot.review_findings`).

    ``severity`` is as the bot writes it (``high``, ``critical``, ``P1``, ``Major``); ``quote`` is
    its first words as plain text (≤ 120 characters, empty when the comment has no text);
    ``path``/``line`` locate the review thread (None for a review body, or when GitHub gives no line).
    """

    pr: int
    bot: str
    severity: str
    quote: str
    path: Untrusted | None = None
    line: int | None = None


class PullRequest(Frozen):
    """A merged pull request.

    ``merged_at`` is an aware UTC datetime. ``changed_files`` is the count GitHub reports, which can
    exceed ``len(files)`` when the file list was truncated (GitHub lists at most 3,000 files).
    ``reviews``/``review_threads``/``last_commit_at`` are only filled by the live GitHub source.
    """

    number: int = Field(gt=0, le=2_147_483_647, strict=True)
    title: Untrusted = Field(strict=True)
    url: Untrusted = ""
    body: Untrusted = ""
    author: Author | None = None
    merged_at: UtcDatetime
    labels: tuple[Untrusted, ...] = ()
    files: tuple[FileChange, ...] = ()
    additions: int = Field(default=0, ge=0)
    deletions: int = Field(default=0, ge=0)
    changed_files: int = Field(default=0, ge=0)
    co_authors: tuple[Untrusted, ...] = ()
    merge_commit: str | None = None
    reviews: tuple[Review, ...] = ()
    review_threads: tuple[ReviewThread, ...] = ()
    comments: tuple[Comment, ...] = ()
    """The PR conversation's comments (not review comments), oldest first."""
    closing_issues: tuple[int, ...] = ()
    added_asserts: tuple[str, ...] = ()
    """Paths of non-test source files whose patch adds an ``assert`` line (GitHub source only)."""
    last_commit_at: UtcDatetime | None = None
    """``committedDate`` of the PR's last commit (GitHub source only; as of fetch time)."""

    @field_validator("comments", mode="before")
    @classmethod
    def _count_only(cls, v: Any) -> Any:
        # Rows stored before comments became a list kept only a count: no comment text to restore.
        return () if isinstance(v, int) else v

    @property
    def comment_count(self) -> int:
        """How many conversation comments the PR has (derived from ``comments``)."""
        return len(self.comments)


class ContributorCount(Frozen):
    """An author and the number of merged PRs in the week."""

    login: str
    prs: int


class PathCount(Frozen):
    """A file or directory path and the number of PRs of the week that touched it."""

    path: str
    prs: int


class AnalyzedPR(Frozen):
    """A PR of the week as the digest reports it (language-neutral except ``risk_reasons`` text)."""

    number: int
    title: str
    url: str
    author: str
    importance: float
    labels: tuple[str, ...]
    modules: tuple[str, ...]
    primary_module: str
    risk_tags: tuple[str, ...]
    risk_reasons: dict[str, str]
    reverted_by: int | None
    """The revert that reverted this PR: in its week, or a later week when the input holds it."""
    additions: int
    deletions: int
    changed_files: int
    merged_at: datetime
    gist: str = ""
    """What the PR does in its own words (:mod:`chatbot.gist`; ≤ 200 characters, plain text)."""
    gist_source: str = "title"
    """``description`` when the gist comes from the PR description, ``title`` otherwise, ``model`` when
    the LLM writer worded it from the PR's facts and the validator passed it (:func:`chatbot.writer.write_summaries`)."""
    results: tuple[str, ...] = ()
    """Measured results the PR states, quoted exactly ("28.9% E2E latency improvement")."""
    facts: str = ""
    """The PR's facts line in ``lang``: modules · files · lines · risk tags."""
    findings: tuple[ReviewFinding, ...] = ()
    """Review-bot findings at a reported severity (:mod:`chatbot.review_findings`)."""
    fixed_by: tuple[int, ...] = ()
    """Bugfixes whose follow-up-fix target is this PR (the ``follow-up-fix`` rule: a bugfix citing
    it, merged from its own week's start minus 7 days), in its week or a later one the input holds."""
    is_revert: bool = False
    """This PR is a revert (a fact kept for docs-only reverts too, which get no revert advice)."""
    reverts: int | None = None
    """The PR this revert reverts, when known (by number or quoted title)."""
    author_name: str = Field(default="", exclude=True)
    """The author's display name when the record has one (``Harry Mellor`` for ``hmellor``), else ``""``.
    For the LLM writer's fact sheet and validator; not serialized, so ``--format json`` and its schema
    are unchanged."""
    risk_weights: dict[str, int] = Field(default_factory=dict, exclude=True)
    """``{tag: evidence weight}`` of the risk findings that weigh more than 0
    (:attr:`chatbot.risks.base.RiskFinding.weight`): observations name stronger evidence first;
    not serialized."""
    co_authors: tuple[str, ...] = Field(default=(), exclude=True)
    """``Co-authored-by`` names or logins, in record order, without bots and the author's own trailer;
    like ``author_name`` for the writer only, not serialized."""


class RiskItem(Frozen):
    """One risk observation: a risk ``kind`` (a risk tag id), the PRs concerned (rank order), and a detail line."""

    kind: str
    prs: tuple[int, ...]
    detail: str
    named: tuple[int, ...] = Field(default=(), exclude=True)
    """The PRs ``detail`` names (some not in ``prs``: the original of a follow-up fix, the reverted PR),
    so a recommendation names only PRs its observation showed; not part of the digest's JSON."""


class Theme(Frozen):
    """A main direction of the week: a module, its display name, its key-PR weight and cited PRs."""

    module: str
    name: str
    weight: float
    prs: tuple[int, ...]
    summary: str
    size: int = 0
    """PRs of the week in the storyline (``prs`` cites the most newsworthy of them); 0: ``len(prs)``."""

    @property
    def total(self) -> int:
        """How many PRs the storyline holds: :attr:`size`, or the cited ones when it is not set."""
        return self.size or len(self.prs)


class SentenceMark(Frozen):
    """Who wrote one sentence of the digest: ``slot`` (``headline``, ``storylines.<id>``, ``trend``,
    ``recommendations.<i>`` by position, ``prs.<n>`` a key PR's summary), ``source`` ``model`` or
    ``rules``, and the ``model``'s name when it wrote it (numbers and PR references checked)."""

    slot: str
    source: Literal["model", "rules"]
    model: str = ""


class ProseInfo(Frozen):
    """How the digest's sentences were written: by a model checked by the validator, or by rules.

    ``source`` is ``model`` (every model sentence kept), ``mixed`` (some replaced by the
    rule-written text) or ``rules`` (the model's answer was unusable, or no model was asked);
    ``kept`` counts the model's digest sentences used, ``replaced`` those that failed the checks
    (their slots keep the rule text); tokens and seconds are what the model calls cost
    (0 when the answer came from the summary cache).
    """

    source: str = "rules"
    model: str = ""
    kept: int = 0
    replaced: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    summaries: int = 0
    """Key-PR summaries the model wrote that passed the validator (gists with ``gist_source == "model"``)."""
    summaries_rules: int = 0
    """Key-PR summaries that fell back to the extractive gist (answer failed the check, or model error)."""
    summaries_cached: int = 0
    """Key-PR summaries taken from the summary cache (0 tokens)."""
    summaries_failed: int = 0
    """Key-PR summaries the model wrote that failed the checks twice (counted in ``summaries_rules``)."""
    sentences: tuple[SentenceMark, ...] = ()
    """Each sentence the writer could word, in digest order, with who wrote it."""
    calls: int = 0
    """Chat completions requested in this run (0 when everything came from the cache)."""


class Recommendation(Frozen):
    """An actionable follow-up naming the PRs and/or modules it comes from."""

    text: str
    prs: tuple[int, ...] = ()
    modules: tuple[str, ...] = ()


class ModuleStat(Frozen):
    """Activity of one module in the week: PR count and churn (added + deleted lines)."""

    module: str
    name: str
    prs: int
    additions: int
    deletions: int


# The digest written in one language: what renderers read and what ``--format json`` prints (schema
# docs/digest.schema.json, titled "Digest"; the docstring below is the schema's description, kept as
# it was). It is made only at output time from the language-neutral ``chatbot.digest.Digest`` that
# services pass around (``chatbot.digest.write``).
class DigestText(Frozen):
    """The weekly digest of merged PRs of one repository in one ISO week.

    ``start``/``end`` delimit the half-open window ``[start, end)`` in ``tz``. Counts are PR counts,
    ordered by count descending then key. ``prs`` is in number order, ``key_prs`` in importance
    order (ties: number ascending). Free text (reasons, details, themes, recommendations) is in
    ``lang``; everything else is language-neutral.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", title="Digest")

    repo: str
    week: str
    tz: str
    lang: str
    start: datetime
    end: datetime
    generated_at: datetime | None = None
    total_prs: int
    skipped_records: int = 0
    avg_importance: float
    label_counts: dict[str, int]
    module_counts: dict[str, int]
    risk_tag_counts: dict[str, int]
    module_stats: tuple[ModuleStat, ...]
    prs: tuple[AnalyzedPR, ...]
    key_prs: tuple[AnalyzedPR, ...]
    risks: tuple[RiskItem, ...]
    contributors: tuple[ContributorCount, ...]
    hot_files: tuple[PathCount, ...]
    hot_dirs: tuple[PathCount, ...]
    themes: tuple[Theme, ...]
    recommendations: tuple[Recommendation, ...]
    reverted: tuple[int, ...]
    ai_coauthor_share: float
    bot_coauthor_share: float
    module_names: dict[str, str]
    """Display name of every module id in the digest, in ``lang``."""
    vocabulary: dict[str, tuple[str, ...]] = Field(default_factory=dict, exclude=True)
    """The names the rules give each label, module and storyline topic, by ``labels.<name>``,
    ``modules.<id>`` and ``topics.<id>`` (display names in every language, aliases, prefix aliases):
    what the LLM writer's validator reads as a label, module or platform name. Not serialized, so
    ``--format json`` and its schema are unchanged."""
    headline: str = ""
    """One-line headline of the week in ``lang`` (rule-written, or model-written and validated)."""
    trend_text: str = ""
    """A module-trend paragraph written by the model (validated); empty without one."""
    prose: ProseInfo | None = None
    """Set when the LLM writer was asked (None: rule-written only, no model configured)."""

    @property
    def reverted_in_week(self) -> tuple[int, ...]:
        """The PRs of :attr:`reverted` reverted within the window (the rest: :attr:`reverted_later`)."""
        later = set(self.reverted_later)
        return tuple(n for n in self.reverted if n not in later)

    @property
    def reverted_later(self) -> tuple[int, ...]:
        """The PRs of :attr:`reverted` whose revert was merged after the window (a later week the
        input or store holds), in number order; the others were reverted within the week."""
        week = {p.number for p in self.prs}
        return tuple(p.number for p in self.prs
                     if p.number in self.reverted and p.reverted_by is not None and p.reverted_by not in week)


class Prose(Frozen):
    """What the optional step between analysis and rendering (:data:`chatbot.digest_service.DigestStep`,
    e.g. the LLM writer) wrote in one language: the sentences it may replace, and how they were written.

    Kept per language in the neutral digest and laid over the rule-written text at output time
    (:meth:`apply`). ``storylines`` maps a theme's ``module`` key to its sentence.
    """

    headline: str = ""
    trend_text: str = ""
    storylines: dict[str, str] = {}
    recommendations: tuple[Recommendation, ...] = ()
    info: ProseInfo | None = None
    summaries: dict[int, str] = {}
    """Model-written, validated one-sentence summaries of key PRs by PR number (shown as their gist)."""

    @classmethod
    def of(cls, d: DigestText) -> Prose:
        """The prose fields of a written digest (what a step returned)."""
        return cls(headline=d.headline, trend_text=d.trend_text, storylines={t.module: t.summary for t in d.themes},
                   recommendations=d.recommendations, info=d.prose,
                   summaries={p.number: p.gist for p in d.key_prs if p.gist_source == "model"})

    def apply(self, d: DigestText) -> DigestText:
        """``d`` with these sentences: headline, trend, recommendations, the storylines named, the info,
        and the PR summaries as the gists of their PRs (``gist_source = "model"``)."""
        themes = tuple(t.model_copy(update={"summary": self.storylines[t.module]}) if t.module in self.storylines
                       else t for t in d.themes)
        update: dict[str, object] = {"headline": self.headline, "themes": themes, "trend_text": self.trend_text,
                                     "recommendations": self.recommendations, "prose": self.info}
        if self.summaries:
            def worded(p: AnalyzedPR) -> AnalyzedPR:
                text = self.summaries.get(p.number)
                return p if text is None else p.model_copy(update={"gist": text, "gist_source": "model"})
            update["prs"] = tuple(worded(p) for p in d.prs)
            update["key_prs"] = tuple(worded(p) for p in d.key_prs)
        return d.model_copy(update=update)
