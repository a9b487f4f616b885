"""The weekly digest as chat cards: a summary part, a risk part and a key-PR part.

Pure: same digest and limits, same cards.
"""

from __future__ import annotations

from chatbot.cards.compose import (
    gist_item,
    joined,
    mark_runs,
    rank,
    risk_kinds_section,
    top_risks_list,
    week_range,
    window_context,
    with_button,
)
from chatbot.cards.fit import clip
from chatbot.cards.model import (
    DEFAULT_LIMITS,
    Block,
    Card,
    CardLimits,
    Context,
    FieldItem,
    Fields,
    Line,
    PRList,
    PRRef,
    Run,
    Section,
    Text,
    Untrusted,
)
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR, DigestText
from chatbot.render.escape import safe_url
from chatbot.takeaways import headline, takeaways
from chatbot.writer import model_slots, prose_note


def _summary_blocks(d: DigestText, limits: CardLimits) -> list[Block]:
    """Part 1's summary: the window line, the counts, the summary lines and the highlights (when
    the week has storylines)."""
    blocks: list[Block] = [window_context(d), _counts_fields(d), _summary_section(d)]
    if d.themes:
        blocks.append(_highlights_section(d, limits))
    return blocks


def _counts_fields(d: DigestText) -> Fields:
    """Merged, key and risky PR counts, the average importance, then the top six labels and
    modules with their PR counts (when there are any; each cut to 600 characters)."""
    lang = d.lang
    risky = sum(1 for p in d.prs if p.risk_tags)
    labels = joined(lang, (tr(lang, "paren", text=k, inner=v) for k, v in list(d.label_counts.items())[:6]))
    modules = joined(lang, (tr(lang, "paren", text=s.name, inner=s.prs) for s in d.module_stats[:6]))
    fields: list[FieldItem] = [
        FieldItem(label=tr(lang, "card.f.merged"), value=(Text(text=str(d.total_prs)),)),
        FieldItem(label=tr(lang, "card.f.key"), value=(Text(text=str(len(d.key_prs))),)),
        FieldItem(label=tr(lang, "card.f.avg"), value=(Text(text=f"{d.avg_importance:.1f}"),)),
        FieldItem(label=tr(lang, "card.f.risky"), value=(Text(text=str(risky)),)),
    ]
    if labels:
        fields.append(FieldItem(label=tr(lang, "card.f.labels"), value=(Untrusted(text=clip(labels, 600)),)))
    if modules:
        fields.append(FieldItem(label=tr(lang, "card.f.modules"), value=(Untrusted(text=clip(modules, 600)),)))
    return Fields(items=tuple(fields), sep=tr(lang, "colon"))


def _summary_section(d: DigestText) -> Section:
    """The summary lines: skipped records (if any), the week's directions (if any), the risk kinds
    with their counts or "no risks"."""
    lang = d.lang
    head: list[Line] = []
    if d.skipped_records:
        head.append((Text(text=tr(lang, "md.skipped", n=d.skipped_records)),))
    if d.themes:
        themes = joined(lang, (th.name for th in d.themes))
        head.append((Text(text=tr(lang, "sum.directions", themes=themes)),))
    if d.risk_tag_counts:
        kinds = joined(lang, (tr(lang, "card.risk_kind", name=tr(lang, f"risk.{k}"), n=v)
                             for k, v in d.risk_tag_counts.items()))
        head.append((Text(text=tr(lang, "sum.risk", risks=kinds)),))
    else:
        head.append((Text(text=tr(lang, "card.no_risks")),))
    return Section(role="summary", heading=tr(lang, "h.summary"), lines=tuple(head))


def _highlights_section(d: DigestText, limits: CardLimits) -> Section:
    """Two lines per storyline: its name and summary (with the model's mark), then its PRs that
    are in the week as references."""
    lang = d.lang
    by_num = {p.number: p for p in d.prs}
    lines: list[Line] = []
    slots = model_slots(d.prose)
    for th in d.themes:
        lines.append((Text(text=th.name, bold=True), Text(text=tr(lang, "colon")),
                      Untrusted(text=clip(th.summary, limits.detail_chars * 2)),
                      *mark_runs(slots, f"storylines.{th.module}")))
        refs: list[Run] = [Text(text="↳ ")]
        for n in th.prs:
            if n in by_num:
                if len(refs) > 1:
                    refs.append(Text(text=" · "))
                refs.append(PRRef(number=n, url=safe_url(by_num[n].url)))
        lines.append(tuple(refs))
    return Section(role="highlights", heading=tr(lang, "card.h.highlights"), lines=tuple(lines))


def digest_cards(digest: DigestText, *, report_url: str | None = None, limits: CardLimits = DEFAULT_LIMITS) -> list[Card]:
    """The weekly digest as ordered chat cards (part 1 first; parts 2..n go in its thread).

    Part 1 holds the takeaways and the summary: window, counts, risk headline and highlights.
    Part 2 (when any PR carries a risk tag) holds the risk observations, one line per kind, and
    the top ``limits.top_risks`` risky PRs in rank order (importance descending, number ascending)
    with their reasons, then "8 of 102 shown" linked to the full report (which lists all). The
    last part lists the key PRs not already cited in the highlights (no PR twice in one digest's
    cards) and the recommendations. So a week of any size is three cards.

    Args:
        digest: the week's digest; its ``lang`` is the cards' language.
        report_url: public URL of the full report; adds a "Full report" button (omitted when None
            or not an http(s) URL).
        limits: sizes of parts and texts.

    Returns:
        One or more cards, ``part``/``parts`` set; a week without PRs gives one card.
    """
    d = digest
    lang = d.lang
    start, end = week_range(d)
    week_label = tr(lang, "paren", text=d.week, inner=f"{start[5:]} – {end[5:]}")
    title = tr(lang, "card.digest.header", repo=d.repo, week=week_label)
    fallback_head = f"{title}{tr(lang, 'colon')}{clip(headline(d), 2000)}"  # the notification shows the headline
    if d.total_prs == 0:
        blocks: list[Block] = [window_context(d), Section(role="summary", lines=((Text(text=tr(lang, "card.empty_week", week=d.week)),),))]
        return [Card(header=title, lang=lang, blocks=tuple(with_button(blocks, lang, report_url)), fallback=fallback_head)]

    risky = sorted((p for p in d.prs if p.risk_tags), key=rank)
    highlighted = {n for th in d.themes for n in th.prs}
    keys = [p for p in d.key_prs if p.number not in highlighted][: limits.key_prs]
    has_tail = bool(keys or d.recommendations)
    parts = 1 + sum(1 for later in (risky, has_tail) if later)
    cards = [_summary_part(d, title, fallback_head, parts, report_url, limits)]
    if risky:
        cards.append(_risks_part(d, risky, len(cards) + 1, parts, report_url, limits))
    if has_tail:
        cards.append(_key_prs_part(d, keys, highlighted, len(cards) + 1, parts, report_url, limits))
    return cards


def _part_title(d: DigestText, name: str, part: int, parts: int) -> str:
    """The header of part ``part`` of ``parts`` (2 and on), titled ``name``."""
    return tr(d.lang, "card.digest.part_header", repo=d.repo, week=d.week, title=name, part=part, parts=parts)


def _part_line(lang: str, part: int, parts: int) -> Context:
    """The "part 2 of 3" line that closes parts 2 and on."""
    return Context(runs=(Text(text=tr(lang, "card.part", part=part, parts=parts)),))


def _summary_part(d: DigestText, title: str, fallback: str, parts: int, report_url: str | None,
                  limits: CardLimits) -> Card:
    """Part 1: the takeaways, then the summary (:func:`_summary_blocks`), who wrote the prose, and
    "continued in N more parts" when there are later parts."""
    lang = d.lang
    summary = _summary_blocks(d, limits)
    bullets = takeaways(d)
    if bullets:  # the first card opens with the takeaways, before any count
        lines = tuple((Text(text="• "), Untrusted(text=clip(b, limits.detail_chars * 2))) for b in bullets)
        summary.insert(0, Section(role="takeaways", heading=tr(lang, "h.takeaways"), lines=lines))
    if d.prose is not None:  # who wrote the sentences and gists (model, partly, rules), as in the Markdown
        summary.append(Context(runs=(Untrusted(text=prose_note(lang, d.prose)),)))
    if parts > 1:
        summary.append(Context(runs=(Text(text=tr(lang, "card.continued", n=parts - 1)),)))
    return Card(header=title, lang=lang, blocks=tuple(with_button(summary, lang, report_url)),
                fallback=fallback, part=1, parts=parts)


def _risks_part(d: DigestText, risky: list[AnalyzedPR], part: int, parts: int, report_url: str | None,
                limits: CardLimits) -> Card:
    """The risk part: one line per risk kind, then the top risky PRs (``risky`` in rank order)."""
    lang = d.lang
    header = _part_title(d, tr(lang, "h.risks"), part, parts)
    blocks: list[Block] = [risk_kinds_section(d, limits), top_risks_list(d, risky, report_url, limits),
                           _part_line(lang, part, parts)]
    return Card(header=header, lang=lang, blocks=tuple(blocks),
                fallback=f"{header}{tr(lang, 'colon')}{tr(lang, 'card.risks.count', n=len(risky), total=d.total_prs)}",
                part=part, parts=parts)


def _key_prs_part(d: DigestText, keys: list[AnalyzedPR], highlighted: set[int], part: int, parts: int,
                  report_url: str | None, limits: CardLimits) -> Card:
    """The last part: the key PRs not cited in the highlights (``keys``), then the recommendations."""
    lang = d.lang
    blocks: list[Block] = []
    if keys:
        in_highlights = sum(1 for p in d.key_prs if p.number in highlighted)
        more_text = tr(lang, "card.key_in_highlights", n=in_highlights) if in_highlights else ""
        blocks.append(PRList(role="key_prs", heading=tr(lang, "card.h.key_prs"),
                             items=tuple(gist_item(p, lang, limits) for p in keys),
                             more=len(d.key_prs) - len(keys), more_text=more_text))
    if d.recommendations:
        blocks.append(Section(role="recommendations", heading=tr(lang, "card.h.recommendations"),
                              lines=tuple((Text(text="• "), Untrusted(text=clip(r.text, limits.detail_chars * 2)),
                                           *mark_runs(model_slots(d.prose), f"recommendations.{i}"))
                                          for i, r in enumerate(d.recommendations))))
    blocks.append(_part_line(lang, part, parts))
    header = _part_title(d, tr(lang, "card.h.key_prs"), part, parts)
    return Card(header=header, lang=lang, blocks=tuple(with_button(blocks, lang, report_url)),
                fallback=header, part=part, parts=parts)
