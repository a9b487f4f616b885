"""Storylines: the week's highlight themes as a reader names them. Pure.

Each PR of the pool (the week's PRs that are not reverted, docs-only or CI-only) goes to at most one
storyline, tried in this order:

1. a **series**: titles marked ``[1/n]`` … ``[5/n]``, ``(continued)``, ``Part 2``, sharing a title
   stem (the title without tags and markers, its first three words case-folded) with another PR;
2. a **topic** from the rules file (``topics:``; the first topic, in file order, whose name, an
   alias (whole word, case-insensitive) or a ``titles`` pattern is found in the title's leading
   ``[tags]``, then in the whole title, then, for a topic with ``paths``, whose paths hold at least
   half of the PR's changed lines: ``rust/**`` is the Rust frontend; a topic with ``requires`` takes
   only PRs changing one of those paths); a topic left with one PR gives it up to the PR's next choice;
3. **hardening**: a security-sensitive PR (its risk tag) in no series or topic;
4. its **primary module** (never the implicit ``other``).

Storylines are chosen from the whole week's pool, not only its key PRs (issue 17: the Rust frontend
of W27 cites 7 PRs ranked 28-100 by importance). A storyline needs at least two PRs. Storylines are
ranked by the sum of the importance of their ``storyline_prs`` most important PRs (ties: name); at most
``themes_max`` are kept, and beyond the second, one weighing less than a quarter of the first is left
out. The hardening storyline and the topics marked ``always`` (dependency updates) are kept beside
them whenever they have two PRs. Each cites its
``storyline_prs`` most important PRs and gets one sentence built from its facts: its name, what its
three leading PRs do (their titles, quoted as the PR's own words) and a result one of them states.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chatbot.gist import clip_words, title_without_tags
from chatbot.globs import PathMatcher
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR, FileChange, Theme
from chatbot.rules import OTHER_MODULE, Rules

HARDENING = "hardening"
"""The key of the hardening storyline (security-sensitive PRs in no series or topic)."""
LEADS = 3
"""PRs whose titles the storyline sentence quotes."""
FIXES_TOLD = 2
"""Follow-up fixes of its cited PRs a storyline tells beyond ``storyline_prs``."""
LEAD_CHARS = 90
"""Characters of a series' leading title in its name."""
TITLE_CHARS = 70
TERSE_TITLE_WORDS = 3
"""A cited title of fewer words than this is followed by its gist (:func:`_lead_what`)."""
"""Characters of a leading PR's title quoted in the storyline sentence."""

_SERIES = re.compile(r"\[\s*\d+\s*/\s*(?:n|\d+)\s*\]|\(\s*\d+\s*/\s*(?:n|\d+)\s*\)|\(continued\)|\bpart\s+\d+\b"
                     r"|\b\d+\s*/\s*n\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w.+-]*")
_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*){1,8}")


@dataclass(frozen=True)
class _Group:
    kind: str
    key: str
    name: str
    prs: list[AnalyzedPR]


def series_stem(title: str) -> str | None:
    """The stem of a series title (``[2/n] Migrate X to Y (continued)`` -> ``migrate x to``), else None."""
    if not _SERIES.search(title):
        return None
    rest = _SERIES.sub(" ", title)
    rest = re.sub(r"\[[^\]]*\]", " ", rest)
    words = _WORD.findall(rest.casefold())
    return " ".join(words[:3]) if words else None


def _topic_patterns(rules: Rules) -> list[tuple[str, str, re.Pattern[str]]]:
    memo = rules.compiled.memo
    if "topics" not in memo:
        out = []
        for t in rules.topics:
            alts = "|".join([re.escape(a) for a in (t.en, *t.aliases)] + [f"(?:{r})" for r in t.titles])
            out.append((t.id, t.en, re.compile(rf"(?<![\w-])(?:{alts})(?![\w])", re.IGNORECASE)))
        memo["topics"] = out
    result: list[tuple[str, str, re.Pattern[str]]] = memo["topics"]
    return result


def _clip(text: str, limit: int = LEAD_CHARS) -> str:
    return clip_words(text.rstrip("."), limit, trim=" ,;:")


def _lead_what(p: AnalyzedPR, gists: dict[int, tuple[str, tuple[str, ...]]]) -> str:
    """A cited PR as the storyline's sentence names it: its title without tags, and when the title is
    shorter than :data:`TERSE_TITLE_WORDS` words its gist after a colon ("DSpark" alone, W27's most
    important PR, said nothing of what it does); at most :data:`TITLE_CHARS` characters."""
    title = title_without_tags(p.title)
    gist = gists.get(p.number, ("", ()))[0]
    if len(title.split()) < TERSE_TITLE_WORDS and gist and not gist.casefold().startswith(title.casefold()):
        return _clip(f"{title}: {gist}", TITLE_CHARS)
    return _clip(title, TITLE_CHARS)


def _sentence(group: _Group, gists: dict[int, tuple[str, tuple[str, ...]]], lang: str, cited: int) -> str:
    parts = [tr(lang, "story.lead", number=p.number, what=_lead_what(p, gists)) for p in group.prs[:LEADS]]
    n = len(group.prs)
    count = tr(lang, "story.prs_one") if n == 1 else tr(lang, "story.prs", n=n)
    sentence = tr(lang, "story.sentence", name=group.name, count=count, leads=tr(lang, "story.sep").join(parts))
    sentence = sentence.replace("….", "…")
    results = [(p.number, r) for p in group.prs[:cited] for r in gists.get(p.number, ("", ()))[1]]
    if results:
        number, result = results[0]
        sentence = tr(lang, "story.with_result", sentence=sentence, number=number, result=result)
    return sentence


@dataclass(frozen=True)
class StorylinePlan:
    """How the week's storylines were chosen: the chosen :attr:`themes`, the candidate group each
    pool PR was placed in (:attr:`group_of`, a storyline key) and, for each candidate group not
    chosen, the rule that left it out (:attr:`left_out`, English, for tools such as
    ``benchmarks/seed_compare.py``)."""

    themes: tuple[Theme, ...]
    group_of: dict[int, str]
    names: dict[str, str]
    left_out: dict[str, str]


def storylines(
    pool: Sequence[AnalyzedPR],
    gists: dict[int, tuple[str, tuple[str, ...]]],
    rules: Rules,
    lang: str,
    files: Mapping[int, Sequence[FileChange]] | None = None,
) -> list[Theme]:
    """The week's storylines, best first, at most ``rules.thresholds.themes_max``.

    Args:
        pool: PRs that may be highlighted, in rank order (importance descending, number ascending).
        gists: PR number -> (gist text, stated results) from :func:`chatbot.gist.extract_gist`.
        rules: the repository's rules (``topics``, module names).
        lang: ``en`` or ``zh`` for names of modules and the sentences.
        files: PR number -> its changed files, for topics with ``paths`` (none: titles only).

    Returns:
        Themes whose ``prs`` are disjoint across themes; ``module`` is the storyline key
        (``series:<stem>``, ``topic:<id>`` or a module id) and ``summary`` its sentence.
    """
    return list(plan(pool, gists, rules, lang, files).themes)


def plan(
    pool: Sequence[AnalyzedPR],
    gists: dict[int, tuple[str, tuple[str, ...]]],
    rules: Rules,
    lang: str,
    files: Mapping[int, Sequence[FileChange]] | None = None,
) -> StorylinePlan:
    """The :class:`StorylinePlan` behind :func:`storylines` (same arguments)."""
    files = files or {}
    groups = _groups(pool, rules, lang, files)
    cited = rules.thresholds.storyline_prs
    ranked = []
    left_out: dict[str, str] = {}
    kept: list[tuple[float, _Group]] = []  # hardening and the topics marked always
    always = {f"topic:{t.id}" for t in rules.topics if t.always}
    for g in groups.values():
        if len(g.prs) < 2:
            left_out[g.key] = "a storyline needs two PRs"
            continue
        g.prs[:] = _citation_order(g.prs, cited)
        weight = round(sum(p.importance for p in sorted(g.prs, key=lambda x: -x.importance)[:cited]), 2)
        if g.key == HARDENING or g.key in always:
            kept.append((weight, g))
        else:
            ranked.append((weight, g))
    ranked.sort(key=lambda wg: (-wg[0], wg[1].name))
    chosen: list[tuple[float, _Group]] = []
    top = ranked[0][0] if ranked else 0.0
    cap = rules.thresholds.themes_max
    for i, (weight, g) in enumerate(ranked, start=1):
        if i > cap:
            left_out[g.key] = f"ranked {i}, beyond themes_max {cap}"
            continue
        if len(chosen) >= 2 and weight < 0.25 * top:
            left_out[g.key] = f"weight {weight} under a quarter of the first ({top})"
            continue  # a minor storyline next to the week's main ones
        chosen.append((weight, g))
    chosen += sorted(kept, key=lambda wg: (wg[1].key != HARDENING, -wg[0], wg[1].name))
    themes = [Theme(module=g.key, name=g.name, weight=weight, prs=tuple(p.number for p in g.prs[:_told(g.prs, cited)]),
                    summary=_sentence(g, gists, lang, cited), size=len(g.prs)) for weight, g in chosen]
    group_of = {p.number: g.key for g in groups.values() for p in g.prs}
    return StorylinePlan(themes=tuple(themes), group_of=group_of, names={g.key: g.name for g in groups.values()},
                         left_out=left_out)


def _groups(pool: Sequence[AnalyzedPR], rules: Rules, lang: str,
            files: Mapping[int, Sequence[FileChange]]) -> dict[str, _Group]:
    """Candidate storyline groups of the pool: series, then topics, then primary modules."""
    stems: dict[str, list[AnalyzedPR]] = {}
    for p in pool:
        stem = series_stem(p.title)
        if stem is not None:
            stems.setdefault(stem, []).append(p)
    by_stem_title = {stem: prs for stem, prs in stems.items()}
    # PRs of the week sharing a series stem join it even without a marker ("Eliminate more ... syncs").
    for p in pool:
        words = _WORD.findall(title_without_tags(p.title).casefold())
        stem = " ".join(words[:3])
        if stem in by_stem_title and p not in by_stem_title[stem]:
            by_stem_title[stem].append(p)
    groups: dict[str, _Group] = {}
    placed: set[int] = set()
    for stem, prs in by_stem_title.items():
        if len(prs) >= 2:
            prs_sorted = sorted(prs, key=lambda x: (-x.importance, x.number))
            name = tr(lang, "story.series", title=_clip(title_without_tags(_SERIES.sub("", prs_sorted[0].title)).strip(), 60))
            groups[f"series:{stem}"] = _Group("series", f"series:{stem}", name, prs_sorted)
            placed.update(x.number for x in prs)
    topics = _topic_patterns(rules)
    display = {t.id: t.display(lang) for t in rules.topics}
    by_path = [(t.id, PathMatcher(t.paths)) for t in rules.topics if t.paths]
    needs = {f"topic:{t.id}": PathMatcher(t.requires) for t in rules.topics if t.requires}
    names = {HARDENING: tr(lang, "story.hardening")}
    names.update({f"topic:{tid}": display[tid] for tid in display})
    choices: dict[int, list[str]] = {}
    for p in pool:
        if p.number in placed:
            continue
        tags = _TAGS.match(p.title)
        mine = files.get(p.number, ())
        found = [f"topic:{tid}" for tid, _, rx in topics if tags and rx.search(tags.group(0))]
        found += [f"topic:{tid}" for tid, _, rx in topics if rx.search(p.title)]
        found += [f"topic:{tid}" for tid, m in by_path if _mostly_under(mine, m)]
        found = [c for c in found if c not in needs or any(needs[c].matches(f.path) for f in mine)]
        if "security-sensitive" in p.risk_tags:
            found.append(HARDENING)
        if p.primary_module != OTHER_MODULE:
            found.append(p.primary_module)
            names[p.primary_module] = rules.module_display(p.primary_module, lang)
        choices[p.number] = list(dict.fromkeys(found))
    # Each PR goes to its first choice; a topic (or hardening) left with one PR gives it up to the
    # PR's next choice, so "Kimi" with one parser PR does not swallow it from the parsers topic.
    dropped: set[str] = set()
    while True:
        first = {n: next((c for c in cs if c not in dropped), None) for n, cs in choices.items()}
        sizes = Counter(c for c in first.values() if c is not None)
        lonely = {c for c, k in sizes.items() if k < 2 and (c.startswith("topic:") or c == HARDENING)}
        if not lonely:
            break
        dropped |= lonely
    for p in pool:
        key = first.get(p.number)
        if key is None:
            continue
        kind = "topic" if key.startswith("topic:") else "hardening" if key == HARDENING else "module"
        groups.setdefault(key, _Group(kind, key, names[key], [])).prs.append(p)
    return groups


def _citation_order(prs: Sequence[AnalyzedPR], cited: int) -> list[AnalyzedPR]:
    """A storyline's PRs in the order it cites them: what the week built first (PRs not labelled
    ``bugfix``, by importance, then number), then the bug fixes; a follow-up fix of one of the first
    ``cited`` PRs moves up behind them, since it is part of that PR's story ("#46076 needed the fix
    #47079"). :func:`_told` says how many of them the storyline cites."""
    ranked = sorted(prs, key=lambda x: ("bugfix" in x.labels, -x.importance, x.number))
    lead = ranked[:cited]
    lead_nums = {p.number for p in lead}
    fixes = [p for p in ranked[cited:] if any(n in lead_nums for n in _fixes_of(p, prs))][:FIXES_TOLD]
    return lead + fixes + [p for p in ranked[cited:] if p not in fixes]


def _fixes_of(fix: AnalyzedPR, prs: Sequence[AnalyzedPR]) -> list[int]:
    """The PRs of ``prs`` whose ``fixed_by`` names ``fix``."""
    return [p.number for p in prs if fix.number in p.fixed_by]


def _told(ordered: Sequence[AnalyzedPR], cited: int) -> int:
    """How many of ``ordered`` (:func:`_citation_order`) a storyline cites: the first ``cited`` and
    the follow-up fixes of those that come right behind them."""
    lead = {p.number for p in ordered[:cited]}
    n = min(cited, len(ordered))
    while n < len(ordered) and any(x in lead for x in _fixes_of(ordered[n], ordered)):
        n += 1
    return n


def _mostly_under(files: Sequence[FileChange], paths: PathMatcher) -> bool:
    """At least half of the changed lines of ``files`` (and at least one file) are under ``paths``."""
    total = sum(f.additions + f.deletions for f in files)
    under = [f for f in files if paths.matches(f.path)]
    return bool(under) and 2 * sum(f.additions + f.deletions for f in under) >= total
