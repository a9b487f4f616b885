"""Intent ``report``: the week's full report — its link where a public URL is set, else the report
itself as a file posted after the answer card, in the same conversation (issue 19 item 6).

"report", "full report", "the pdf", "完整报告" (with a week: "full report last week", "2026-W19 完整报告").
Without a public URL the card says what a link needs (``PRHUB_PUBLIC_URL`` or ``chat.public_url``)
and carries an :class:`chatbot.cards.Attachment`; the wiring renders the file and the platform
adapter posts it (the core knows neither how nor where).
"""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Attachment, Block, Card, Section, Text, report_button
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class ReportQuery(QueryBase):
    """The full report of a week."""

    intent: Literal["report"] = "report"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\b(?:full|whole|complete|entire) report\b|\breport (?:file|pdf)\b|\bpdf\b|^(?:the )?reports?$",),
            "zh": ("完整报告|完整版报告|报告全文|报告文件|^报告$",)}
"""A bare "report" (the whole message, its week aside) or a "full report"; "weekly report" stays the
summary's (its "weekly" is that intent's word)."""
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> ReportQuery | None:
    """``full report [last week | 2026-W19]``, ``report``, ``pdf``, ``完整报告``, ``上周完整报告``."""
    return ReportQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: ReportQuery, ctx: AnswerContext) -> Card:
    """A short card: the "Full report" button when a public URL is set; else what a link needs and
    that the report follows as a file (the card's ``attachment``). A week without PRs gives the
    usual "no merged PRs" card (nothing to attach)."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    header = tr(lang, "card.report.header", repo=d.repo, week=w.week)
    blocks: list[Block] = []
    if w.notice:
        blocks.append(Section(role="notice", lines=tuple((Text(text=n),) for n in w.notice)))
    button = report_button(lang, w.report_url)
    if button is not None:
        blocks += [Section(role="report", lines=((Text(text=tr(lang, "card.report.link", week=w.week)),),)), button]
        return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=header)
    blocks.append(Section(role="report", lines=((Text(text=tr(lang, "card.report.file", week=w.week)),),)))
    return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=header,
                attachment=Attachment(repo=d.repo, week=str(w.week), lang=lang))


INTENT = Intent(name="report", query=ReportQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=62,
                help={"en": "full report [last week | 2026-W19]: the week's full report (a link, or the PDF when no public URL is set)",
                      "zh": "完整报告 [上周 | 2026-W19]：本周完整报告（链接；未设置公开地址时发送 PDF 文件）"},
                before=("module",))
