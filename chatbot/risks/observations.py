"""The week's risk observations: at most ``thresholds.risk_observations`` sentences a reviewer acts
on, each saying what could break and the evidence. Pure.

One observation per risk rule with tagged PRs, in registry order (:data:`chatbot.risks.RISKS`:
what a reviewer should do first comes first), cut at the threshold; every tagged PR stays in the
item's ``prs`` (the report's appendix lists them all). Each sentence names at most
:data:`CITED` PRs, preferring PRs no earlier observation named (``mentions`` counts the names a
digest already spends, so a PR is not named again and again). Special cases:

- ``bot-review-flag``: all bot findings of the week are one observation quoting the
  ``thresholds.review_quotes`` most severe (critical/P0 first, then the PR's rank);
- ``follow-up-fix``: told as a story, "#41536 needed the fix #41946 the same week";
- ``revert``: "#42434 reverted #39917".

A rule without an ``obs.<tag>`` text (a rule added later) gets the generic sentence
``obs.generic`` (its display name, count, first PR and reason).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath

from chatbot.i18n import has_text, tr
from chatbot.models import AnalyzedPR, ReviewFinding, RiskItem
from chatbot.review_findings import severity_rank
from chatbot.risks import RiskRegistry
from chatbot.rules import Rules

CITED = 3
"""PRs named at most in one observation's sentence."""
NAMES_MAX = 2 * CITED
"""PRs one observation's sentence names at most: its cited PRs and the PR each fix or revert points at."""
NAMED_MAX = 3
"""A Markdown digest names one PR in at most this many places (storylines, observations,
recommendations): a PR already named so often is counted in the observation, not named."""


def _rank_key(p: AnalyzedPR, tag: str = "") -> tuple[int, float, int]:
    """Stronger evidence for ``tag`` first (:attr:`AnalyzedPR.risk_weights`), then importance."""
    return (-p.risk_weights.get(tag, 0), -p.importance, p.number)


def cite(tagged: Sequence[AnalyzedPR], mentions: Counter[int], limit: int = CITED, tag: str = "") -> list[AnalyzedPR]:
    """Up to ``limit`` of ``tagged`` to name (returned in rank order for ``tag``): stronger evidence
    first, then PRs named fewer times, rank order among equals, none already named
    :data:`NAMED_MAX` times; ``mentions`` is updated."""
    free = [p for p in tagged if mentions[p.number] < NAMED_MAX]
    chosen = sorted(free, key=lambda p: (-p.risk_weights.get(tag, 0), mentions[p.number], -p.importance, p.number))[:limit]
    chosen.sort(key=lambda p: _rank_key(p, tag))
    mentions.update(p.number for p in chosen)
    return chosen


def _where(f: ReviewFinding) -> str:
    name = PurePosixPath(f.path).name if f.path else ""
    return f"{name}:{f.line}" if name and f.line else name


def _quotes(tagged: Sequence[AnalyzedPR], n: int, lang: str, mentions: Counter[int]) -> tuple[str, list[int]]:
    """The ``n`` most severe findings quoted, one per PR, and the PRs quoted (in order)."""
    rank = {p.number: i for i, p in enumerate(tagged)}
    found = sorted(((f, p) for p in tagged for f in p.findings),  # a quoted finding before a bare badge
                   key=lambda fp: (severity_rank(fp[0].severity), not fp[0].quote, rank[fp[1].number]))
    parts: list[str] = []
    used: dict[int, None] = {}  # the PRs quoted, in order
    for f, p in found:
        if len(parts) == n:
            break
        if p.number in used or mentions[p.number] >= NAMED_MAX:  # one quote per PR: three PRs'
            continue  # concerns say more than one PR's three
        used[p.number] = None
        mentions[p.number] += 1
        key = "obs.quote" if f.quote else "obs.quote_bare"
        # the sentence ends after the quote: its own full stop goes
        parts.append(tr(lang, key, pr=p.number, severity=f.severity, where=_where(f) or "-",
                        quote=f.quote.removesuffix(".")))
    return tr(lang, "obs.quote_sep").join(parts), list(used)


def _story(tagged: Sequence[AnalyzedPR], week: set[int], refs: dict[int, int], lang: str,
           mentions: Counter[int]) -> tuple[str, list[int]]:
    """``#41536 needed the fix #41946 the same week``: the fixes of one original told together; and
    the PRs it names (originals and fixes). A fix whose original cannot be named (no finding ref, or
    the original named :data:`NAMED_MAX` times already) is left out and not counted as named."""
    fixes: dict[int, list[int]] = {}
    for p in cite(tagged, mentions):
        orig = refs.get(p.number)
        if orig is not None and orig not in fixes and mentions[orig] >= NAMED_MAX:
            orig = None
        if orig is None:
            mentions[p.number] -= 1  # cite counted it; the sentence does not name it
            continue
        if orig not in fixes:
            mentions[orig] += 1
        fixes.setdefault(orig, []).append(p.number)
    parts = [tr(lang, "obs.story.same_week" if orig in week else "obs.story.week_before", orig=orig,
                fixes=tr(lang, "obs.fix" if len(nums) == 1 else "obs.fixes",
                         prs=tr(lang, "obs.and").join(f"#{n}" for n in nums)))
             for orig, nums in fixes.items()]
    return tr(lang, "obs.story_sep").join(parts), [n for orig, nums in fixes.items() for n in (orig, *nums)]


def _other_fixes(rest: Sequence[AnalyzedPR], lang: str, mentions: Counter[int], names: list[int]) -> str:
    """The fixes the story left out (``rest``, rank order): ``; also the fixes #41946, #42830`` while
    the sentence names fewer than :data:`NAMES_MAX` PRs (``names``, extended; only PRs named fewer
    than :data:`NAMED_MAX` times), "and N more" after those, or only counted (``; and 2 more
    follow-up PRs``) when the pairs already name six; empty when the story told every fix. W20 told
    three pairs of its five fixes and said nothing of the other two."""
    if not rest:
        return ""
    shown = cite(rest, mentions, limit=max(0, NAMES_MAX - len(names)))
    if not shown:
        return tr(lang, "obs.story_more_unnamed", n=len(rest))
    names.extend(p.number for p in shown)
    prs = tr(lang, "sep").join(f"#{p.number}" for p in shown)
    if len(rest) > len(shown):
        prs = tr(lang, "obs.items_more", items=prs, n=len(rest) - len(shown))
    one = len(rest) == 1
    return tr(lang, "obs.story_more", prs=prs, fixes=tr(lang, "obs.fix" if one else "obs.fixes", prs=prs))


def _refs(prs: Sequence[AnalyzedPR], lang: str) -> str:
    return tr(lang, "sep").join(f"#{p.number}" for p in prs)


def _reasons(prs: Sequence[AnalyzedPR], tag: str, lang: str, total: int) -> str:
    """The first PR with its reason, the others by number, and how many of the ``total`` tagged PRs
    go unnamed: ``#1: reason; also #2, #3 and 1 more`` (a reason may itself end "and 3 more files",
    so the other PRs follow a semicolon, not a comma)."""
    head = tr(lang, "obs.item", pr=prs[0].number, reason=prs[0].risk_reasons.get(tag, ""))
    rest = tr(lang, "sep").join(f"#{p.number}" for p in prs[1:])
    items = tr(lang, "obs.items_also", head=head, rest=rest) if rest else head
    return tr(lang, "obs.items_more", items=items, n=total - len(prs)) if total > len(prs) else items


def observations(
    prs: Sequence[AnalyzedPR],
    rules: Rules,
    lang: str,
    risks: RiskRegistry,
    *,
    refs: dict[int, int],
    mentions: Counter[int] | None = None,
) -> list[RiskItem]:
    """The week's observations in ``lang``, at most ``rules.thresholds.risk_observations``.

    Args:
        prs: the week's analysed PRs (risk tags, reasons in ``lang``, findings).
        refs: for a tagged PR, the PR its finding refers to (the fixed PR of a follow-up fix, the
            reverted PR of a revert), from the findings' ``ref_number``.
        mentions: how often each PR is already named in the digest; updated with the PRs named here.
    """
    th = rules.thresholds
    mentions = mentions if mentions is not None else Counter()
    by_num = {p.number: p for p in prs}
    items: list[RiskItem] = []
    for rule in risks:
        if len(items) == th.risk_observations:
            break
        tag = rule.tag
        tagged = sorted((p for p in prs if tag in p.risk_tags), key=lambda p: _rank_key(p, tag))
        if not tagged:
            continue
        n = len(tagged)
        if tag == "bot-review-flag":
            tagged = sorted(tagged, key=lambda p: (min((severity_rank(f.severity) for f in p.findings), default=9),
                                                   -p.importance, p.number))
            total = sum(len(p.findings) for p in tagged)
            quotes, names = _quotes(tagged, th.review_quotes, lang, mentions)
            detail = tr(lang, "obs.bot-review-flag", n=total, k=n, quotes=quotes)
        elif tag == "follow-up-fix":
            story, names = _story(tagged, set(by_num), refs, lang, mentions)
            story += _other_fixes([p for p in tagged if p.number not in names], lang, mentions, names)
            detail = tr(lang, "obs.follow-up-fix", n=n, story=story)
        elif tag == "revert":
            shown = cite(tagged, mentions)
            names = [p.number for p in shown]
            pairs = []
            for p in shown:
                ref = p.reverts if p.reverts is not None else refs.get(p.number)
                if ref is not None and mentions[ref] >= NAMED_MAX:
                    ref = None
                if ref is not None:
                    mentions[ref] += 1
                    names.append(ref)
                pairs.append(tr(lang, "obs.revert_pair", pr=p.number, ref=ref) if ref is not None
                             else tr(lang, "obs.revert_title", pr=p.number, reason=p.risk_reasons.get(tag, "")))
            detail = tr(lang, "obs.revert", n=n, pairs=tr(lang, "obs.item_sep").join(pairs))
        else:
            shown = cite(tagged, mentions, tag=tag)
            names = [p.number for p in shown]
            key = f"obs.{tag}" if has_text(f"obs.{tag}") else "obs.generic"
            named = _reasons(shown, tag, lang, n) if shown else tr(lang, "obs.in_appendix")
            detail = tr(lang, key, n=n, name=tr(lang, f"risk.{tag}"), items=named, prs=_refs(shown, lang) or named,
                        min=th.missing_tests_min_lines if tag == "missing-tests" else th.core_path_min_lines)
        items.append(RiskItem(kind=tag, prs=tuple(p.number for p in tagged), detail=detail, named=tuple(names)))
    return items
