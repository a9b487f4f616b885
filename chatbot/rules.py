"""Per-repository rules: how a PR's title and paths become labels, modules and risk tags.

A rules file is YAML validated by :class:`Rules` (pydantic, ``extra="forbid"``). prhub ships
``vllm.yaml`` (written from ``docs/vllm-modules.md``; default for ``vllm-project/vllm``) and
``generic.yaml`` (any other repository). ``prhub rules schema`` prints the JSON schema.

Label rules are ordered (release-drafter style): labels keep the file's order in every output
that has no count to sort by. Modules come from paths only; a path may fall in several modules;
a PR with no matching path is in the implicit module ``other``. Path globs are gitignore-style
(see :mod:`chatbot.globs`); title patterns are Python regular expressions searched in the title.
"""

from __future__ import annotations

import re
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from chatbot.errors import RulesError
from chatbot.i18n import DEFAULT_LANG, langs, tr
from chatbot.yamlfile import load_yaml
from chatbot.globs import MultiPathMatcher, PathMatcher, glob_to_regex

OTHER_MODULE = "other"

_RULESETS = "rulesets"


class _RulesModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _check_globs(globs: tuple[str, ...]) -> tuple[str, ...]:
    for g in globs:
        try:
            re.compile(glob_to_regex(g))
        except RulesError as exc:
            raise ValueError(exc.user_message) from None
        except re.error as exc:
            raise ValueError(f"invalid path glob {g!r}: {exc}") from None
    return globs


TITLE_MATCH_CHARS = 300
"""Characters of a PR title the rules' title regexes are matched against (the first ones): a bound on
the work an untrusted title can cause (GitHub titles reach 256 characters; exports can hold more)."""


def _nested_repeat(pattern: str) -> str | None:
    """The source of the first unbounded repeat that holds another unbounded repeat in ``pattern``
    (``(a+)+``, ``(?:x*y)*``, ``(\\w+\\s?){2,}``), None when there is none. Such a pattern can take
    time exponential in the text length on a text that almost matches (catastrophic backtracking:
    ``(a+)+$`` on 28 characters of ``a`` then ``!`` took 14 s). Possessive repeats and atomic groups
    never backtrack and are allowed. Read with Python's own regex parser (``re._parser``)."""
    from re import _constants as c, _parser  # type: ignore[attr-defined]

    unbounded = (c.MAX_REPEAT, c.MIN_REPEAT)

    def items(tree: Any) -> Any:
        for op, av in tree:
            yield op, av
            if op in unbounded or op == c.POSSESSIVE_REPEAT:
                continue
            if op is c.SUBPATTERN:
                yield from items(av[-1])
            elif op is c.BRANCH:
                for alt in av[1]:
                    yield from items(alt)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                yield from items(av[1])
            elif op is c.GROUPREF_EXISTS:
                for alt in av[1:]:
                    if alt is not None:
                        yield from items(alt)

    def has_unbounded(tree: Any) -> bool:
        return any(op in unbounded and (av[1] == c.MAXREPEAT or has_unbounded(av[2])) for op, av in items(tree))

    def find(tree: Any) -> bool:
        for op, av in items(tree):
            if op in unbounded:
                if av[1] == c.MAXREPEAT and has_unbounded(av[2]):
                    return True
                if find(av[2]):
                    return True
        return False

    return pattern if find(_parser.parse(pattern)) else None


def _check_regexes(patterns: tuple[str, ...]) -> tuple[str, ...]:
    for p in patterns:
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {p!r}: {exc}") from None
        if _nested_repeat(p) is not None:
            raise ValueError(f"regular expression {p!r} nests an unbounded repeat inside another (like (a+)+): "
                             "matching can take exponential time on a long title; rewrite it without the inner "
                             "repeat (e.g. a+ for (a+)+), bound one of them ({1,20}) or make the outer one "
                             "possessive (++, *+)")
    return patterns


Globs = Annotated[tuple[str, ...], AfterValidator(_check_globs)]
"""Gitignore-style path globs (validated when the rules load)."""
Regexes = Annotated[tuple[str, ...], AfterValidator(_check_regexes)]
"""Python regular expressions (validated when the rules load)."""


class LabelRule(_RulesModel):
    """A label given when a changed path matches ``paths`` (minus ``exclude``) or the title matches ``titles``."""

    name: str = Field(min_length=1)
    paths: Globs = ()
    exclude: Globs = ()
    titles: Regexes = Field(default=(), description="regular expressions searched in the title")
    requires: Globs = Field(default=(), description=(
        "paths of which the PR must change one for a title match to count (new-model: the model "
        "registry, so that a title saying 'Add' about a model's kernel is not a new model)"))



def _names(value: Any) -> Any:
    """A display name as written in a rules file: a plain string is the English name."""
    return {DEFAULT_LANG: value} if isinstance(value, str) else value


def _known_langs(names: dict[str, str]) -> dict[str, str]:
    unknown = sorted(set(names) - set(langs()))
    if unknown:
        raise ValueError(f"display name in unknown language {unknown[0]!r}: use {', '.join(langs())} "
                         "(the languages of chatbot/catalogs)")
    if not all(v.strip() for v in names.values()):
        raise ValueError("display names must not be empty")
    return names


DisplayNames = Annotated[dict[str, str], BeforeValidator(_names), AfterValidator(_known_langs)]
"""Display names by language, ``{en: speculative decoding, zh: 投机解码}`` (any language with a
catalog in ``chatbot/catalogs``); a plain string is the English name."""


def display_name(names: dict[str, str], lang: str, default: str) -> str:
    """``names`` in ``lang``, else in English, else ``default``."""
    return names.get(lang) or names.get(DEFAULT_LANG) or default


class _Named(_RulesModel):
    """A rules entry with an ``id`` and display names ``name`` (modules, topics)."""

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9._/-]*$")
    name: DisplayNames

    @model_validator(mode="before")
    @classmethod
    def _legacy_zh(cls, data: Any) -> Any:
        """The old form ``name: X`` + ``zh: Y`` of rules files written before names became
        ``{en: X, zh: Y}``: still read, as ``name: {en: X, zh: Y}``."""
        if isinstance(data, dict) and "zh" in data:
            data = dict(data)
            zh = data.pop("zh")
            if zh is not None:
                names = _names(data.get("name"))
                if names is not None and not isinstance(names, dict):
                    return data  # let the field's own validation report the bad name
                data["name"] = {**(names or {}), "zh": zh}
        return data

    def display(self, lang: str) -> str:
        """Display name in ``lang`` (a language of :func:`chatbot.i18n.langs`): English when there
        is none in ``lang``, the id when there is no English one either."""
        return display_name(self.name, lang, self.id)


class ModuleRule(_Named):
    """A module: an id (used in subscriptions and JSON), display names, and the paths it owns.

    ``name`` is ``{en: …, zh: …}`` (any language with a catalog; a missing language falls back to
    English, a missing English name to the id). The old form ``name: X`` + ``zh: Y`` still parses.
    """

    name: DisplayNames = Field(default_factory=dict, description="display names by language, {en: ..., zh: ...} "
                               "(a plain string is the English name); default: the id")
    aliases: tuple[str, ...] = Field(default=(), description="extra names people use in chat queries")
    paths: Globs = Field(min_length=1)
    exclude: Globs = ()

    @field_validator("id")
    @classmethod
    def _not_other(cls, v: str) -> str:
        if v == OTHER_MODULE:
            raise ValueError("'other' is the implicit module of unmatched PRs: pick another id")
        return v


class TopicRule(_Named):
    """A storyline topic: an id, display names, and the aliases that put a PR in it by its title.

    Aliases (and the English name) are found in the title as whole words, case-insensitive.
    ``name`` is ``{en: …, zh: …}`` like a module's (English required); the old ``zh:`` key still parses.
    """

    name: DisplayNames = Field(description="display names by language, {en: ..., zh: ...}; English required")
    aliases: tuple[str, ...] = Field(default=(), description="other spellings found in titles (DSv4, DeepSeek V4)")
    paths: Globs = Field(default=(), description=(
        "paths that put a PR in this topic when they hold at least half of its changed lines (rust/**)"))
    titles: Regexes = Field(default=(), description=(
        "regular expressions (case-insensitive, no inline flags) searched in the title that put a PR in this topic"))
    requires: Globs = Field(default=(), description=(
        "paths of which the PR must change one to join this topic (dependency updates: a manifest or build input)"))
    always: bool = Field(default=False, description=(
        "kept beside the ranked storylines whenever it has two PRs (dependency updates), like hardening"))

    @field_validator("name")
    @classmethod
    def _has_english(cls, v: dict[str, str]) -> dict[str, str]:
        if DEFAULT_LANG not in v:
            raise ValueError(f"a topic needs an English name ({DEFAULT_LANG}: ...)")
        return v

    @property
    def en(self) -> str:
        """The English name (also matched in titles)."""
        return self.name[DEFAULT_LANG]


class FindingRule(_RulesModel):
    """How one review bot marks the severity of a finding, and which severities are risks.

    ``severity`` is a regular expression with a named group ``severity`` searched in each comment
    the bot writes (review-thread comments and review bodies); ``report`` lists the severities
    (compared case-folded) that make the finding a risk item.
    """

    bot: str = Field(min_length=1, description="the bot's login as GitHub shows it, e.g. gemini-code-assist[bot]")
    severity: str = Field(min_length=1, description="regular expression with a (?P<severity>...) group")
    report: tuple[str, ...] = Field(min_length=1, description="severities that are risks, e.g. [critical, high]")

    @field_validator("severity")
    @classmethod
    def _has_group(cls, v: str) -> str:
        try:
            rx = re.compile(v)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {v!r}: {exc}") from None
        if "severity" not in rx.groupindex:
            raise ValueError(f"pattern {v!r} has no (?P<severity>...) group")
        return v


DEFAULT_FINDING_RULES: tuple[FindingRule, ...] = (
    # gemini-code-assist starts a comment with ![high](https://www.gstatic.com/codereviewagent/high-priority.svg)
    FindingRule(bot="gemini-code-assist[bot]",
                severity=r"!\[(?P<severity>critical|high|medium|low)\]\(https://www\.gstatic\.com/codereviewagent/",
                report=("critical", "high")),
    # chatgpt-codex-connector: **<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>
    FindingRule(bot="chatgpt-codex-connector[bot]", severity=r"!\[(?P<severity>P[0-3]) Badge\]", report=("p0", "p1")),
    # coderabbitai: _⚠️ Potential issue_ | _🟠 Major_
    FindingRule(bot="coderabbitai[bot]", severity=r"_(?:🔴|🟠|🟡|🔵|⚪)\s*(?P<severity>Critical|Major|Minor|Trivial)_",
                report=("critical", "major")),
)
"""Review-bot severity markup as the bots write it on GitHub (see ../shared/README.md)."""


class Thresholds(_RulesModel):
    """Numbers behind risk tags and digest sections. Defaults are prhub's documented defaults."""

    missing_tests_min_lines: int = Field(
        default=30, ge=1, description="missing-tests: lines added to behavioural source, with no test path changed"
    )
    tests_removed_min_lines: int = Field(default=50, ge=1, description="tests-removed: net-removed test lines")
    large_change_files: int = Field(default=30, ge=1,
                                    description="large-change: more changed files than this, tests and data left out")
    large_change_lines: int = Field(default=1000, ge=1,
                                    description="large-change: more changed lines than this, tests and data left out")
    core_path_min_lines: int = Field(default=1, ge=1, description="core-path-change: changed lines in core paths, at least")
    risk_observations: int = Field(default=8, ge=1, le=20,
                                   description="risk observations at most in a digest (the report's appendix lists every PR)")
    review_quotes: int = Field(default=3, ge=1, le=10,
                               description="bot findings quoted in the week's one review-findings observation")
    recommendations: int = Field(default=6, ge=1, le=12, description="recommendations at most in a digest")
    hot_paths: int = Field(default=10, ge=1, description="entries in hot_files and hot_dirs")
    contributors: int = Field(default=10, ge=1, description="contributors shown in rendered text")
    themes_max: int = Field(default=6, ge=2, le=8, description=(
        "storylines at most (at least 2 when the data allows), the hardening storyline aside"))
    storyline_prs: int = Field(default=5, ge=3, le=5, description="PRs a storyline cites (its most important ones)")
    risk_prs_shown: int = Field(default=6, ge=1, description="PRs named per risk item in rendered text")


class ImportanceWeights(_RulesModel):
    """Weights of the importance score (see :func:`chatbot.analysis.importance`)."""

    size: float = Field(default=3.0, ge=0, description="max points for code lines (log scale, saturates at size_lines)")
    size_lines: int = Field(default=3000, ge=10)
    files: float = Field(default=1.0, ge=0, description="max points for code files (log scale, saturates at files_count)")
    files_count: int = Field(default=40, ge=2)
    core: float = Field(default=2.0, ge=0, description="max points for core-path files: half at 1 file, full at 3+")
    risk_tag: float = Field(default=0.4, ge=0, description="points per risk tag other than core-path-change")
    risk_max: float = Field(default=1.6, ge=0)
    module: float = Field(default=0.3, ge=0, description="points per module beyond the first")
    module_max: float = Field(default=0.9, ge=0)
    label_bonus: dict[str, float] = Field(
        default_factory=lambda: {"feature": 1.0, "new-model": 1.0, "model": 1.0, "performance": 1.0},
        description="points per label; their sum is capped at label_max",
    )
    label_max: float = Field(default=2.0, ge=0)
    non_code_cap: float = Field(default=1.5, ge=0, description="cap for docs-only and CI-only PRs")
    # Newsworthiness (issue 17): what a reader of a weekly report cares about, beside size.
    capability: float = Field(default=1.5, ge=0, description=(
        "a new capability: a title matching capability_titles, or a new source file (one of at least "
        "new_file_lines added lines and none deleted)"))
    capability_titles: Regexes = Field(default=(
        r"(?i)^\s*(?:\[[^\]]*\]\s*:?\s*){0,6}(?:add|support|introduc|enabl|implement|new)\w*\b",),
        description="regular expressions over the title that announce a new capability")
    new_file_lines: int = Field(default=80, ge=1, description="added lines (none deleted) that make a file new")
    result: float = Field(default=1.0, ge=0, description="the description states a measured result (gist.measured_results)")
    changed_default: float = Field(default=1.0, ge=0, description="the title changes a default or removes support")
    changed_default_titles: Regexes = Field(default=(
        r"(?i)\bby default\b|\bdefault (?:to|on|off)\b|\bdeprecat\w*|\b(?:remove|drop)\w* support\b",),
        description="regular expressions over the title that say a default or a support changed")
    security: float = Field(default=1.0, ge=0, description="the PR is security-sensitive (its risk tag)")
    series: float = Field(default=0.5, ge=0, description="the title marks a part of a series ([2/n], Part 2)")
    follow_up: float = Field(default=0.5, ge=0, description="a follow-up fix of a PR merged the same week or the one before")


class Rules(_RulesModel):
    """A repository's rules file.

    Raises (through :func:`load_rules`): RulesError naming the file and the key that fails.
    """

    repositories: tuple[str, ...] = Field(
        default=(), description="owner/name of the repositories these shipped rules are the default for"
    )
    labels: tuple[LabelRule, ...] = ()
    prefix_aliases: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="label <- title bracket prefixes, compared trimmed and case-folded"
    )
    modules: tuple[ModuleRule, ...] = ()
    other_module: DisplayNames = Field(
        default_factory=lambda: {lang: tr(lang, "module.other") for lang in langs()},
        description="display names of the implicit module (default: each catalog's ``module.other``)"
    )
    core_paths: Globs = ()
    source_paths: Globs = Field(default=(), description=(
        "behavioural source (code whose change needs a test): what missing-tests reads"))
    source_exclude: Globs = Field(default=(), description="paths under source_paths that are not behavioural (benchmarks)")
    test_paths: Globs = ()
    dependency_paths: Globs = ()
    docs_paths: Globs = Field(default=(), description="a PR touching only these is docs-only")
    ci_paths: Globs = Field(default=(), description="a PR touching only these (and docs) is CI-only")
    security_paths: Globs = ()
    data_paths: Globs = Field(default=(), description=(
        "data and config files (tuned kernel configs, ...): left out of churn, importance and large-change"))
    security_keywords: Regexes = Field(default=(), description="regular expressions searched in title and body")
    ai_coauthor_patterns: Regexes = Field(default=(), description="regular expressions over co-author names")
    bot_coauthor_patterns: Regexes = (r"\[bot\]$",)
    topics: tuple[TopicRule, ...] = Field(
        default=(), description="storyline topics, tried in order before the module fallback"
    )
    review_findings: tuple[FindingRule, ...] = Field(
        default=DEFAULT_FINDING_RULES, description="review bots and the severities of theirs that are risks"
    )
    review_nits: Regexes = Field(default=(), description=(
        "regular expressions (case-insensitive) over a bot finding's first sentence that make it a nit "
        "(style, formatting, typo, naming): never a risk"))
    thresholds: Thresholds = Thresholds()
    importance: ImportanceWeights = ImportanceWeights()
    key_prs: int = Field(default=24, ge=1, le=100)

    @model_validator(mode="after")
    def _unique_modules(self) -> Rules:
        seen: set[str] = set()
        for m in self.modules:
            if m.id in seen:
                raise ValueError(f"module id {m.id!r} appears twice")
            seen.add(m.id)
        return self

    @cached_property
    def compiled(self) -> CompiledRules:
        """The rules with globs and regexes compiled (built once per Rules object)."""
        return CompiledRules(self)

    def module_display(self, module_id: str, lang: str) -> str:
        """Display name of a module id (or ``other``) in ``lang``."""
        for m in self.modules:
            if m.id == module_id:
                return m.display(lang)
        if module_id == OTHER_MODULE:
            return display_name(self.other_module, lang, OTHER_MODULE)
        return module_id


_GLOBAL_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")


def _scoped(pattern: str) -> str:
    """Rewrite leading global inline flags ``(?i)x`` as a scoped group ``(?i:x)`` so that several
    patterns can share one regex."""
    m = _GLOBAL_FLAGS.match(pattern)
    if m is None:
        return f"(?:{pattern})"
    return f"(?{m.group(1)}:{pattern[m.end():]})"


class RegexSet:
    """Several regular expressions (each may carry its own leading inline flags).

    ``search`` finds the leftmost match of any pattern in one call of the regex engine (patterns
    are combined with scoped flags); ``matching`` tells which patterns match.
    """

    __slots__ = ("patterns", "_any", "_needs")

    def __init__(self, patterns: tuple[str, ...], flags: int = 0) -> None:
        self.patterns = tuple(re.compile(p, flags) for p in patterns)
        self._any = re.compile("|".join(_scoped(p) for p in patterns), flags)
        self._needs = tuple(_required_literal(p, flags) for p in patterns)

    def search(self, text: str) -> re.Match[str] | None:
        """The leftmost match of any of the patterns in ``text``, or None."""
        return self._any.search(text)

    def matching(self, text: str) -> tuple[int, ...]:
        """Indexes of the patterns that match somewhere in ``text``.

        A pattern that starts with a literal (``(?i)\\bqwen``) is searched only when that literal
        occurs in the text (a substring test is far cheaper than a regex search).
        """
        ascii_text = text.isascii()  # case-folding non-ASCII text can split letters (İ -> i̇)
        folded = text.casefold()
        out: list[int] = []
        for i, (rx, need) in enumerate(zip(self.patterns, self._needs)):
            if need is not None and (ascii_text or not need[1]):
                literal, nocase = need
                if literal not in (folded if nocase else text):
                    continue
            if rx.search(text) is not None:
                out.append(i)
        return tuple(out)


_LITERAL_CHAR = re.compile(r"[A-Za-z0-9 _-]")


def _required_literal(pattern: str, flags: int) -> tuple[str, bool] | None:
    """A literal every match of ``pattern`` contains, read from the pattern's start, and whether it
    compares case-insensitively; None when the pattern does not start with one (or has a top-level
    alternation). ``(?i)\\bqwen`` -> ("qwen", True); ``(?i)\\bspec(ulative)?`` -> ("spec", True)."""
    nocase = bool(flags & re.IGNORECASE)
    m = _GLOBAL_FLAGS.match(pattern)
    body = pattern[m.end():] if m else pattern
    if m and "i" in m.group(1):
        nocase = True
    if flags & re.VERBOSE or (m and "x" in m.group(1)):
        return None
    depth = 0
    escaped = False
    for ch in body:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            return None
    body = body.removeprefix("^")
    while body.startswith("\\b"):
        body = body[2:]
    chars: list[str] = []
    for i, ch in enumerate(body):
        if not _LITERAL_CHAR.fullmatch(ch):
            if ch in "?*{" and chars:
                chars.pop()
            break
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in ("?", "*", "{"):
            break
        chars.append(ch)
    literal = "".join(chars)
    if len(literal) < 2:
        return None
    return (literal.casefold(), True) if nocase else (literal, False)


def _any_regex(patterns: tuple[str, ...], flags: int = 0) -> RegexSet | None:
    return RegexSet(patterns, flags) if patterns else None


class CompiledRules:
    """Compiled matchers for one :class:`Rules` (pure, immutable after construction)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.memo: dict[str, Any] = {}
        """Memo tables of pure functions of these rules (e.g. path -> facts), owned by their users."""
        self.label_path_names = tuple(r.name for r in rules.labels if r.paths)
        title_rules = [(r.name, t) for r in rules.labels for t in r.titles]
        self.title_label_names = tuple(name for name, _ in title_rules)
        self.title_patterns = RegexSet(tuple(t for _, t in title_rules)) if title_rules else None
        imp = rules.importance
        self.capability_titles = _any_regex(imp.capability_titles, 0)
        self.changed_default_titles = _any_regex(imp.changed_default_titles, 0)
        self.title_requires = {r.name: PathMatcher(r.requires) for r in rules.labels if r.requires}
        """label -> the paths one of which a PR must change for that label's title rules to count."""
        self.label_order: dict[str, int] = {}
        for name in [r.name for r in rules.labels] + list(rules.prefix_aliases):
            self.label_order.setdefault(name, len(self.label_order))
        self.prefix_to_label: dict[str, list[str]] = {}
        for label, prefixes in rules.prefix_aliases.items():
            for p in prefixes:
                key = " ".join(p.split()).casefold()
                labels = self.prefix_to_label.setdefault(key, [])
                if label not in labels:
                    labels.append(label)
        self.module_ids = tuple(m.id for m in rules.modules)
        self.module_order = {m.id: i for i, m in enumerate(rules.modules)}
        self.module_order[OTHER_MODULE] = len(rules.modules)
        # single matchers for the paths a risk observation groups by (see chatbot.digest)
        self.core = PathMatcher(rules.core_paths)
        self.test = PathMatcher(rules.test_paths)
        self.dependency = PathMatcher(rules.dependency_paths)
        self.security = PathMatcher(rules.security_paths)
        self.data = PathMatcher(rules.data_paths)
        # One regex over every path rule: modules, label paths, then the eight path classes.
        self.path_classes = ("core", "source", "test", "dependency", "docs", "ci", "security", "data")
        sets: list[tuple[tuple[str, ...], tuple[str, ...]]] = [(m.paths, m.exclude) for m in rules.modules]
        sets += [(r.paths, r.exclude) for r in rules.labels if r.paths]
        sets += [(getattr(rules, f"{c}_paths"), rules.source_exclude if c == "source" else ())
                 for c in self.path_classes]
        self.all_paths = MultiPathMatcher(sets)
        self.n_modules = len(rules.modules)
        self.n_label_paths = len(self.label_path_names)
        self.security_keywords = _any_regex(rules.security_keywords, re.IGNORECASE)
        self.ai_coauthor = _any_regex(rules.ai_coauthor_patterns, re.IGNORECASE)
        self.bot_coauthor = _any_regex(rules.bot_coauthor_patterns, re.IGNORECASE)
        self.review_nits = _any_regex(rules.review_nits, re.IGNORECASE)


def parse_rules(text: str, source: str) -> Rules:
    """Validate rules YAML ``text``; ``source`` names it in errors (a path or ``<shipped vllm>``).

    Raises:
        RulesError: not YAML, not a mapping, or a key that fails validation (the message names
            the key path, e.g. ``modules.3.paths``).
    """
    try:
        data: Any = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise RulesError(f"rules file {source}{where}: {problem}: fix the YAML") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RulesError(f"rules file {source}: expected a mapping of keys (labels, modules, ...)")
    try:
        return Rules.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        raise RulesError(f"rules file {source}: {loc}: {msg} (see `prhub rules schema`)") from None


def load_rules(path: str | Path) -> Rules:
    """Read and validate a rules file.

    Raises:
        RulesError: unreadable file or invalid content.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(f"rules file {p}: cannot read it ({exc.strerror or exc}): check the path") from None
    except UnicodeDecodeError as exc:
        raise RulesError(f"rules file {p}: not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    return parse_rules(text, str(p))


def shipped_rules_names() -> list[str]:
    """Names of the rules files shipped with prhub (``generic``, ``vllm``, ...)."""
    files = resources.files("chatbot").joinpath(_RULESETS).iterdir()
    return sorted(f.name.removesuffix(".yaml") for f in files if f.name.endswith(".yaml"))


def shipped_rules(name: str) -> Rules:
    """A shipped rules file by name.

    Raises:
        RulesError: no such shipped rules.
    """
    res = resources.files("chatbot").joinpath(_RULESETS, f"{name}.yaml")
    if not res.is_file():
        raise RulesError(f"no shipped rules named {name!r}: choose one of {', '.join(shipped_rules_names())}")
    return parse_rules(res.read_text(encoding="utf-8"), f"<shipped {name}>")


def default_rules_for(repo: str) -> Rules:
    """The shipped rules whose ``repositories`` list ``repo`` (case-insensitive), else the generic rules."""
    wanted = repo.casefold()
    for name in shipped_rules_names():
        rules = shipped_rules(name)
        if any(r.casefold() == wanted for r in rules.repositories):
            return rules
    return shipped_rules("generic")
