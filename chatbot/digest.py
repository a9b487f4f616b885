"""From merged PRs to the weekly digest, and from the digest to its text in one language. Pure.

:func:`build_digest` gives the language-neutral :class:`Digest` of a repository-week (the analysis
with its risk findings as data, plus what the optional step wrote per language); services pass
that around, one per repository-week. :func:`write` makes the :class:`~chatbot.models.DigestText`
of one language from it at output time (text from ``chatbot/catalogs/<lang>.yaml``, module names
from the rules). The same PRs, rules, week and zone give the same Digest, and the same Digest and
language the same text, field for field; nothing here reads a clock (``generated_at`` is passed
in by the scheduler or the CLI).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from chatbot.analysis import PRAnalysis, analyze_prs
from chatbot.reverts import RevertGraph
from chatbot.errors import InputError
from chatbot.gist import extract_gist
from chatbot.history import WeekStats
from chatbot.phrases import say
from chatbot.review_findings import risk_findings
from chatbot.risks.observations import NAMED_MAX, observations
from chatbot.storylines import plan, storylines
from chatbot.i18n import has_text, langs, lines_text, tr
from chatbot.models import (
    AnalyzedPR,
    ContributorCount,
    DigestText,
    ModuleStat,
    PathCount,
    Prose,
    PullRequest,
    Recommendation,
    RiskItem,
    Theme,
)
from chatbot.risks import RISKS, RiskRegistry
from chatbot.rules import OTHER_MODULE, RegexSet, Rules
from chatbot.weeks import IsoWeek, load_zone


CONTEXT_DAYS = 7
"""Days before a week whose PRs a digest reads as context (the PRs its reverts and follow-up fixes cite)."""
LATER_DAYS = 56
"""Days after a week whose PRs a digest reads from the store, so that a PR of the week reverted or
fixed later shows ``reverted_by``/``fixed_by`` (facts across weeks; fixes come within the next
week by the follow-up rule, reverts within these eight weeks)."""


def input_window(week: IsoWeek, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC half-open window of PRs a digest of ``week`` (in ``zone``) reads from a store:
    :data:`CONTEXT_DAYS` before the week to :data:`LATER_DAYS` after it."""
    start, end = week.utc_window(zone)
    return start - timedelta(days=CONTEXT_DAYS), end + timedelta(days=LATER_DAYS)


def dedupe(prs: Iterable[PullRequest]) -> dict[int, PullRequest]:
    """One PR per number (a later record replaces an earlier one), keyed and ordered by number."""
    by_num: dict[int, PullRequest] = {}
    for pr in prs:
        by_num[pr.number] = pr
    return dict(sorted(by_num.items()))


def newest_week(prs: Iterable[PullRequest], tz: str) -> IsoWeek | None:
    """The ISO week in ``tz`` containing the newest ``merged_at`` of ``prs`` after :func:`dedupe`
    (a PR given twice counts with its last record, as the digest reads it); None without PRs."""
    newest = max((p.merged_at for p in dedupe(prs).values()), default=None)
    return None if newest is None else IsoWeek.containing(newest, load_zone(tz))


def weeks_held(prs: Iterable[PullRequest], tz: str) -> list[tuple[IsoWeek, int]]:
    """The ISO weeks in ``tz`` that hold merged PRs of ``prs``, with their PR counts, oldest first
    (so a digest of an empty week can say which weeks the input does hold). PRs are counted once,
    by their last record (:func:`dedupe`, as the digest counts them: two overlapping exports of
    W20 are 217 PRs, not 434)."""
    zone = load_zone(tz)
    held = Counter(IsoWeek.containing(p.merged_at, zone) for p in dedupe(prs).values())
    return sorted(held.items())


def _counts(values: Iterable[str]) -> dict[str, int]:
    c = Counter(values)
    return dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def _is_bot(login: str, is_bot: bool) -> bool:
    return is_bot or login.endswith("[bot]")


def _facts(a: PRAnalysis, lang: str, rules: Rules) -> str:
    pr = a.pr
    sep = tr(lang, "sep")
    mods = sep.join(rules.module_display(m, lang) for m in a.modules[:3])
    n = max(pr.changed_files, len(pr.files))
    files = tr(lang, "gist.file") if n == 1 else tr(lang, "gist.files", n=f"{n:,}")
    parts = [mods, files, lines_text(pr.additions, pr.deletions)]
    if a.risk_tags:
        parts.append(sep.join(tr(lang, f"risk.{t}") for t in a.risk_tags))
    return " · ".join(parts)


GITHUB_HOSTS = ("github.com",)
"""Hosts whose PR URLs become links (GitHub; add a GitHub Enterprise host here)."""


def pr_link(url: str, repo: str, number: int, hosts: Iterable[str] = GITHUB_HOSTS) -> str:
    """``url`` when it is exactly ``https://<github host>/<repo>/pull/<number>`` (host and
    repository compared case-insensitively, an optional trailing slash), else ``""``: a PR's
    ``url`` field is untrusted and must not turn into a link to any other site or PR."""
    u = url.strip().rstrip("/")
    for host in hosts:
        want = f"https://{host}/{repo}/pull/{number}"
        if u.casefold() == want.casefold():
            return u
    return ""


def _analyzed(a: PRAnalysis, graph: RevertGraph, lang: str, rules: Rules, repo: str) -> AnalyzedPR:
    pr = a.pr
    reverted_by = graph.reverted_by.get(pr.number)
    is_revert = pr.number in graph.target
    reverts = graph.target.get(pr.number)
    gist = extract_gist(pr.title, pr.body)
    return AnalyzedPR(
        number=pr.number,
        title=pr.title,
        url=pr_link(pr.url, repo, pr.number),
        author=pr.author.login if pr.author else "",
        author_name=(pr.author.name or "") if pr.author else "",
        co_authors=_co_authors(pr),
        importance=a.importance,
        labels=a.labels,
        modules=a.modules,
        primary_module=a.primary_module,
        risk_tags=a.risk_tags,
        risk_reasons=a.reasons(lang),
        risk_weights=a.weights(),
        reverted_by=reverted_by,
        additions=pr.additions,
        deletions=pr.deletions,
        changed_files=max(pr.changed_files, len(pr.files)),
        merged_at=pr.merged_at,
        gist=gist.text,
        gist_source=gist.source,
        results=gist.results,
        facts=_facts(a, lang, rules),
        findings=risk_findings(pr, rules.compiled),
        fixed_by=a.fixed_by,
        is_revert=is_revert,
        reverts=reverts,
    )


def _co_authors(pr: PullRequest) -> tuple[str, ...]:
    """``pr.co_authors`` without ``[bot]`` accounts, repeats and the author's own login or name."""
    own = {x.casefold() for x in (pr.author.login, pr.author.name or "")} if pr.author else set()
    out: dict[str, str] = {}
    for name in pr.co_authors:
        key = name.strip().casefold()
        if key and not key.endswith("[bot]") and key not in own:
            out.setdefault(key, name.strip())
    return tuple(out.values())


def _rank_key(p: AnalyzedPR) -> tuple[float, int]:
    return (-p.importance, p.number)


def _refs_of(analyses: Sequence[PRAnalysis]) -> dict[int, int]:
    """PR number -> the PR its revert or follow-up-fix finding refers to (reverted or fixed PR)."""
    out: dict[int, int] = {}
    for a in analyses:
        for f in a.findings:
            if f.ref_number is not None and f.tag in ("revert", "follow-up-fix"):
                out.setdefault(a.pr.number, f.ref_number)
    return out


_PR_NUM = re.compile(r"(?<![&\w])#(\d+)\b")


def _mentions(themes: Sequence[Theme], key: Sequence[AnalyzedPR]) -> Counter[int]:
    """How often a Markdown digest names each PR before its observations: each ``#N`` of a
    storyline's sentence, once each cited PR the sentence does not name (its bullet), and once
    each key PR no storyline cites (its row of the key-PR table)."""
    c: Counter[int] = Counter()
    for th in themes:
        named = Counter(int(m.group(1)) for m in _PR_NUM.finditer(th.summary))
        c.update(named)
        c.update(n for n in set(th.prs) if n not in named)
    told = {n for th in themes for n in th.prs}
    c.update(p.number for p in key if p.number not in told)
    return c


def _recommendations(
    risks: Sequence[RiskItem],
    by_num: dict[int, AnalyzedPR],
    themes: Sequence[Theme],
    rules: Rules,
    lang: str,
    mentions: Counter[int],
) -> list[Recommendation]:
    """At most ``thresholds.recommendations``: one per risk observation (its own template
    ``rec.<kind>``, referring to the observation by number), the first storyline's last when
    there is room. Each names at most two PRs, only PRs its observation named (``RiskItem.named``:
    the reader has just seen them there) and the digest names fewer than :data:`NAMED_MAX` times so
    far (``mentions``, updated; the first recommendation counts twice, as the takeaways repeat it);
    otherwise it refers to the observation alone ("the PR of risk 1" when it holds one PR)."""
    limit = rules.thresholds.recommendations
    recs: list[Recommendation] = []

    def target(nums: Sequence[int], obs: int | None, *, one: bool = False) -> tuple[str, tuple[int, ...]]:
        times = 1 if recs else 2  # the first is also the takeaways' "do" bullet
        named = tuple(n for n in nums if mentions[n] + times <= NAMED_MAX)[:2]
        for n in named:
            mentions[n] += times
        refs = tr(lang, "sep").join(f"#{n}" for n in named)
        if obs is None:
            return refs, named
        key = "rec.target" if named else "rec.target_obs_one" if one else "rec.target_obs"
        return tr(lang, key, prs=refs, obs=obs), named

    room = limit - (1 if themes else 0)
    for i, item in enumerate(risks[:room], start=1):
        shown = [n for n in item.prs if n in item.named] if item.named else list(item.prs)
        text_target, named = target(shown, i, one=len(item.prs) == 1)  # only PRs the observation named
        prs = (*named, *(n for n in item.prs if n not in named))[:5]
        mods: list[str] = []
        for n in prs:  # the owners of the PRs named first
            m = by_num[n].primary_module
            if m not in mods and m != OTHER_MODULE:
                mods.append(m)
        names = tr(lang, "sep").join(rules.module_display(m, lang) for m in mods[:2]) or tr(lang, "rec.owners")
        # ``prs`` and ``min`` too: texts that rules bring (RiskRule.texts) may use them
        text = tr(lang, f"rec.{item.kind}" if has_text(f"rec.{item.kind}") else "rec.generic", target=text_target,
                  prs=text_target, n=len(item.prs), modules=names, name=tr(lang, f"risk.{item.kind}"),
                  min=rules.thresholds.missing_tests_min_lines)
        recs.append(Recommendation(text=text, prs=prs, modules=tuple(mods)))
    if themes and len(recs) < limit:
        th = themes[0]
        refs, _ = target(th.prs, None)
        key = "rec.storyline" if refs else "rec.storyline_bare"
        recs.append(Recommendation(text=tr(lang, key, name=th.name, n=th.total, prs=refs), prs=tuple(th.prs[:3]),
                                   modules=(th.module,)))
    return recs


def _top_paths(counter: Counter[str], n: int) -> tuple[PathCount, ...]:
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return tuple(PathCount(path=p, prs=c) for p, c in ranked)


@dataclass(frozen=True)
class WeekAnalysis:
    """The language-neutral analysis of one repository-week: every PR of the window analysed (risk
    findings as data), the revert links, the window. Built once per repository-week
    (:func:`analyze_week`) and written in any number of languages (:func:`digest_from`).

    ``start``/``end``: the half-open window in ``tz``; ``analyses`` in number order.
    """

    repo: str
    week: IsoWeek
    tz: str
    rules: Rules
    start: datetime
    end: datetime
    week_prs: tuple[PullRequest, ...]
    analyses: tuple[PRAnalysis, ...]
    graph: RevertGraph
    risks: RiskRegistry


def analyze_week(prs: Iterable[PullRequest], *, repo: str, week: IsoWeek, rules: Rules, tz: str = "UTC",
                 risks: RiskRegistry = RISKS) -> WeekAnalysis:
    """Analyse ``repo``'s ``week`` (half-open window in IANA zone ``tz``), without language.

    ``prs`` may hold PRs outside the week: they serve as context for reverts and follow-up fixes
    (PRs merged in the 7 days before the week) and are otherwise ignored. Records sharing a number
    are one PR (the later one wins).

    Raises:
        InputError: unknown ``tz``.
    """
    zone = load_zone(tz)
    start, end = week.window(zone)
    ustart, uend = week.utc_window(zone)
    context = dedupe(prs)
    week_prs = [p for p in context.values() if ustart <= p.merged_at < uend]
    analyses, graph = analyze_prs(week_prs, context, rules.compiled, start, risks)
    return WeekAnalysis(repo=repo, week=week, tz=tz, rules=rules, start=start, end=end, week_prs=tuple(week_prs),
                        analyses=tuple(analyses), graph=graph, risks=risks)


@dataclass(frozen=True)
class Digest:
    """The digest of one repository-week, without language: what services pass around (the weekly
    job, chat answers, report pages, the CLI), one per repository-week whatever the languages posted.

    ``analysis``: the language-neutral :class:`WeekAnalysis` (risk findings are catalog keys with
    neutral arguments); ``generated_at``: aware UTC or None; ``skipped_records``: invalid input
    records skipped; ``prose``: what the optional :data:`chatbot.digest_service.DigestStep` wrote,
    by language (empty without one). :func:`write` turns it into text in one language.
    """

    analysis: WeekAnalysis
    generated_at: datetime | None = None
    skipped_records: int = 0
    prose: Mapping[str, Prose] = field(default_factory=dict)

    @property
    def repo(self) -> str:
        """``owner/name``."""
        return self.analysis.repo

    @property
    def week(self) -> IsoWeek:
        """The ISO week."""
        return self.analysis.week

    @property
    def tz(self) -> str:
        """The IANA zone of the week window."""
        return self.analysis.tz

    @property
    def total_prs(self) -> int:
        """PRs merged in the week."""
        return len(self.analysis.week_prs)


def build_digest(
    prs: Iterable[PullRequest],
    *,
    repo: str,
    week: IsoWeek,
    rules: Rules,
    tz: str = "UTC",
    skipped_records: int = 0,
    generated_at: datetime | None = None,
    risks: RiskRegistry = RISKS,
) -> Digest:
    """The language-neutral digest of ``repo`` for ``week`` (:func:`analyze_week`); write it with :func:`write`.

    Raises:
        InputError: unknown ``tz``.
    """
    wa = analyze_week(prs, repo=repo, week=week, rules=rules, tz=tz, risks=risks)
    return Digest(wa, generated_at=generated_at, skipped_records=skipped_records)


def write(d: Digest, lang: str) -> DigestText:
    """``d`` written in ``lang`` at output time: the rule-written text (:func:`digest_from`) with the
    step's prose of ``lang`` laid over it when there is some (:meth:`chatbot.models.Prose.apply`).

    Raises:
        InputError: ``lang`` has no catalog.
    """
    text = digest_from(d.analysis, lang, skipped_records=d.skipped_records, generated_at=d.generated_at)
    prose = d.prose.get(lang)
    return prose.apply(text) if prose is not None else text


def check_lang(lang: str) -> None:
    """Raises InputError unless ``lang`` has a catalog (:func:`chatbot.i18n.langs`)."""
    if lang not in langs():
        raise InputError(f"unsupported language {lang!r}: use {' or '.join(langs())}")


def digest_from(wa: WeekAnalysis, lang: str, *, skipped_records: int = 0,
                generated_at: datetime | None = None) -> DigestText:
    """The :class:`~chatbot.models.DigestText` of an analysed week written in ``lang`` (counts, key
    PRs, observations, themes and recommendations; text from the catalogs). Cheap next to
    :func:`analyze_week`.

    Raises:
        InputError: ``lang`` has no catalog.
    """
    check_lang(lang)
    rules, analyses, week_prs = wa.rules, list(wa.analyses), list(wa.week_prs)
    by_a = {a.pr.number: a for a in analyses}
    analyzed = [_analyzed(a, wa.graph, lang, rules, wa.repo) for a in analyses]
    by_num = {p.number: p for p in analyzed}
    eligible = _eligible(analyzed, by_a)
    key = eligible[: rules.key_prs]

    themes = storylines(_pool(eligible), _gists(analyzed), rules, lang, {a.pr.number: a.pr.files for a in analyses})
    mentions = _mentions(themes, key)
    risk_items = observations(analyzed, rules, lang, wa.risks, refs=_refs_of(analyses), mentions=mentions)
    recs = _recommendations(risk_items, by_num, themes, rules, lang, mentions)

    n = len(week_prs)
    compiled = rules.compiled
    hot_files, hot_dirs = _hot_paths(week_prs, rules.thresholds.hot_paths)
    return DigestText(
        repo=wa.repo,
        week=str(wa.week),
        tz=wa.tz,
        lang=lang,
        start=wa.start,
        end=wa.end,
        generated_at=generated_at,
        total_prs=n,
        skipped_records=skipped_records,
        avg_importance=_average_importance(analyzed, n),
        label_counts=_counts(lb for p in analyzed for lb in p.labels),
        module_counts=_counts(m for p in analyzed for m in p.modules),
        risk_tag_counts=_counts(t for p in analyzed for t in p.risk_tags),
        module_stats=_module_stats(analyses, rules, lang),
        prs=tuple(analyzed),
        key_prs=tuple(key),
        risks=tuple(risk_items),
        contributors=_contributors(week_prs),
        hot_files=hot_files,
        hot_dirs=hot_dirs,
        themes=tuple(themes),
        recommendations=tuple(recs),
        reverted=tuple(sorted(wa.graph.reverted_by)),
        ai_coauthor_share=_coauthor_share(week_prs, compiled.ai_coauthor),
        bot_coauthor_share=_coauthor_share(week_prs, compiled.bot_coauthor),
        module_names=_module_names(analyzed, rules, lang),
        vocabulary=_vocabulary(rules),
    )


def analysis_stats(wa: WeekAnalysis) -> WeekStats:
    """The :class:`~chatbot.history.WeekStats` of an analysed week without writing it: the same numbers as
    ``week_stats(digest_from(wa, lang))`` in any language (PR total, key PRs, average importance,
    authors, label/module/risk-tag counts), with no storylines, observations or text — what a trend row
    reads (``prhub/report.py`` ``trends_for``)."""
    analyses, rules = wa.analyses, wa.rules
    reverted = wa.graph.reverted_by
    eligible = sum(1 for a in analyses if reverted.get(a.pr.number) is None and not a.docs_only and not a.ci_only)
    return WeekStats(
        week=str(wa.week),
        total_prs=len(wa.week_prs),
        key_prs=min(eligible, rules.key_prs),
        avg_importance=_average_importance(analyses, len(wa.week_prs)),
        contributors=len(_contributors(wa.week_prs)),
        label_counts=_counts(lb for a in analyses for lb in a.labels),
        module_counts=_counts(m for a in analyses for m in a.modules),
        risk_tag_counts=_counts(t for a in analyses for t in a.risk_tags),
    )


def analysis_module_names(wa: WeekAnalysis, lang: str) -> dict[str, str]:
    """``digest_from(wa, lang).module_names`` without writing the digest: the display name in ``lang`` of
    every module a PR of the week touches, in the rules' order."""
    return _module_names(wa.analyses, wa.rules, lang)


def _average_importance(analyzed: Sequence[AnalyzedPR | PRAnalysis], n: int) -> float:
    """The mean importance of the week's ``n`` PRs, to one decimal (0.0 for an empty week)."""
    return round(sum(p.importance for p in analyzed) / n + 1e-9, 1) if n else 0.0


def _module_stats(analyses: Sequence[PRAnalysis], rules: Rules, lang: str) -> tuple[ModuleStat, ...]:
    """Per module: the PRs touching it and their added and deleted lines there; most PRs first,
    then most churn, then module id."""
    module_churn: dict[str, list[int]] = {}
    for a in analyses:
        for m, (x, y) in a.module_churn.items():
            c = module_churn.setdefault(m, [0, 0, 0])
            c[0] += 1
            c[1] += x
            c[2] += y
    return tuple(sorted(
        (ModuleStat(module=m, name=rules.module_display(m, lang), prs=c[0], additions=c[1], deletions=c[2])
         for m, c in module_churn.items()),
        key=lambda s: (-s.prs, -(s.additions + s.deletions), s.module),
    ))


def _hot_paths(week_prs: Sequence[PullRequest], top: int) -> tuple[tuple[PathCount, ...], tuple[PathCount, ...]]:
    """The ``top`` files and the ``top`` directories touched by the most PRs (each PR counted once
    per path), as ``(files, dirs)``."""
    hot_files: Counter[str] = Counter()
    hot_dirs: Counter[str] = Counter()
    for p in week_prs:
        paths = {f.path for f in p.files}
        hot_files.update(paths)
        hot_dirs.update({d for d in (x.rpartition("/")[0] for x in paths) if d})
    return _top_paths(hot_files, top), _top_paths(hot_dirs, top)


def _contributors(week_prs: Sequence[PullRequest]) -> tuple[ContributorCount, ...]:
    """The week's human authors (bots left out) with their PR counts; most PRs first, then login."""
    authors = Counter(
        p.author.login for p in week_prs if p.author is not None and not _is_bot(p.author.login, p.author.is_bot)
    )
    return tuple(ContributorCount(login=k, prs=v) for k, v in sorted(authors.items(), key=lambda kv: (-kv[1], kv[0])))


def _coauthor_share(week_prs: Sequence[PullRequest], pattern: RegexSet | None) -> float:
    """The share of the week's PRs with a co-author matching ``pattern`` (an AI assistant, a bot),
    to three decimals; 0.0 without a pattern or PRs."""
    n = len(week_prs)
    hits = sum(1 for p in week_prs if pattern and any(pattern.search(c) for c in p.co_authors))
    return round(hits / n, 3) if n else 0.0


def _module_names(analyzed: Sequence[AnalyzedPR | PRAnalysis], rules: Rules, lang: str) -> dict[str, str]:
    """The display name in ``lang`` of every module a PR of the week touches, in the rules' order."""
    module_ids = {m for p in analyzed for m in p.modules}
    order = rules.compiled.module_order
    return {m: rules.module_display(m, lang) for m in sorted(module_ids, key=lambda m: order.get(m, 0))}


def _vocabulary(rules: Rules) -> dict[str, tuple[str, ...]]:
    """:attr:`DigestText.vocabulary`: every name of each label (its name and prefix aliases), module
    (id, display names, aliases) and topic (display names, aliases) of ``rules``, repeats dropped."""
    out: dict[str, tuple[str, ...]] = {}
    for name in [r.name for r in rules.labels] + list(rules.prefix_aliases):
        out[f"labels.{name}"] = tuple(dict.fromkeys((name, *rules.prefix_aliases.get(name, ()))))
    for m in rules.modules:
        out[f"modules.{m.id}"] = tuple(dict.fromkeys((m.id, *m.name.values(), *m.aliases)))
    for t in rules.topics:
        out[f"topics.{t.id}"] = tuple(dict.fromkeys((*t.name.values(), *t.aliases)))
    return out


def _eligible(analyzed: Sequence[AnalyzedPR], by_a: Mapping[int, PRAnalysis]) -> list[AnalyzedPR]:
    """PRs that may be key PRs, in rank order: not reverted, not docs-only, not CI-only."""
    return sorted((p for p in analyzed if p.reverted_by is None and not by_a[p.number].docs_only
                   and not by_a[p.number].ci_only), key=_rank_key)


def _pool(eligible: Sequence[AnalyzedPR]) -> list[AnalyzedPR]:
    """PRs that may be in a storyline: the eligible ones that are not reverts."""
    return [p for p in eligible if "revert" not in p.risk_tags]


def _gists(analyzed: Sequence[AnalyzedPR]) -> dict[int, tuple[str, tuple[str, ...]]]:
    return {p.number: (p.gist, p.results) for p in analyzed}


def left_out(wa: WeekAnalysis, text: DigestText) -> dict[int, tuple[int | None, str]]:
    """Why each PR of the week is neither a key PR nor cited by a storyline of ``text`` (the digest
    of ``wa`` written in a language): ``{number: (rank among the key-PR candidates or None, the rule
    that kept it out, in English)}``. For comparison tools (``benchmarks/seed_compare.py``)."""
    by_a = {a.pr.number: a for a in wa.analyses}
    eligible = _eligible(text.prs, by_a)
    rank = {p.number: i for i, p in enumerate(eligible, start=1)}
    key = {p.number for p in text.key_prs}
    told = {n for t in text.themes for n in t.prs}
    sp = plan(_pool(eligible), _gists(text.prs), wa.rules, text.lang, {a.pr.number: a.pr.files for a in wa.analyses})
    chosen = {t.module: t for t in sp.themes}
    out: dict[int, tuple[int | None, str]] = {}
    for p in text.prs:
        n = p.number
        if n in key or n in told:
            continue
        a = by_a[n]
        if p.reverted_by is not None:
            out[n] = (None, f"reverted by #{p.reverted_by}")
        elif a.docs_only or a.ci_only:
            out[n] = (None, "docs-only" if a.docs_only else "CI-only")
        else:
            why = [f"importance {p.importance} below the key-PR cut ({wa.rules.key_prs})"]
            g = sp.group_of.get(n)
            if "revert" in p.risk_tags:
                why.append("a revert is in no storyline")
            elif g is None:
                why.append("in no storyline group (no series, no topic, primary module other)")
            elif g in chosen:
                why.append(f"storyline {sp.names[g]!r} cites {len(chosen[g].prs)} PRs, not this one")
            else:
                why.append(f"group {sp.names[g]!r} not chosen: {sp.left_out.get(g, '?')}")
            out[n] = (rank[n], "; ".join(why))
    return out


_REPO_URL = re.compile(r"^https?://[^/]+/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/\d+")


def repo_from_urls(prs: Iterable[PullRequest]) -> str | None:
    """The ``owner/name`` most PR URLs point at (``https://github.com/owner/name/pull/N``); ties
    broken alphabetically; None when no URL names a repository."""
    seen: Counter[str] = Counter()
    for p in prs:
        m = _REPO_URL.match(p.url)
        if m:
            seen[m.group(1)] += 1
    if not seen:
        return None
    return min(seen, key=lambda r: (-seen[r], r))


def repo_of_url(url: str) -> str | None:
    """The ``owner/name`` a GitHub PR URL (``https://github.com/owner/name/pull/N``) points at, else None."""
    m = _REPO_URL.match(url)
    return m.group(1) if m else None


def repo_of(pr: PullRequest) -> str | None:
    """The ``owner/name`` a PR's URL points at, or None when it has no GitHub PR URL."""
    m = _REPO_URL.match(pr.url)
    return m.group(1) if m else None


def select_repo(prs: Iterable[PullRequest], repo: str) -> list[PullRequest]:
    """The PRs of ``repo`` (case-insensitive): those whose URL names it, and those without a URL.

    Raises:
        InputError: PRs were given but none belongs to ``repo`` (the input is of another repository).
    """
    prs = list(prs)
    wanted = repo.casefold()
    kept = [p for p in prs if (r := repo_of(p)) is None or r.casefold() == wanted]
    if prs and not kept:
        found = repo_from_urls(prs)
        raise InputError(f"none of the input's PRs belong to {repo} (they are from {found}): "
                         "pass the matching --repo or the right --input")
    return kept
