"""Subscription slices: the part of a weekly digest one subscriber follows.

After the weekly post, every subscriber (a user, DMed, or a channel) gets one message listing only
the PRs that touched its modules, each PR once even when it touches several of them, in rank order
(importance descending, number ascending), then the risks among those PRs. Pure: same digest and
modules, same card.
"""

from __future__ import annotations

from collections.abc import Iterable

from chatbot.cards import (
    DEFAULT_LIMITS,
    Block,
    Card,
    CardLimits,
    PRItem,
    PRList,
    Section,
    Text,
    Untrusted,
    clip,
    reasons_text,
    report_button,
    window_context,
)
from chatbot.render.escape import safe_url
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR, DigestText
from chatbot.subscriptions import normalise

def _rank(p: AnalyzedPR) -> tuple[float, int]:
    return (-p.importance, p.number)


def slice_prs(digest: DigestText, modules: Iterable[str]) -> list[AnalyzedPR]:
    """The digest's PRs touching any of ``modules`` (ids, compared normalised), each once, in rank order."""
    wanted = {normalise(m) for m in modules}
    return sorted((p for p in digest.prs if any(normalise(m) in wanted for m in p.modules)), key=_rank)


def slice_card(digest: DigestText, modules: Iterable[str], *, report_url: str | None = None,
               limits: CardLimits = DEFAULT_LIMITS, send_empty: bool = False) -> Card | None:
    """One subscriber's slice of ``digest`` as one card, in ``digest.lang``.

    Args:
        digest: the week's digest.
        modules: the module ids the subscriber follows (any case/spacing).
        report_url: adds the "Full report" button and the "and N more" link.
        limits: ``risk_prs_per_part`` PRs are listed at most (then "and N more").
        send_empty: return a "no PRs in your modules" card instead of None when nothing matched.

    Returns:
        The card, or None when no PR matched and ``send_empty`` is false.
    """
    lang = digest.lang
    mods = sorted({normalise(m) for m in modules})
    prs = slice_prs(digest, mods)
    if not prs and not send_empty:
        return None
    names = tr(lang, "sep").join(tr(lang, "paren", text=digest.module_names.get(m, m), inner=m) for m in mods)
    header = tr(lang, "slice.header", repo=digest.repo, week=digest.week)
    blocks: list[Block] = [window_context(digest),
                           Section(role="slice_modules", lines=((Text(text=tr(lang, "slice.modules", modules="")), Untrusted(text=names)),))]
    if not prs:
        blocks.append(Section(role="slice_empty", lines=((Text(text=tr(lang, "slice.none", week=digest.week)),),)))
    else:
        blocks.append(Section(role="slice_count", lines=((Text(text=tr(lang, "slice.count", n=len(prs), total=digest.total_prs)),),)))
        shown = prs[: limits.risk_prs_per_part]
        more = len(prs) - len(shown)
        more_text = tr(lang, "card.more_in_report" if report_url else "card.more", n=more) if more else ""
        items = tuple(
            PRItem(number=p.number, url=safe_url(p.url), title=clip(p.title, limits.title_chars),
                   detail=(Text(text=f"{p.importance:.1f} · "),
                           Untrusted(text=clip(tr(lang, "sep").join(digest.module_names.get(m, m) for m in p.modules), limits.detail_chars))))
            for p in shown
        )
        blocks.append(PRList(role="slice_prs", heading=tr(lang, "slice.prs"), items=items, more=more, more_text=more_text,
                             more_url=safe_url(report_url or "") if more else ""))
        risky = [p for p in prs if p.risk_tags][: limits.list_items]
        if risky:
            ritems = tuple(
                PRItem(number=p.number, url=safe_url(p.url), title=clip(p.title, limits.title_chars),
                       detail=(Untrusted(text=clip(reasons_text(p, lang), limits.detail_chars)),))
                for p in risky
            )
            nrisky = sum(1 for p in prs if p.risk_tags)
            rmore = nrisky - len(risky)
            blocks.append(PRList(role="slice_risks", heading=tr(lang, "slice.risks"), items=ritems, more=rmore,
                                 more_text=tr(lang, "card.more", n=rmore) if rmore else ""))
        else:
            blocks.append(Section(role="slice_risks", lines=((Text(text=tr(lang, "slice.no_risks")),),)))
    button = report_button(lang, report_url)
    if button is not None:
        blocks.append(button)
    fallback = f"{header}: " + (tr(lang, "slice.count", n=len(prs), total=digest.total_prs) if prs else tr(lang, "slice.none", week=digest.week))
    return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=fallback)
