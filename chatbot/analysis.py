"""Per-PR analysis: labels, modules, risk tags and the importance score. Pure functions.

Everything here depends only on the PR data, the :class:`~chatbot.rules.Rules` and, for
``revert`` and ``follow-up-fix``, the other PRs of the input; nothing reads a clock, a file or the
network, so the same data gives the same result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from chatbot.gist import measured_results
from chatbot.models import FileChange, PullRequest
from chatbot.phrases import say
from chatbot.reverts import RevertGraph, build_revert_graph, cited_numbers, parse_revert
from chatbot.risks import RISKS, RiskContext, RiskFinding, RiskRegistry
from chatbot.rules import OTHER_MODULE, TITLE_MATCH_CHARS, CompiledRules, ImportanceWeights
from chatbot.weeks import IsoWeek

__all__ = ["QUIET_FOR_NON_CODE", "RISK_ORDER", "PRAnalysis", "PathClassifier", "PathFacts", "analyze_prs", "build_revert_graph",
           "importance", "labels_for", "modules_for", "news_facts", "NEWS_FACTS", "parse_revert", "title_prefixes"]

QUIET_FOR_NON_CODE: frozenset[str] = frozenset({"revert", "security-sensitive", "core-path-change"})
"""Risk tags a docs-only or CI-only PR never gets (issue 11: no revert, security or core-path advice
for a ``mkdocs.yaml`` revert or a ``docs/usage/security.md`` page). The revert stays in ``reverted``."""

RISK_ORDER: tuple[str, ...] = RISKS.order
"""Every risk tag id, in the order risk observations are listed (most actionable first)."""

_PREFIX_RE = re.compile(r"\[([^\[\]]*)\]\s*")


def title_prefixes(title: str) -> list[str]:
    """The leading run of ``[...]`` groups of a title, each trimmed and case-folded.

    ``"[ROCm] [Bugfix] Fix X"`` -> ``["rocm", "bugfix"]``; a bracket later in the title does not
    count (rule from docs/vllm-modules.md).
    """
    out: list[str] = []
    pos = 0
    text = title.strip()
    while True:
        m = _PREFIX_RE.match(text, pos)
        if m is None:
            return out
        out.append(" ".join(m.group(1).split()).casefold())
        pos = m.end()


@dataclass(frozen=True, slots=True)
class PathFacts:
    """What the rules say about one path."""

    modules: tuple[str, ...]
    labels: tuple[str, ...]
    core: bool
    source: bool
    test: bool
    dependency: bool
    docs: bool
    ci: bool
    security: bool
    data: bool
    """Under ``data_paths`` (tuned configs, ...): no churn, no importance, not part of a large change."""


_PATH_MEMO_LIMIT = 200_000


class PathClassifier:
    """Classifies paths under compiled rules.

    Facts are memoised per :class:`CompiledRules` (a pure function of rules and path): a bot
    digests the same repository week after week and most paths recur, so later builds skip the
    glob matching for known paths. The memo is bounded (cleared past 200,000 paths).
    """

    def __init__(self, rules: CompiledRules) -> None:
        self.rules = rules
        self._cache: dict[str, PathFacts] = rules.memo.setdefault("path_facts", {})
        if len(self._cache) > _PATH_MEMO_LIMIT:
            self._cache.clear()

    def __call__(self, path: str) -> PathFacts:
        facts = self._cache.get(path)
        if facts is None:
            r = self.rules
            hits = r.all_paths.matching(path)
            nm, nl = r.n_modules, r.n_label_paths
            classes = {i - nm - nl for i in hits if i >= nm + nl}
            facts = PathFacts(
                modules=tuple(r.module_ids[i] for i in hits if i < nm),
                labels=tuple(r.label_path_names[i - nm] for i in hits if nm <= i < nm + nl),
                core=0 in classes,
                source=1 in classes,
                test=2 in classes,
                dependency=3 in classes,
                docs=4 in classes,
                ci=5 in classes,
                security=6 in classes,
                data=7 in classes,
            )
            self._cache[path] = facts
        return facts


def labels_for(pr: PullRequest, rules: CompiledRules, classify: PathClassifier) -> tuple[str, ...]:
    """Labels of a PR: GitHub labels (plus the label their name is an alias of), title-prefix
    aliases, and the label path/title rules (a title rule of a label with ``requires`` counts only
    when the PR changes one of those paths).

    Order: rules-file order (labels first, then prefix aliases), then GitHub-only labels by name.
    """
    found: set[str] = set(pr.labels)
    for gh_label in pr.labels:  # GitHub labels also count under their alias ("bug" -> bugfix)
        found.update(rules.prefix_to_label.get(" ".join(gh_label.split()).casefold(), ()))
    for prefix in title_prefixes(pr.title):
        found.update(rules.prefix_to_label.get(prefix, ()))
    if rules.title_patterns is not None:
        names = rules.title_label_names
        for name in {names[i] for i in rules.title_patterns.matching(pr.title[:TITLE_MATCH_CHARS])}:
            need = rules.title_requires.get(name)
            if need is None or any(need.matches(f.path) for f in pr.files):
                found.add(name)
    for f in pr.files:
        found.update(classify(f.path).labels)
    order = rules.label_order
    return tuple(sorted(found, key=lambda n: (order.get(n, len(order)), n)))


def modules_for(
    pr: PullRequest, rules: CompiledRules, classify: PathClassifier
) -> tuple[tuple[str, ...], str, dict[str, tuple[int, int]]]:
    """Modules of a PR from its paths: ``(modules in rule order, primary module, {module: (adds, dels)})``.

    A PR is in every module one of its paths matches; a PR none of whose paths matches is in
    ``other`` (with the PR's whole churn). Files under ``data_paths`` place the PR in their
    module but add no churn. The primary module has the most changed lines; ties go to rule order.
    """
    churn: dict[str, list[int]] = {}
    for f in pr.files:
        x = classify(f.path)
        for mid in x.modules:
            c = churn.setdefault(mid, [0, 0])
            if not x.data:
                c[0] += f.additions
                c[1] += f.deletions
    if not churn:
        counted = [f for f in pr.files if not classify(f.path).data]
        churn[OTHER_MODULE] = [sum(f.additions for f in counted), sum(f.deletions for f in counted)]
    order = rules.module_order
    modules = tuple(sorted(churn, key=order.__getitem__))
    primary = min(modules, key=lambda m: (-(churn[m][0] + churn[m][1]), order[m]))
    return modules, primary, {m: (c[0], c[1]) for m, c in churn.items()}


@dataclass(frozen=True, slots=True)
class PRAnalysis:
    """Everything the digest needs to know about one PR (internal to the core)."""

    pr: PullRequest
    labels: tuple[str, ...]
    modules: tuple[str, ...]
    primary_module: str
    module_churn: dict[str, tuple[int, int]]
    findings: tuple[RiskFinding, ...]
    """Risk findings in registry order (data; written in a language by :meth:`reasons`)."""
    docs_only: bool
    ci_only: bool
    code_lines: int
    code_files: int
    core_files: int
    importance: float
    fixed_by: tuple[int, ...] = ()
    news: tuple[str, ...] = ()
    """The newsworthiness facts scored (:data:`NEWS_FACTS` order), e.g. ``("capability", "result")``."""
    """Bugfixes (this week or later, when the input holds them) whose follow-up-fix target is this PR."""

    @property
    def risk_tags(self) -> tuple[str, ...]:
        """The tags of :attr:`findings`, in registry order."""
        return tuple(f.tag for f in self.findings)

    def reasons(self, lang: str) -> dict[str, str]:
        """``{tag: reason}`` written in ``lang``."""
        return {f.tag: say(lang, f.reason) for f in self.findings}

    def weights(self) -> dict[str, int]:
        """``{tag: evidence weight}`` for the findings that weigh more than 0."""
        return {f.tag: f.weight for f in self.findings if f.weight}


def importance(
    *,
    code_lines: int,
    code_files: int,
    core_files: int,
    labels: Iterable[str],
    risk_tags: Iterable[str],
    n_modules: int,
    non_code: bool,
    weights: ImportanceWeights,
    risks: RiskRegistry = RISKS,
    news: Iterable[str] = (),
) -> float:
    """The importance score, 0.0-10.0 with one decimal.

    ``size = w.size * min(1, log10(1+code_lines) / log10(1+w.size_lines))``;
    ``files = w.files * min(1, log10(1+code_files) / log10(1+w.files_count))``;
    ``core = w.core * min(1, (1+core_files)/4)`` when a core path changed (half at one file);
    ``risk = min(w.risk_max, w.risk_tag * tags)`` counting the tags whose rule says
    ``counts_for_importance`` (not core-path-change, counted above, nor tests-removed, which can
    vanish as lines grow; see :mod:`chatbot.risks`); ``modules = min(w.module_max,
    w.module * (modules-1))``; ``labels = min(w.label_max, sum(w.label_bonus[label]))``;
    ``news = sum(w.<fact>)`` over the newsworthiness facts ``news`` (:func:`news_facts`: a new
    capability, a stated result, a changed default, security, a series, a follow-up fix). The sum is
    capped at 10, and at ``w.non_code_cap`` for docs-only and CI-only PRs. Code lines/files exclude
    docs, CI and data paths (``data_paths``: tuned configs). Every term is non-decreasing in lines and core-path files
    (the news facts aside: a new file stops being new at its first deleted line).
    """
    w = weights
    size = w.size * min(1.0, math.log10(1 + code_lines) / math.log10(1 + w.size_lines))
    nfiles = w.files * min(1.0, math.log10(1 + code_files) / math.log10(1 + w.files_count))
    core = w.core * min(1.0, (1 + core_files) / 4) if core_files else 0.0
    counted = [t for t in risk_tags if (r := risks.by_tag.get(t)) is None or r.counts_for_importance]
    risk = min(w.risk_max, w.risk_tag * len(counted))
    mods = min(w.module_max, w.module * max(0, n_modules - 1))
    bonus = min(w.label_max, sum(w.label_bonus.get(lb, 0.0) for lb in labels))
    points = {"capability": w.capability, "result": w.result, "changed_default": w.changed_default,
              "security": w.security, "series": w.series, "follow_up": w.follow_up}
    newsworthy = sum(points[fact] for fact in news)
    score = min(10.0, size + nfiles + core + risk + mods + bonus + newsworthy)
    if non_code:
        score = min(score, w.non_code_cap)
    return round(score + 1e-9, 1)


NEWS_FACTS: tuple[str, ...] = ("capability", "result", "changed_default", "security", "series", "follow_up")
"""The newsworthiness facts, each weighted by the :class:`~chatbot.rules.ImportanceWeights` field of its name."""

_SERIES_MARK = re.compile(r"\[\s*\d+\s*/\s*(?:n|\d+)\s*\]|\(\s*\d+\s*/\s*(?:n|\d+)\s*\)|\bpart\s+\d+\b|\b\d+\s*/\s*n\b",
                          re.IGNORECASE)


def news_facts(pr: PullRequest, source_files: Sequence[FileChange], risk_tags: Sequence[str],
               rules: CompiledRules) -> tuple[str, ...]:
    """Which newsworthiness facts hold for ``pr`` (in :data:`NEWS_FACTS` order).

    ``capability``: the title matches ``importance.capability_titles`` (Add/Support/Introduce/Enable
    ..., after its ``[tags]``) or one of ``source_files`` (behavioural source) is new: at least
    ``importance.new_file_lines`` added lines and none deleted (the export has no file status, so
    this is the one term that can fall as lines grow: a first deleted line makes the file an edit);
    ``result``: the title or description states a measured result (:func:`chatbot.gist.measured_results`);
    ``changed_default``: the title matches ``importance.changed_default_titles`` ("by default",
    "deprecate", "remove support"); ``security``: the ``security-sensitive`` tag; ``series``: the
    title marks a part of a series; ``follow_up``: the ``follow-up-fix`` tag.
    """
    w = rules.rules.importance
    title = pr.title[:TITLE_MATCH_CHARS]
    facts = {
        "capability": rules.capability_titles is not None and rules.capability_titles.search(title) is not None
        or any(f.deletions == 0 and f.additions >= w.new_file_lines for f in source_files),
        "result": bool(measured_results(title + "\n" + pr.body, limit=1)),
        "changed_default": rules.changed_default_titles is not None and rules.changed_default_titles.search(title) is not None,
        "security": "security-sensitive" in risk_tags,
        "series": _SERIES_MARK.search(title) is not None,
        "follow_up": "follow-up-fix" in risk_tags,
    }
    return tuple(f for f in NEWS_FACTS if facts[f])


def analyze_prs(
    week_prs: Sequence[PullRequest],
    context: Mapping[int, PullRequest],
    rules: CompiledRules,
    window_start: datetime,
    risks: RiskRegistry = RISKS,
) -> tuple[list[PRAnalysis], RevertGraph]:
    """Analyse the PRs of one week (number order), without language. ``context`` maps every input
    PR by number; PRs merged from ``window_start - 7 days`` are candidates for follow-up fixes;
    ``risks`` are the risk rules applied (default: the shipped registry)."""
    classify = PathClassifier(rules)
    graph = build_revert_graph(week_prs, context)
    recent_from = window_start - timedelta(days=FOLLOW_UP_DAYS)
    week_nums = {p.number for p in week_prs}
    fixed_by: dict[int, list[int]] = {}
    zone = window_start.tzinfo if isinstance(window_start.tzinfo, ZoneInfo) else ZoneInfo("UTC")
    for later in sorted(context.values(), key=lambda p: (p.merged_at, p.number)):
        if later.number in week_nums or later.merged_at < window_start:
            continue  # this week's bugfixes are found below; earlier PRs cannot fix this week's
        if week_nums.isdisjoint(cited_numbers(later)):
            continue  # its target is a PR it cites: one it does not cite is none of this week's (no labelling needed)
        later_start = IsoWeek.containing(later.merged_at, zone).window(zone)[0]
        target = follow_up_target(later, labels_for(later, rules, classify), context,
                                  later_start - timedelta(days=FOLLOW_UP_DAYS), parse_revert(later.title) is not None)
        if target is not None and target[0] in week_nums:
            fixed_by.setdefault(target[0], []).append(later.number)
    out: list[PRAnalysis] = []
    for pr in week_prs:
        facts = [classify(f.path) for f in pr.files]
        labels = labels_for(pr, rules, classify)
        modules, primary, churn = modules_for(pr, rules, classify)
        is_revert = pr.number in graph.target
        follow = follow_up_target(pr, labels, context, recent_from, is_revert)
        if follow is not None:
            fixed_by.setdefault(follow[0], []).append(pr.number)
        findings = risks.findings(_risk_context(pr, labels, facts, rules, is_revert, follow))
        code = [(f, x) for f, x in zip(pr.files, facts) if not (x.docs or x.ci or x.data)]
        docs_only = bool(pr.files) and all(x.docs for x in facts)
        ci_only = bool(pr.files) and not docs_only and all(x.docs or x.ci for x in facts)
        if docs_only or ci_only:  # a docs page about security, a docs revert: no code risk, no advice
            findings = tuple(f for f in findings if f.tag not in QUIET_FOR_NON_CODE)
        tags = tuple(f.tag for f in findings)
        core_files = sum(1 for x in facts if x.core and not x.data)
        code_lines = sum(f.lines for f, _ in code)
        news = () if docs_only or ci_only else news_facts(
            pr, [f for f, x in code if x.source and not x.test], tags, rules)
        score = importance(
            code_lines=code_lines, code_files=len(code), core_files=core_files, labels=labels,
            risk_tags=tags, n_modules=len([m for m in modules if m != OTHER_MODULE]) or 1,
            non_code=docs_only or ci_only, weights=rules.rules.importance, risks=risks, news=news,
        )
        out.append(PRAnalysis(pr, labels, modules, primary, churn, findings, docs_only, ci_only,
                              code_lines, len(code), core_files, score, news=news))
    return [replace(a, fixed_by=tuple(sorted(fixed_by.get(a.pr.number, ())))) if a.pr.number in fixed_by else a
            for a in out], graph


def follow_up_target(pr: PullRequest, labels: Sequence[str], context: Mapping[int, PullRequest], recent_from: datetime,
                     is_revert: bool) -> tuple[int, datetime] | None:
    """The PR a bugfix follows up (the ``follow-up-fix`` rule): the smallest number ``pr`` cites
    whose PR (in ``context``) was merged from ``recent_from`` (its week's start minus
    :data:`FOLLOW_UP_DAYS`) up to before ``pr``; None for a non-bugfix or a revert.

    Returns:
        ``(number, merged_at UTC)`` of that PR. The same rule gives the cited PR its ``fixed_by``.
    """
    if "bugfix" not in labels or is_revert:
        return None
    for num in sorted(cited_numbers(pr)):
        other = context.get(num)
        if other is not None and recent_from <= other.merged_at < pr.merged_at:
            return (num, other.merged_at)
    return None


FOLLOW_UP_DAYS = 7
"""A bugfix is a follow-up fix of a PR it cites that was merged in its week or this many days before."""


def _risk_context(pr: PullRequest, labels: tuple[str, ...], facts: Sequence[PathFacts], rules: CompiledRules,
                  is_revert: bool, follow_up: tuple[int, datetime] | None) -> RiskContext:
    """One pass over the files for every path-based rule (file order kept)."""
    core, src, tests, deps, sec, data = [], [], [], [], [], []
    for f, x in zip(pr.files, facts):
        if x.data:
            data.append(f)
            continue  # tuned configs and other data: no path risk reads them
        if x.core:
            core.append(f)
        if x.test:
            tests.append(f)
        elif x.source:
            src.append(f)
        if x.dependency and not x.test:  # a test-only pin (requirements/test/**) breaks no install
            deps.append(f)
        if x.security and not x.docs:
            sec.append(f)
    return RiskContext(pr=pr, labels=labels, rules=rules, is_revert=is_revert, follow_up=follow_up,
                       core=tuple(core), source=tuple(src), tests=tuple(tests), dependency=tuple(deps),
                       security=tuple(sec), data=tuple(data))
