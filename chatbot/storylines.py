"""Storylines: the week's highlight themes as a reader names them. Pure.

Each PR of the pool (the week's PRs that are not reverted, docs-only or CI-only) goes to at most one
storyline, tried in this order:

1. a **series**: titles marked ``[1/n]`` … ``[5/n]``, ``(continued)``, ``Part 2``, sharing a title
   stem (the title without tags and markers, its first three words case-folded) with another PR;
2. a **topic** from the rules file (``topics:``; the first topic, in file order, one of whose
   aliases is found in the title as a whole word, case-insensitive);
3. its **primary module** (never the implicit ``other``).

A storyline needs at least two PRs of the pool and one key PR. Storylines are ranked by the sum of
the importance of their four most important PRs (ties: name); beyond the second, one weighing less
than a quarter of the first is left out. Each gets one sentence built
from its facts: how many PRs, what the two leading PRs do (their gists) and a result they state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chatbot.gist import title_without_tags
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR, Theme
from chatbot.rules import OTHER_MODULE, Rules

CITED_MAX = 4
"""PRs cited per storyline."""
LEAD_CHARS = 90
"""Characters of a leading PR's gist quoted in the storyline sentence."""

_SERIES = re.compile(r"\[\s*\d+\s*/\s*(?:n|\d+)\s*\]|\(\s*\d+\s*/\s*(?:n|\d+)\s*\)|\(continued\)|\bpart\s+\d+\b"
                     r"|\b\d+\s*/\s*n\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w.+-]*")


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
            alts = "|".join(re.escape(a) for a in (t.en, *t.aliases))
            out.append((t.id, t.en, re.compile(rf"(?<![\w-])(?:{alts})(?![\w])", re.IGNORECASE)))
        memo["topics"] = out
    result: list[tuple[str, str, re.Pattern[str]]] = memo["topics"]
    return result


def _clip(text: str, limit: int = LEAD_CHARS) -> str:
    text = text.rstrip(".")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def _sentence(group: _Group, gists: dict[int, tuple[str, tuple[str, ...]]], lang: str) -> str:
    lead = group.prs[:2]
    parts = []
    for p in lead:
        text, _ = gists.get(p.number, (p.title, ()))
        parts.append(tr(lang, "story.lead", number=p.number, what=_clip(text)))
    n = len(group.prs)
    count = tr(lang, "story.prs_one") if n == 1 else tr(lang, "story.prs", n=n)
    sentence = tr(lang, "story.sentence", count=count, leads=tr(lang, "story.sep").join(parts))
    sentence = sentence.replace("….", "…")
    results = [(p.number, r) for p in group.prs[:CITED_MAX] for r in gists.get(p.number, ("", ()))[1]]
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
    key: Sequence[AnalyzedPR],
    gists: dict[int, tuple[str, tuple[str, ...]]],
    rules: Rules,
    lang: str,
) -> list[Theme]:
    """The week's storylines, best first, at most ``rules.thresholds.themes_max``.

    Args:
        pool: PRs that may be highlighted, in rank order (importance descending, number ascending).
        key: the key PRs (a storyline needs one).
        gists: PR number -> (gist text, stated results) from :func:`chatbot.gist.extract_gist`.
        rules: the repository's rules (``topics``, module names).
        lang: ``en`` or ``zh`` for names of modules and the sentences.

    Returns:
        Themes whose ``prs`` are disjoint across themes; ``module`` is the storyline key
        (``series:<stem>``, ``topic:<id>`` or a module id) and ``summary`` its sentence.
    """
    return list(plan(pool, key, gists, rules, lang).themes)


def plan(
    pool: Sequence[AnalyzedPR],
    key: Sequence[AnalyzedPR],
    gists: dict[int, tuple[str, tuple[str, ...]]],
    rules: Rules,
    lang: str,
) -> StorylinePlan:
    """The :class:`StorylinePlan` behind :func:`storylines` (same arguments)."""
    groups = _groups(pool, rules, lang)
    key_nums = {p.number for p in key}
    ranked = []
    left_out: dict[str, str] = {}
    for g in groups.values():
        if len(g.prs) < 2:
            left_out[g.key] = "a storyline needs two PRs"
            continue
        if not any(p.number in key_nums for p in g.prs):
            left_out[g.key] = "a storyline needs a key PR"
            continue
        g.prs.sort(key=lambda x: (-x.importance, x.number))
        weight = round(sum(p.importance for p in g.prs[:CITED_MAX]), 2)
        ranked.append((weight, g))
    ranked.sort(key=lambda wg: (-wg[0], wg[1].name))
    themes: list[Theme] = []
    top = ranked[0][0] if ranked else 0.0
    cap = rules.thresholds.themes_max
    for i, (weight, g) in enumerate(ranked, start=1):
        if i > cap:
            left_out[g.key] = f"ranked {i}, beyond themes_max {cap}"
            continue
        if len(themes) >= 2 and weight < 0.25 * top:
            left_out[g.key] = f"weight {weight} under a quarter of the first ({top})"
            continue  # a minor storyline next to the week's main ones
        themes.append(Theme(module=g.key, name=g.name, weight=weight, prs=tuple(p.number for p in g.prs[:CITED_MAX]),
                            summary=_sentence(g, gists, lang)))
    group_of = {p.number: g.key for g in groups.values() for p in g.prs}
    return StorylinePlan(themes=tuple(themes), group_of=group_of, names={g.key: g.name for g in groups.values()},
                         left_out=left_out)


def _groups(pool: Sequence[AnalyzedPR], rules: Rules, lang: str) -> dict[str, _Group]:
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
    for p in pool:
        if p.number in placed:
            continue
        for tid, _, rx in topics:
            if rx.search(p.title):
                g = groups.setdefault(f"topic:{tid}", _Group("topic", f"topic:{tid}", display[tid], []))
                g.prs.append(p)
                placed.add(p.number)
                break
    for p in pool:
        if p.number in placed or p.primary_module == OTHER_MODULE:
            continue
        mod = p.primary_module
        g = groups.setdefault(mod, _Group("module", mod, rules.module_display(mod, lang), []))
        g.prs.append(p)
    return groups
