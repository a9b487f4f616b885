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
from chatbot.models import DigestText
from chatbot.render.escape import safe_url
from chatbot.takeaways import headline, takeaways
from chatbot.writer import model_slots, prose_note


def _summary_blocks(d: DigestText, limits: CardLimits) -> list[Block]:
    lang = d.lang
    by_num = {p.number: p for p in d.prs}
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
    blocks: list[Block] = [window_context(d), Fields(items=tuple(fields))]

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
    blocks.append(Section(role="summary", heading=tr(lang, "h.summary"), lines=tuple(head)))

    if d.themes:
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
        blocks.append(Section(role="highlights", heading=tr(lang, "card.h.highlights"), lines=tuple(lines)))
    return blocks


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
    has_risks = bool(risky)
    has_tail = bool(keys or d.recommendations)
    parts = 1 + (1 if has_risks else 0) + (1 if has_tail else 0)

    def part_title(name: str, part: int) -> str:
        return tr(lang, "card.digest.part_header", repo=d.repo, week=d.week, title=name, part=part, parts=parts)

    summary = _summary_blocks(d, limits)
    bullets = takeaways(d)
    if bullets:  # the first card opens with the takeaways, before any count
        lines = tuple((Text(text="• "), Untrusted(text=clip(b, limits.detail_chars * 2))) for b in bullets)
        summary.insert(0, Section(role="takeaways", heading=tr(lang, "h.takeaways"), lines=lines))
    if d.prose is not None:  # who wrote the sentences and gists (model, partly, rules), as in the Markdown
        summary.append(Context(runs=(Untrusted(text=prose_note(lang, d.prose)),)))
    if parts > 1:
        summary.append(Context(runs=(Text(text=tr(lang, "card.continued", n=parts - 1)),)))
    cards = [Card(header=title, lang=lang, blocks=tuple(with_button(summary, lang, report_url)),
                  fallback=fallback_head, part=1, parts=parts)]

    part = 1
    if has_risks:
        part += 1
        rblocks: list[Block] = [risk_kinds_section(d, limits), top_risks_list(d, risky, report_url, limits),
                                Context(runs=(Text(text=tr(lang, "card.part", part=part, parts=parts)),))]
        name = tr(lang, "h.risks")
        cards.append(Card(header=part_title(name, part), lang=lang, blocks=tuple(rblocks),
                          fallback=f"{part_title(name, part)}{tr(lang, 'colon')}{tr(lang, 'card.risks.count', n=len(risky), total=d.total_prs)}",
                          part=part, parts=parts))

    if has_tail:
        part += 1
        tblocks: list[Block] = []
        if keys:
            items = tuple(gist_item(p, lang, limits)
                          for p in keys)
            in_highlights = sum(1 for p in d.key_prs if p.number in highlighted)
            more_text = tr(lang, "card.key_in_highlights", n=in_highlights) if in_highlights else ""
            tblocks.append(PRList(role="key_prs", heading=tr(lang, "card.h.key_prs"), items=items,
                                  more=len(d.key_prs) - len(keys), more_text=more_text))
        if d.recommendations:
            tblocks.append(Section(role="recommendations", heading=tr(lang, "card.h.recommendations"),
                                   lines=tuple((Text(text="• "), Untrusted(text=clip(r.text, limits.detail_chars * 2)),
                                                *mark_runs(model_slots(d.prose), f"recommendations.{i}"))
                                               for i, r in enumerate(d.recommendations))))
        tblocks.append(Context(runs=(Text(text=tr(lang, "card.part", part=part, parts=parts)),)))
        name = tr(lang, "card.h.key_prs")
        cards.append(Card(header=part_title(name, part), lang=lang, blocks=tuple(with_button(tblocks, lang, report_url)),
                          fallback=part_title(name, part), part=part, parts=parts))
    return cards
