"""The builders that the digest's and the answers' cards share: PR items, the window line, buttons.

Each takes a :class:`~chatbot.models.DigestText` (or its parts) and the card's language and gives
blocks of :mod:`chatbot.cards.model`. Pure: same digest and limits, same blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta

from chatbot.cards.fit import clip
from chatbot.cards.model import (
    Actions,
    Block,
    Button,
    Card,
    CardLimits,
    Context,
    Image,
    Line,
    PRItem,
    PRList,
    Run,
    Section,
    Text,
    Untrusted,
)
from chatbot.gist_line import shown_gist
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR, DigestText
from chatbot.render.escape import safe_url
from chatbot.writer import sentence_mark


def mark_runs(slots: frozenset[str], slot: str) -> tuple[Run, ...]:
    """The model's mark after a sentence it wrote, as a run (none for a rule-written one)."""
    mark = sentence_mark(slots, slot)
    return (Text(text=mark),) if mark else ()


def sep(lang: str) -> str:
    """The list separator of ``lang`` (catalog key ``sep``: ", " or "、")."""
    return tr(lang, "sep")


def joined(lang: str, items: Iterable[str]) -> str:
    """``items`` joined with :func:`sep` of ``lang``."""
    return sep(lang).join(items)


def pr_item(p: AnalyzedPR, detail: Line, limits: CardLimits) -> PRItem:
    """``p`` as a PR list item: its (safe) URL, its title cut to ``limits.title_chars``, ``detail``."""
    return PRItem(number=p.number, url=safe_url(p.url), title=clip(p.title, limits.title_chars), detail=detail)


def gist_item(p: AnalyzedPR, lang: str, limits: CardLimits) -> PRItem:
    """``p`` with its importance and, when it says more than the title, its gist
    (:func:`chatbot.gist_line.shown_gist`: the title is shown once)."""
    gist = shown_gist(p, lang)
    detail: Line = ((Text(text=f"{p.importance:.1f} · "), Untrusted(text=clip(gist, limits.detail_chars))) if gist
                    else (Text(text=f"{p.importance:.1f}"),))
    return pr_item(p, detail, limits)


def risk_names(p: AnalyzedPR, lang: str) -> str:
    """The names of ``p``'s risk tags in ``lang``, joined (``Large change, Security``)."""
    return joined(lang, (tr(lang, f"risk.{t}") for t in p.risk_tags))


def rank(p: AnalyzedPR) -> tuple[float, int]:
    """Sort key of the rank order: importance descending, then PR number ascending."""
    return (-p.importance, p.number)


def more_line(lang: str, n: int, report_url: str | None, *, kind: str = "") -> str:
    """"and ``n`` more" (pointing to the report when there is one); empty when ``n`` is 0. ``kind``
    names what the list holds (``key``: "and 21 more key PRs", so "top 3" does not read as if 21
    more were asked for)."""
    key = f"card.more_{kind}" if kind else "card.more"
    return tr(lang, f"{key}_in_report" if report_url else key, n=n) if n else ""


def week_range(d: DigestText) -> tuple[str, str]:
    """First and last day (inclusive) of the digest window, ``YYYY-MM-DD``."""
    return f"{d.start:%Y-%m-%d}", f"{(d.end - timedelta(days=1)):%Y-%m-%d}"


def window_context(d: DigestText) -> Context:
    """A context line: the window, the zone and the number of merged PRs."""
    start, end = week_range(d)
    return Context(runs=(Text(text=tr(d.lang, "card.window", start=start, end=end, tz=d.tz, total=d.total_prs)),))


def report_button(lang: str, report_url: str | None) -> Actions | None:
    """The "Full report" button, or None when there is no (safe) public URL."""
    url = safe_url(report_url or "")
    if not url:
        return None
    return Actions(buttons=(Button(label=tr(lang, "card.button.report"), url=url, name="open_report"),))


def with_button(blocks: list[Block], lang: str, report_url: str | None) -> list[Block]:
    """``blocks`` then the :func:`report_button` row, when there is a (safe) report URL."""
    button = report_button(lang, report_url)
    return blocks + [button] if button else blocks


def with_report_attached(card: Card) -> Card:
    """``card`` with the line "the full report follows in the thread as a file; a link needs a public
    URL" (``card.report.attached`` in the card's language), before its trailing row of buttons: part
    1 of a weekly post that has no public URL to link, whose report is posted as a file."""
    blocks = list(card.blocks)
    at = len(blocks) - 1 if blocks and isinstance(blocks[-1], Actions) else len(blocks)
    blocks.insert(at, Context(runs=(Text(text=tr(card.lang, "card.report.attached")),)))
    return card.model_copy(update={"blocks": tuple(blocks)})


def with_image(card: Card, image: Image) -> Card:
    """``card`` with ``image`` placed after its text, before a trailing row of buttons (if any)."""
    blocks = list(card.blocks)
    at = len(blocks) - 1 if blocks and isinstance(blocks[-1], Actions) else len(blocks)
    blocks.insert(at, image)
    return card.model_copy(update={"blocks": tuple(blocks)})


def risk_kinds_section(d: DigestText, limits: CardLimits) -> Section:
    """One line per risk kind (items of a kind merged: its PRs counted once, the first detail shown)."""
    lang = d.lang
    kinds: dict[str, tuple[set[int], str]] = {}
    for item in d.risks:
        prs, detail = kinds.setdefault(item.kind, (set(), item.detail))
        prs.update(item.prs)
    lines: list[Line] = []
    for kind, (prs, detail) in kinds.items():
        name = tr(lang, "card.risk_kind", name=tr(lang, f"risk.{kind}"), n=len(prs))
        lines.append((Text(text=name, bold=True), Text(text=tr(lang, "colon")), Untrusted(text=clip(detail, limits.detail_chars))))
    if not lines:
        lines.append((Text(text=tr(lang, "card.no_risks")),))
    return Section(role="risk_kinds", heading=tr(lang, "h.risks"), lines=tuple(lines))


def reasons_text(p: AnalyzedPR, lang: str) -> str:
    """``p``'s risk tags with their reasons (``large change: 11 files outside tests, +1,862/-1,031
    lines; dependency change: …``), joined with the catalog's clause separator: a reason holds commas
    itself ("fixes #41536, merged 05-11"), so commas between them read as one list."""
    return tr(lang, "sep.clause").join(f"{tr(lang, f'risk.{t}')}{tr(lang, 'colon')}{p.risk_reasons.get(t, '')}"
                                       for t in p.risk_tags)


def top_risks_list(d: DigestText, risky: Sequence[AnalyzedPR], report_url: str | None, limits: CardLimits) -> PRList:
    """The first ``limits.top_risks`` of ``risky`` (rank order) with their reasons, then "8 of 102
    shown" (linked to the full report, which lists them all). Role ``risks``."""
    lang = d.lang
    shown = list(risky[: limits.top_risks])
    items = tuple(pr_item(p, (Untrusted(text=clip(reasons_text(p, lang), limits.detail_chars)),), limits) for p in shown)
    more = len(risky) - len(shown)
    url = safe_url(report_url or "")
    key = "card.top_risks.shown_report" if url else "card.top_risks.shown"
    return PRList(role="risks", heading=tr(lang, "card.h.top_risks"), items=items, more=more,
                  more_text=tr(lang, key, n=len(shown), total=len(risky)) if more else "",
                  more_url=url if more else "")
