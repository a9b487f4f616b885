"""Cards that answer chat questions: a week's risks, one PR, one module, key PRs, contributors,
trends, PRs matching a filter, and plain messages.

Pure: same digest and limits, same card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from chatbot.cards.compose import (
    gist_item,
    joined,
    more_line,
    pr_item,
    rank,
    risk_kinds_section,
    risk_names,
    sep,
    top_risks_list,
    window_context,
    with_button,
)
from chatbot.cards.fit import clip
from chatbot.cards.model import (
    DEFAULT_LIMITS,
    Actions,
    Block,
    Button,
    Card,
    CardLimits,
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
from chatbot.gist_line import shown_gist
from chatbot.history import Trends, signed
from chatbot.i18n import lines_text, tr
from chatbot.models import AnalyzedPR, DigestText
from chatbot.render.escape import safe_url


def message_card(header: str, lines: Sequence[str], *, lang: str, role: str = "message") -> Card:
    """A simple card: a header and trusted lines of text (errors, confirmations)."""
    return Card(header=header, lang=lang, blocks=(Section(role=role, lines=tuple((Text(text=ln),) for ln in lines)),),
                fallback=" ".join([header, *lines]))


def _risk_reason_lines(p: AnalyzedPR, lang: str, limits: CardLimits) -> tuple[Line, ...]:
    return tuple(
        (Text(text="• "), Text(text=tr(lang, f"risk.{t}"), bold=True), Text(text=tr(lang, "colon")),
         Untrusted(text=clip(p.risk_reasons.get(t, ""), limits.detail_chars)))
        for t in p.risk_tags
    )


def risks_card(d: DigestText, *, report_url: str | None = None, limits: CardLimits = DEFAULT_LIMITS,
               notice: Sequence[str] = ()) -> Card:
    """The risks of a week: risk observations per kind, then the top risky PRs (rank order) with reasons.

    Args:
        d: the week's digest.
        report_url: adds "Full report" and the "8 of 102 shown" link target.
        limits: ``top_risks`` risky PRs are listed.
        notice: trusted lines shown first (e.g. "no PRs yet this week, here is last week").
    """
    lang = d.lang
    header = tr(lang, "card.risks.header", repo=d.repo, week=d.week)
    blocks: list[Block] = [window_context(d)]
    if notice:
        blocks.insert(0, Section(role="notice", lines=tuple((Text(text=n),) for n in notice)))
    risky = sorted((p for p in d.prs if p.risk_tags), key=rank)
    blocks.append(Section(role="risk_kinds", lines=((Text(text=tr(lang, "card.risks.count", n=len(risky), total=d.total_prs)),),)))
    blocks.append(risk_kinds_section(d, limits))
    if risky:
        blocks.append(top_risks_list(d, risky, report_url, limits))
    return Card(header=header, lang=lang, blocks=tuple(with_button(blocks, lang, report_url)),
                fallback=f"{header}{tr(lang, 'colon')}{tr(lang, 'card.risks.count', n=len(risky), total=d.total_prs)}")


def _pr_link_line(lang: str, key: str, number: int, url: str) -> Line:
    """The catalog sentence ``key`` (holding ``#{number}``) with the number as a PR reference."""
    head, _, tail = tr(lang, key, number="\x00").partition("#\x00")
    runs: list[Run] = [Text(text=head)] if head else []
    runs.append(PRRef(number=number, url=safe_url(url)))
    if tail:
        runs.append(Text(text=tail))
    return tuple(runs)


def pr_card(p: AnalyzedPR, d: DigestText, *, limits: CardLimits = DEFAULT_LIMITS, reverts: int | None = None,
            reverted_by: int | None = None, fixed_by: Sequence[int] = ()) -> Card:
    """One PR: title (linked), author, labels, modules, importance, merge time, size, risk reasons,
    and its links to other PRs: the PR it ``reverts``, the revert that reverted it (``reverted_by``,
    default the digest's ``p.reverted_by``) and the PRs that fixed it (``fixed_by``)."""
    lang = d.lang
    header = tr(lang, "card.pr.header", number=p.number)
    names = d.module_names
    fields = (
        FieldItem(label=tr(lang, "card.f.author"), value=(Untrusted(text=p.author or "-"),)),
        FieldItem(label=tr(lang, "card.f.importance"), value=(Text(text=f"{p.importance:.1f}"),)),
        FieldItem(label=tr(lang, "card.f.pr_labels"), value=(Untrusted(text=joined(lang, p.labels) or "-"),)),
        FieldItem(label=tr(lang, "card.f.pr_modules"),
                  value=(Untrusted(text=joined(lang, (tr(lang, "paren", text=names.get(m, m), inner=m) for m in p.modules)) or "-"),)),
        FieldItem(label=tr(lang, "card.f.merged_at"), value=(Text(text=f"{p.merged_at:%Y-%m-%d %H:%M} UTC · {d.week}"),)),
        FieldItem(label=tr(lang, "card.f.changes"),
                  value=(Text(text=tr(lang, "card.changes", files=f"{p.changed_files:,}", lines=lines_text(p.additions, p.deletions))),)),
    )
    title_line: Line = (PRRef(number=p.number, url=safe_url(p.url), title=clip(p.title, limits.title_chars * 2)),)
    pr_lines: tuple[Line, ...] = (title_line,)
    gist = shown_gist(p, lang)  # what the PR does (its own words, or the checked summary), when not the title again
    if gist:
        pr_lines += ((Untrusted(text=clip(gist, limits.detail_chars * 2)),),)
    blocks: list[Block] = [Section(role="pr", lines=pr_lines), Fields(items=fields, sep=tr(lang, "colon"))]
    reasons = _risk_reason_lines(p, lang, limits)
    risk_lines: tuple[Line, ...] = reasons or ((Text(text=tr(lang, "card.pr.no_risk")),),)
    base = p.url.rsplit("/", 1)[0] if "/pull/" in p.url else ""
    links: list[tuple[str, int]] = []
    reverts = reverts if reverts is not None else p.reverts
    if reverts is not None:
        links.append(("card.pr.reverts", reverts))
    by = reverted_by if reverted_by is not None else p.reverted_by
    if by is not None:
        links.append(("card.pr.reverted_by", by))
    links += [("card.pr.fixed_by", n) for n in (fixed_by or p.fixed_by)]
    risk_lines += tuple(_pr_link_line(lang, key, n, f"{base}/{n}" if base else "") for key, n in links)
    blocks.append(Section(role="pr_risks", heading=tr(lang, "card.pr.risks"), lines=risk_lines))
    url = safe_url(p.url)
    if url:
        blocks.append(Actions(buttons=(Button(label=tr(lang, "card.button.pr"), url=url, name="open_pr"),)))
    return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=f"{header}{tr(lang, 'colon')}{clip(p.title, limits.title_chars)}")


def module_card(d: DigestText, module: str, name: str, *, report_url: str | None = None,
                limits: CardLimits = DEFAULT_LIMITS, notice: Sequence[str] = ()) -> Card:
    """One module in one week: its PRs by importance, its churn, and its PRs carrying risk tags."""
    lang = d.lang
    header = tr(lang, "card.module.header", name=name, id=module, week=d.week)
    blocks: list[Block] = []
    if notice:
        blocks.append(Section(role="notice", lines=tuple((Text(text=n),) for n in notice)))
    blocks.append(window_context(d))
    prs = sorted((p for p in d.prs if module in p.modules), key=rank)
    stat = next((s for s in d.module_stats if s.module == module), None)
    if not prs:
        blocks.append(Section(role="module", lines=((Text(text=tr(lang, "card.module.none", name=name, week=d.week)),),)))
        return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=tr(lang, "card.module.none", name=name, week=d.week))
    risky = [p for p in prs if p.risk_tags]
    churn = lines_text(stat.additions, stat.deletions) if stat else "-"
    blocks.append(Fields(items=(
        FieldItem(label=tr(lang, "card.f.prs"), value=(Text(text=str(len(prs))),)),
        FieldItem(label=tr(lang, "card.f.churn"), value=(Text(text=churn),)),
        FieldItem(label=tr(lang, "card.f.risky"), value=(Text(text=str(len(risky))),)),
    ), sep=tr(lang, "colon")))
    shown = prs[: limits.list_items]
    items = tuple(gist_item(p, lang, limits)
                  for p in shown)
    more = len(prs) - len(shown)
    blocks.append(PRList(role="module", heading=tr(lang, "card.module.prs"), items=items, more=more,
                         more_text=more_line(lang, more, report_url)))
    if risky:
        ritems = tuple(pr_item(p, (Text(text=risk_names(p, lang)),), limits) for p in risky[: limits.list_items])
        rmore = len(risky) - len(ritems)
        blocks.append(PRList(role="module_risks", heading=tr(lang, "card.module.risks"), items=ritems, more=rmore,
                             more_text=more_line(lang, rmore, report_url)))
    else:
        blocks.append(Section(role="module_risks", lines=((Text(text=tr(lang, "card.module.no_risks")),),)))
    return Card(header=header, lang=lang, blocks=tuple(with_button(blocks, lang, report_url)),
                fallback=f"{header}{tr(lang, 'colon')}{tr(lang, 'card.module.fallback', n=len(prs), churn=churn)}")


def top_prs_card(d: DigestText, *, report_url: str | None = None, limits: CardLimits = DEFAULT_LIMITS,
                 notice: Sequence[str] = ()) -> Card:
    """The week's key PRs (importance order) with importance and gist."""
    lang = d.lang
    header = tr(lang, "card.top.header", repo=d.repo, week=d.week)
    blocks: list[Block] = [Section(role="notice", lines=tuple((Text(text=n),) for n in notice))] if notice else []
    blocks.append(window_context(d))
    shown = d.key_prs[: limits.list_items]
    items = tuple(gist_item(p, lang, limits)
                  for p in shown)
    more = len(d.key_prs) - len(shown)
    blocks.append(PRList(role="key_prs", heading=tr(lang, "card.h.key_prs"), items=items, more=more,
                         more_text=more_line(lang, more, report_url, kind="key")))
    return Card(header=header, lang=lang, blocks=tuple(with_button(blocks, lang, report_url)), fallback=header)


def contributors_card(d: DigestText, *, limits: CardLimits = DEFAULT_LIMITS, notice: Sequence[str] = ()) -> Card:
    """The most active authors of the week (bots excluded) and their PR counts."""
    lang = d.lang
    header = tr(lang, "card.contrib.header", repo=d.repo, week=d.week)
    blocks: list[Block] = [Section(role="notice", lines=tuple((Text(text=n),) for n in notice))] if notice else []
    blocks.append(window_context(d))
    lines: tuple[Line, ...] = tuple((Text(text=f"{i}. "), Untrusted(text=c.login), Text(text=tr(lang, "colon") + tr(lang, "card.contrib.line", n=c.prs)))
                  for i, c in enumerate(d.contributors[: limits.list_items], 1))
    lines += ((Text(text=tr(lang, "card.contrib.total", n=len(d.contributors))),),)
    blocks.append(Section(role="contributors", lines=lines))
    return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=header)


def trends_card(trends: Trends, lang: str) -> Card:
    """Per-week trends, oldest first: PR count and its change, average importance and its change,
    and the week's top three labels with their counts (labels may come from GitHub: untrusted)."""
    rows = trends.weeks
    header = tr(lang, "card.trends.header", repo=trends.repo, weeks=len(rows))
    lines: list[Line] = []
    for row in rows:
        st = row.stats
        delta = f" ({signed(row.total_delta)})" if row.total_delta is not None else ""
        avg = f" ({signed(row.avg_delta)})" if row.avg_delta is not None else ""
        line: list[Run] = [
            Text(text=f"{st.week}", bold=True),
            Text(text=" · " + tr(lang, "card.trends.line", n=st.total_prs, delta=delta, avg=f"{st.avg_importance:.1f}",
                                 avg_delta=avg)),
        ]
        top = list(st.label_counts.items())[:3]
        if top:
            line.append(Text(text=" · "))
            for i, (label, count) in enumerate(top):
                if i:
                    line.append(Text(text=sep(lang)))
                line += [Untrusted(text=label), Text(text=f" {count}")]
        lines.append(tuple(line))
    fallback = header + ": " + ", ".join(f"{r.stats.week} {r.stats.total_prs}" for r in rows)
    return Card(header=header, lang=lang, blocks=(Section(role="trends", lines=tuple(lines)),), fallback=fallback)


def filtered_card(d: DigestText, prs: Sequence[AnalyzedPR], *, header: str, count_line: str, empty_line: str,
                  detail: Callable[[AnalyzedPR], str], report_url: str | None = None,
                  limits: CardLimits = DEFAULT_LIMITS, notice: Sequence[str] = (),
                  key: Callable[[AnalyzedPR], tuple[float, ...]] = rank, heading_key: str = "card.h.matching") -> Card:
    """The PRs of a week that match a chat filter (a risk tag, an author): a count line, then the PRs
    by importance (or by ``key``: a search's score, headed by the catalog's ``heading_key``) with
    ``detail(pr)`` (untrusted text) each.

    Args:
        d: the week's digest; prs: the matching PRs (any order).
        header, count_line, empty_line: trusted text in the digest's language.
    """
    lang = d.lang
    blocks: list[Block] = [Section(role="notice", lines=tuple((Text(text=n),) for n in notice))] if notice else []
    blocks.append(window_context(d))
    ranked = sorted(prs, key=key)
    if not ranked:
        blocks.append(Section(role="filtered", lines=((Text(text=empty_line),),)))
        return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=f"{header}{tr(lang, 'colon')}{empty_line}")
    blocks.append(Section(role="filtered", lines=((Text(text=count_line),),)))
    shown = ranked[: limits.list_items]
    items = tuple(pr_item(p, (Untrusted(text=clip(detail(p), limits.detail_chars)),), limits) for p in shown)
    more = len(ranked) - len(shown)
    blocks.append(PRList(role="filtered", heading=tr(lang, heading_key), items=items, more=more,
                         more_text=more_line(lang, more, report_url), more_url=safe_url(report_url or "") if more else ""))
    return Card(header=header, lang=lang, blocks=tuple(with_button(blocks, lang, report_url)),
                fallback=f"{header}{tr(lang, 'colon')}{count_line}")
