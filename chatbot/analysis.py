"""Per-PR analysis: labels, modules, risk tags and the importance score. Pure functions.

Everything here depends only on the PR data, the :class:`~chatbot.rules.Rules` and, for
``revert`` and ``follow-up-fix``, the other PRs of the input; nothing reads a clock, a file or the
network, so the same data gives the same result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from chatbot.i18n import lines_text, tr
from chatbot.models import FileChange, PullRequest
from chatbot.review_findings import review_findings
from chatbot.rules import DEFAULT_FINDING_RULES, OTHER_MODULE, CompiledRules, FindingRule, ImportanceWeights

RISK_ORDER: tuple[str, ...] = (
    "revert",
    "security-sensitive",
    "review-open",
    "bot-review-flag",
    "assert-runtime-check",
    "no-human-approval",
    "core-path-change",
    "tests-removed",
    "missing-tests",
    "follow-up-fix",
    "dependency-change",
    "large-change",
)
"""Every risk tag id, in the order risk observations are listed (most actionable first)."""

_PREFIX_RE = re.compile(r"\[([^\[\]]*)\]\s*")
_REVERT_RE = re.compile(r'^\s*revert\s*[:\s]\s*"(?P<title>.*)"\s*(?:\(#(?P<num>\d+)\))?\s*$', re.IGNORECASE | re.DOTALL)
_REVERT_LOOSE_RE = re.compile(r"^\s*revert\b", re.IGNORECASE)
_PR_REF_RE = re.compile(r"(?<![\w/])#(\d{1,7})\b")
_PR_URL_RE = re.compile(r"github\.com/[\w.-]+/[\w.-]+/pull/(\d{1,7})\b")
_TRAILING_NUM_RE = re.compile(r"\s*\(#\d+\)\s*$")


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
            )
            self._cache[path] = facts
        return facts


def labels_for(pr: PullRequest, rules: CompiledRules, classify: PathClassifier) -> tuple[str, ...]:
    """Labels of a PR: GitHub labels (plus the label their name is an alias of), title-prefix
    aliases, and the label path/title rules.

    Order: rules-file order (labels first, then prefix aliases), then GitHub-only labels by name.
    """
    found: set[str] = set(pr.labels)
    for gh_label in pr.labels:  # GitHub labels also count under their alias ("bug" -> bugfix)
        found.update(rules.prefix_to_label.get(" ".join(gh_label.split()).casefold(), ()))
    for prefix in title_prefixes(pr.title):
        found.update(rules.prefix_to_label.get(prefix, ()))
    if rules.title_patterns is not None:
        names = rules.title_label_names
        found.update(names[i] for i in rules.title_patterns.matching(pr.title))
    for f in pr.files:
        found.update(classify(f.path).labels)
    order = rules.label_order
    return tuple(sorted(found, key=lambda n: (order.get(n, len(order)), n)))


def modules_for(
    pr: PullRequest, rules: CompiledRules, classify: PathClassifier
) -> tuple[tuple[str, ...], str, dict[str, tuple[int, int]]]:
    """Modules of a PR from its paths: ``(modules in rule order, primary module, {module: (adds, dels)})``.

    A PR is in every module one of its paths matches; a PR none of whose paths matches is in
    ``other`` (with the PR's whole churn). The primary module has the most changed
    lines; ties go to rule order.
    """
    churn: dict[str, list[int]] = {}
    for f in pr.files:
        for mid in classify(f.path).modules:
            c = churn.setdefault(mid, [0, 0])
            c[0] += f.additions
            c[1] += f.deletions
    if not churn:
        churn[OTHER_MODULE] = [sum(f.additions for f in pr.files), sum(f.deletions for f in pr.files)]
    order = rules.module_order
    modules = tuple(sorted(churn, key=order.__getitem__))
    primary = min(modules, key=lambda m: (-(churn[m][0] + churn[m][1]), order[m]))
    return modules, primary, {m: (c[0], c[1]) for m, c in churn.items()}


def _largest(files: Iterable[FileChange]) -> FileChange | None:
    best: FileChange | None = None
    for f in files:
        if best is None or f.lines > best.lines or (f.lines == best.lines and f.path < best.path):
            best = f
    return best


def _file_text(f: FileChange) -> str:
    return lines_text(f.additions, f.deletions)


@dataclass(frozen=True, slots=True)
class RevertLink:
    """A revert PR and what it reverts: a PR number (when known) and the quoted title."""

    number: int | None
    title: str | None


def parse_revert(title: str) -> RevertLink | None:
    """Parse ``Revert "<title>" (#123)`` (GitHub's revert-button title); None when not a revert.

    A title that starts with ``Revert`` but has no quoted part is still a revert of unknown target.
    """
    m = _REVERT_RE.match(title)
    if m:
        num = m.group("num")
        inner = _TRAILING_NUM_RE.sub("", m.group("title")).strip()
        inner_num = re.search(r"\(#(\d+)\)\s*$", m.group("title"))
        number = int(num) if num else (int(inner_num.group(1)) if inner_num else None)
        return RevertLink(number, inner or None)
    if _REVERT_LOOSE_RE.match(title):
        return RevertLink(None, None)
    return None


def cited_numbers(pr: PullRequest) -> set[int]:
    """PR/issue numbers a PR's title or body cites (``#123``, or a ``.../pull/123`` link)."""
    text = f"{pr.title}\n{pr.body}"
    nums = {int(n) for n in _PR_REF_RE.findall(text)}
    nums.update(int(n) for n in _PR_URL_RE.findall(text))
    nums.discard(pr.number)
    return nums


@dataclass(frozen=True)
class RevertGraph:
    """Revert relations among input PRs.

    ``target``: revert PR -> the PR it reverts (when found in the input or named by number).
    ``reverted_by``: PR -> the later revert merged in the same week (unless that revert was itself
    reverted in the week, which makes the original a re-land, not reverted).
    """

    target: dict[int, int | None] = field(default_factory=dict)
    quoted: dict[int, str | None] = field(default_factory=dict)
    reverted_by: dict[int, int] = field(default_factory=dict)


def build_revert_graph(week_prs: Sequence[PullRequest], context: Mapping[int, PullRequest]) -> RevertGraph:
    """Find reverts among ``week_prs``; ``context`` holds every input PR by number (for title matches)."""
    by_title: dict[str, int] = {}
    for num in sorted(context):
        by_title.setdefault(_TRAILING_NUM_RE.sub("", context[num].title).strip().casefold(), num)
    graph = RevertGraph()
    week_nums = {p.number for p in week_prs}
    for pr in sorted(week_prs, key=lambda p: (p.merged_at, p.number)):
        link = parse_revert(pr.title)
        if link is None:
            continue
        target = link.number
        if target is None and link.title:
            target = by_title.get(link.title.casefold())
        graph.target[pr.number] = target
        graph.quoted[pr.number] = link.title
    # reverted_by: same week, revert merged after the target; a reverted revert cancels.
    for rev, target in graph.target.items():
        if target is None or target not in week_nums:
            continue
        t = context[target]
        r = context[rev]
        if (r.merged_at, r.number) > (t.merged_at, t.number):
            graph.reverted_by[target] = rev
    for rev, target in graph.target.items():
        if rev in graph.reverted_by and target is not None and graph.reverted_by.get(target) == rev:
            del graph.reverted_by[target]  # the revert was itself reverted: the original is re-landed
    return graph


@dataclass(frozen=True, slots=True)
class PRAnalysis:
    """Everything the digest needs to know about one PR (internal to the core)."""

    pr: PullRequest
    labels: tuple[str, ...]
    modules: tuple[str, ...]
    primary_module: str
    module_churn: dict[str, tuple[int, int]]
    risk_tags: tuple[str, ...]
    risk_reasons: dict[str, str]
    docs_only: bool
    ci_only: bool
    code_lines: int
    code_files: int
    core_files: int
    importance: float


def _more(lang: str, text: str, extra: int) -> str:
    return tr(lang, "reason.more_files", text=text, n=extra) if extra > 0 else text


def risk_tags_for(
    pr: PullRequest,
    labels: tuple[str, ...],
    facts: Sequence[PathFacts],
    rules: CompiledRules,
    lang: str,
    revert_target: tuple[bool, int | None, str | None, bool],
    follow_up: tuple[int, datetime] | None,
) -> dict[str, str]:
    """Risk tags of one PR with a reason built from its data: ``{tag id: reason text in lang}``.

    ``revert_target`` is ``(is_revert, target number, quoted title, target_is_revert)``; the revert
    reason is built from the title alone (``reverts #N`` or the quoted title), so the same PR gets
    the same reason whatever other weeks the input holds;
    ``follow_up`` the (number, merged_at) of the recent PR this bugfix fixes, if any. Rules:
    ``core-path-change`` a file under core_paths; ``missing-tests`` >= thresholds.missing_tests_min_lines
    changed lines in source_paths outside test_paths and no test path changed; ``tests-removed``
    a test file with 0 additions and >0 deletions, or test lines net-removed beyond
    thresholds.tests_removed_min_lines; ``large-change`` more files or lines than the thresholds, or a
    truncated file list; ``dependency-change`` a file under dependency_paths; ``revert``;
    ``follow-up-fix``; ``security-sensitive`` a security path or keyword. The GitHub-only tags
    (``review-open``, ``no-human-approval``, ``bot-review-flag``, ``assert-runtime-check``) come
    from review data and patches when the source provides them.
    """
    th = rules.rules.thresholds
    reasons: dict[str, str] = {}
    files = pr.files

    core: list[FileChange] = []
    src: list[FileChange] = []
    tests: list[FileChange] = []
    deps: list[FileChange] = []
    sec: list[FileChange] = []
    for f, x in zip(files, facts):  # one pass over the files for every path-based tag
        if x.core:
            core.append(f)
        if x.test:
            tests.append(f)
        elif x.source:
            src.append(f)
        if x.dependency:
            deps.append(f)
        if x.security and not x.docs:
            sec.append(f)
    if core:
        top = _largest(core)
        assert top is not None
        reasons["core-path-change"] = _more(lang, tr(lang, "reason.core", path=top.path, lines=_file_text(top)), len(core) - 1)

    src_lines = sum(f.lines for f in src)
    if src_lines >= th.missing_tests_min_lines and not tests:
        top = _largest(src)
        assert top is not None
        reasons["missing-tests"] = tr(
            lang, "reason.missing_tests",
            lines=lines_text(sum(f.additions for f in src), sum(f.deletions for f in src)),
            path=top.path, flines=_file_text(top),
        )

    if tests:
        emptied = [f for f in tests if f.additions == 0 and f.deletions > 0]
        net = sum(f.additions - f.deletions for f in tests)
        if emptied:
            top = _largest(emptied)
            assert top is not None
            reasons["tests-removed"] = _more(lang, tr(lang, "reason.tests_removed_file", path=top.path, lines=_file_text(top)), len(emptied) - 1)
        elif -net > th.tests_removed_min_lines:
            top = _largest(tests)
            assert top is not None
            reasons["tests-removed"] = tr(lang, "reason.tests_removed_net", net=f"{net:,}", path=top.path, lines=_file_text(top))

    n_files = max(pr.changed_files, len(files))
    n_lines = max(pr.additions + pr.deletions, sum(f.lines for f in files))
    truncated = pr.changed_files > len(files) > 0  # no file list at all is unknown, not truncated
    if n_files > th.large_change_files or n_lines > th.large_change_lines or truncated:
        top = _largest(files)
        parts = []
        if top is not None:
            parts.append(tr(lang, "reason.large", files=f"{n_files:,}", lines=lines_text(pr.additions, pr.deletions),
                            path=top.path, flines=_file_text(top)))
        if truncated:
            parts.append(tr(lang, "reason.truncated", changed=f"{pr.changed_files:,}", listed=f"{len(files):,}"))
        reasons["large-change"] = "; ".join(parts)

    if deps:
        top = _largest(deps)
        assert top is not None
        reasons["dependency-change"] = _more(lang, tr(lang, "reason.dependency", path=top.path, lines=_file_text(top)), len(deps) - 1)

    link = parse_revert(pr.title) if revert_target[0] else None
    if link is not None:
        # From the title alone, so that the reason does not depend on which other PRs the input holds.
        inner = parse_revert(link.title) if link.title else None
        if inner is not None:
            reasons["revert"] = tr(lang, "reason.reland", title=inner.title or link.title)
        elif link.number is not None:
            reasons["revert"] = tr(lang, "reason.revert_pr", number=link.number)
        else:
            reasons["revert"] = tr(lang, "reason.revert_title", title=link.title or pr.title)

    if follow_up is not None:
        num, when = follow_up
        reasons["follow-up-fix"] = tr(lang, "reason.follow_up", number=num, date=f"{when:%m-%d}")

    if sec:
        top = _largest(sec)
        assert top is not None
        reasons["security-sensitive"] = tr(lang, "reason.security_path", path=top.path, lines=_file_text(top))
    elif rules.security_keywords is not None:
        for where, text in (("title", pr.title), ("body", pr.body)):
            m = rules.security_keywords.search(text)
            if m:
                reasons["security-sensitive"] = tr(lang, "reason.security_keyword", word=m.group(0), where=tr(lang, f"where.{where}"))
                break

    reasons.update(review_risks(pr, lang, rules.rules.review_findings))
    return {tag: reasons[tag] for tag in RISK_ORDER if tag in reasons}




def review_risks(pr: PullRequest, lang: str,
                 finding_rules: Sequence[FindingRule] = DEFAULT_FINDING_RULES) -> dict[str, str]:
    """Risk tags that only review data and patches can light (GitHub source; empty for file input).

    ``review-open``: an unresolved, non-outdated review thread at merge. ``no-human-approval``:
    reviews are known and none is APPROVED by a non-bot. ``bot-review-flag``: a review finding at a
    reported severity (:func:`chatbot.review_findings.review_findings` with ``finding_rules``; a
    thread resolved or outdated at fetch time does not count), quoted with its path:line. ``assert-runtime-check``: an added ``assert`` in non-test source.
    """
    out: dict[str, str] = {}
    # Thread state unknown (threads export): not evidence of an open thread.
    open_threads = [t for t in pr.review_threads if t.is_resolved is False and t.is_outdated is False]
    human_open = [t for t in open_threads if not t.author_is_bot]
    if human_open:
        out["review-open"] = tr(lang, "reason.review_open", n=len(human_open), path=human_open[0].path or "-")
    states_known = all(r.state is not None for r in pr.reviews)
    if pr.reviews and states_known and not any(r.state == "APPROVED" and not r.is_bot for r in pr.reviews):
        out["no-human-approval"] = tr(lang, "reason.no_human_approval")
    findings = review_findings(pr, finding_rules)
    if findings:
        f = findings[0]
        where = f"{f.path}:{f.line}" if f.path and f.line else (f.path or "-")
        key = "reason.bot_review_flag" if f.quote else "reason.bot_review_flag_bare"
        out["bot-review-flag"] = _more(lang, tr(lang, key, reviewer=f.bot, severity=f.severity, where=where, quote=f.quote),
                                       len(findings) - 1)
    if pr.added_asserts:
        out["assert-runtime-check"] = _more(lang, tr(lang, "reason.assert", path=pr.added_asserts[0]), len(pr.added_asserts) - 1)
    return out


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
) -> float:
    """The importance score, 0.0-10.0 with one decimal.

    ``size = w.size * min(1, log10(1+code_lines) / log10(1+w.size_lines))``;
    ``files = w.files * min(1, log10(1+code_files) / log10(1+w.files_count))``;
    ``core = w.core * min(1, (1+core_files)/4)`` when a core path changed (half at one file);
    ``risk = min(w.risk_max, w.risk_tag * tags)`` counting every tag but core-path-change (counted
    above) and tests-removed (which can vanish as lines grow); ``modules = min(w.module_max,
    w.module * (modules-1))``; ``labels = min(w.label_max, sum(w.label_bonus[label]))``. The sum is
    capped at 10, and at ``w.non_code_cap`` for docs-only and CI-only PRs. Code lines/files exclude
    docs and CI paths. Every term is non-decreasing in lines and core-path files.
    """
    w = weights
    size = w.size * min(1.0, math.log10(1 + code_lines) / math.log10(1 + w.size_lines))
    nfiles = w.files * min(1.0, math.log10(1 + code_files) / math.log10(1 + w.files_count))
    core = w.core * min(1.0, (1 + core_files) / 4) if core_files else 0.0
    counted = [t for t in risk_tags if t not in ("core-path-change", "tests-removed")]
    risk = min(w.risk_max, w.risk_tag * len(counted))
    mods = min(w.module_max, w.module * max(0, n_modules - 1))
    bonus = min(w.label_max, sum(w.label_bonus.get(lb, 0.0) for lb in labels))
    score = min(10.0, size + nfiles + core + risk + mods + bonus)
    if non_code:
        score = min(score, w.non_code_cap)
    return round(score + 1e-9, 1)


def analyze_prs(
    week_prs: Sequence[PullRequest],
    context: Mapping[int, PullRequest],
    rules: CompiledRules,
    lang: str,
    window_start: datetime,
) -> tuple[list[PRAnalysis], RevertGraph]:
    """Analyse the PRs of one week (number order). ``context`` maps every input PR by number;
    PRs merged from ``window_start - 7 days`` are candidates for follow-up fixes."""
    classify = PathClassifier(rules)
    graph = build_revert_graph(week_prs, context)
    recent_from = window_start - timedelta(days=7)
    out: list[PRAnalysis] = []
    for pr in week_prs:
        facts = [classify(f.path) for f in pr.files]
        labels = labels_for(pr, rules, classify)
        modules, primary, churn = modules_for(pr, rules, classify)
        is_revert = pr.number in graph.target
        target = graph.target.get(pr.number)
        target_is_revert = target is not None and target in context and parse_revert(context[target].title) is not None
        follow: tuple[int, datetime] | None = None
        if "bugfix" in labels and not is_revert:
            for num in sorted(cited_numbers(pr)):
                other = context.get(num)
                if other is not None and recent_from <= other.merged_at < pr.merged_at:
                    follow = (num, other.merged_at)
                    break
        reasons = risk_tags_for(pr, labels, facts, rules, lang, (is_revert, target, graph.quoted.get(pr.number), target_is_revert), follow)
        code = [(f, x) for f, x in zip(pr.files, facts) if not (x.docs or x.ci)]
        docs_only = bool(pr.files) and all(x.docs for x in facts)
        ci_only = bool(pr.files) and not docs_only and all(x.docs or x.ci for x in facts)
        core_files = sum(1 for x in facts if x.core)
        code_lines = sum(f.lines for f, _ in code)
        score = importance(
            code_lines=code_lines, code_files=len(code), core_files=core_files, labels=labels,
            risk_tags=reasons, n_modules=len([m for m in modules if m != OTHER_MODULE]) or 1,
            non_code=docs_only or ci_only, weights=rules.rules.importance,
        )
        out.append(PRAnalysis(pr, labels, modules, primary, churn, tuple(reasons), reasons, docs_only, ci_only,
                              code_lines, len(code), core_files, score))
    return out, graph
