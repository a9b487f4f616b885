"""A platform-free chat card and the builders that fill it from a :class:`~chatbot.models.DigestText`.

A :class:`Card` is what the bot says in one chat message: a header, then an ordered tuple of
blocks (sections of text lines, fields, PR lists, context lines, a divider, buttons). Converters in
``adapters/slack`` and ``adapters/feishu`` turn it into Block Kit or a Feishu card; the plain-text
renderer in :mod:`chatbot.render.text` prints it for the CLI.

Trusted and untrusted text are kept apart so every platform can escape each correctly:

* :class:`Text` runs hold template text written by prhub (catalog strings, numbers, risk names).
* :class:`Untrusted` runs, :class:`Link` labels and :class:`PRRef` titles hold text that comes from
  PRs or users (titles, paths, logins, reasons naming paths). A converter must escape them.
* URLs in :class:`Link`, :class:`PRRef` and :class:`Button` are only kept when :func:`safe_url`
  accepts them (``http(s)``, no whitespace, no ``<``, ``>``, ``|``, quotes or backslashes).

Everything here is pure: same digest and limits, same cards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from chatbot.render.escape import safe_url
from chatbot.history import Trends, signed
from chatbot.gist_line import shown_gist
from chatbot.takeaways import headline, takeaways
from chatbot.writer import model_slots, prose_note, sentence_mark
from chatbot.i18n import lines_text, tr
from chatbot.models import AnalyzedPR, DigestText

ELLIPSIS = "…"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------------------------
# Inline runs
# --------------------------------------------------------------------------------------------


class Text(_Frozen):
    """Trusted template text (prhub's own words and numbers). ``bold`` asks for emphasis."""

    kind: Literal["text"] = "text"
    text: str
    bold: bool = False


class Untrusted(_Frozen):
    """Text from outside (a PR title, a path, a login, a user's words): always escaped on output."""

    kind: Literal["untrusted"] = "untrusted"
    text: str


class Link(_Frozen):
    """A link with an untrusted ``label``; ``url`` is checked with :func:`safe_url` (empty: no link)."""

    kind: Literal["link"] = "link"
    url: str
    label: str


class PRRef(_Frozen):
    """A PR reference: ``#number`` then the untrusted ``title`` linked to ``url`` (when safe)."""

    kind: Literal["pr"] = "pr"
    number: int
    url: str = ""
    title: str = ""


Run = Annotated[Union[Text, Untrusted, Link, PRRef], Field(discriminator="kind")]
"""One inline run of a line."""

Line = tuple[Run, ...]
"""One line of text: runs shown one after another (no separator added)."""


# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------


class Section(_Frozen):
    """A paragraph: an optional trusted ``heading`` (shown bold) and lines of runs.

    ``role`` names the section for tests and converters (``summary``, ``risk_kinds``, ...).
    """

    kind: Literal["section"] = "section"
    role: str = ""
    heading: str = ""
    lines: tuple[Line, ...] = ()


class FieldItem(_Frozen):
    """A ``label: value`` pair; the label is trusted, the value is a line of runs."""

    label: str
    value: Line


class Fields(_Frozen):
    """Short label/value pairs shown in columns (at most 10)."""

    kind: Literal["fields"] = "fields"
    items: tuple[FieldItem, ...] = Field(default=(), max_length=10)


class PRItem(_Frozen):
    """One PR of a list: the reference and a detail line (tags, gist, reasons)."""

    number: int
    url: str = ""
    title: str = ""
    detail: Line = ()


class PRList(_Frozen):
    """A list of PRs in a meaningful order.

    ``role`` says which list it is (``risks``: the digest's risky PRs in rank order, ``key_prs``,
    ``module``, ...). ``more`` counts PRs left out; ``more_url`` is where to see them (optional).
    """

    kind: Literal["pr_list"] = "pr_list"
    role: str
    heading: str = ""
    items: tuple[PRItem, ...] = ()
    more: int = Field(default=0, ge=0)
    more_text: str = ""
    more_url: str = ""


class Context(_Frozen):
    """A small-print line (window, counts, part number)."""

    kind: Literal["context"] = "context"
    runs: Line



ACTION_ID = r"^[a-z][a-z0-9_]{0,31}$"
"""An action id: what a button asks for (``risks``, ``subscribe``, ``approve``; see :mod:`chatbot.actions`)."""


class Action(_Frozen):
    """What a (non-link) button sends back when pressed, platform-free.

    Attributes:
        id: the action's registry name (:data:`chatbot.actions.ACTIONS` or a handler the wiring adds).
        value: the action's argument, a short string the card wrote (:func:`chatbot.actions.encode`);
            it comes back from the platform **untrusted** and is validated before use.
    """

    id: str = Field(pattern=ACTION_ID)
    value: str = Field(default="", max_length=2000)


class Button(_Frozen):
    """A button: trusted ``label``; opens ``url`` when set (and safe), else sends ``action``.

    ``name`` is a stable name for link buttons (``open_report``), used as their id on platforms
    that need one.
    """

    label: str
    url: str = ""
    action: Action | None = None
    name: str = ""


class Actions(_Frozen):
    """A row of buttons."""

    kind: Literal["actions"] = "actions"
    buttons: tuple[Button, ...] = ()


class Image(_Frozen):
    """An image the platform already holds (a chart uploaded before the card is sent).

    ``key`` is the platform's reference to the uploaded image (Feishu ``img_key`` from
    ``im.v1.image.create``; Slack file id from ``files.completeUploadExternal``); ``alt`` is
    trusted alternative text (prhub's own words). Plain-text renderers show only ``alt``.
    """

    kind: Literal["image"] = "image"
    key: str = Field(min_length=1, max_length=128)
    alt: str = ""


Block = Annotated[Union[Section, Fields, PRList, Context, Actions, Image], Field(discriminator="kind")]
"""One block of a card."""


class Attachment(_Frozen):
    """A file a chat answer posts after its card, in the same conversation: the full report of
    ``repo``'s ``week`` in ``lang`` (asked for where no public URL links to the report pages). The
    wiring renders it (:attr:`chatbot.inbound.ChatService.files`) and the platform adapter posts it
    through its :class:`chatbot.ports.FileUploader`; converters ignore it."""

    kind: Literal["report"] = "report"
    repo: str
    week: str
    lang: str = "en"


class Card(_Frozen):
    """One chat message, platform-free.

    Attributes:
        header: trusted title text (plain text on every platform; converters truncate it).
        lang: ``en`` or ``zh`` (one language per card).
        blocks: the body, in display order.
        fallback: plain-text summary for notifications and clients without blocks.
        part, parts: position in a multi-part message (1-based); parts 2..n go in part 1's thread.
        attachment: a file to post after the card in a chat answer (None: none).
    """

    header: str
    lang: str = "en"
    blocks: tuple[Block, ...] = ()
    fallback: str = ""
    part: int = Field(default=1, ge=1)
    parts: int = Field(default=1, ge=1)
    attachment: Attachment | None = None


class CardLimits(_Frozen):
    """How much one digest part may hold (platform converters enforce their own hard limits too).

    Attributes:
        title_chars: PR titles longer than this are cut with "…" (characters).
        detail_chars: detail lines (reasons, gists) are cut to this many characters.
        risk_prs_per_part: PRs listed in a subscription slice before "and N more".
        key_prs: key PRs listed in the key-PR part.
        top_risks: risky PRs shown with their reasons in the digest's risk part and the risks
            answer ("8 of 102 shown"); the rest are in the full report.
        list_items: PRs listed in a query answer before "and N more".
    """

    title_chars: int = Field(default=150, ge=10)
    detail_chars: int = Field(default=300, ge=20)
    risk_prs_per_part: int = Field(default=30, ge=1)
    key_prs: int = Field(default=24, ge=1)
    top_risks: int = Field(default=8, ge=1)
    list_items: int = Field(default=10, ge=1)


DEFAULT_LIMITS = CardLimits()

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _mark(slots: frozenset[str], slot: str) -> tuple[Run, ...]:
    """The model's mark after a sentence it wrote, as a run (none for a rule-written one)."""
    mark = sentence_mark(slots, slot)
    return (Text(text=mark),) if mark else ()


def clip(text: str, limit: int) -> str:
    """``text`` with whitespace collapsed, cut to ``limit`` characters (the last one "…")."""
    s = " ".join(text.split())
    return s if len(s) <= limit else s[: max(limit - 1, 0)] + ELLIPSIS


def run_text(runs: Iterable[Run]) -> str:
    """The plain (unescaped) text of runs, as a reader sees it."""
    out: list[str] = []
    for r in runs:
        if isinstance(r, (Text, Untrusted)):
            out.append(r.text)
        elif isinstance(r, Link):
            out.append(r.label)
        else:
            out.append(f"#{r.number} {r.title}".rstrip())
    return "".join(out)


def pr_item_text(item: PRItem) -> str:
    """One PR list item as plain text: ``#N title — detail``."""
    head = f"#{item.number} {item.title}".rstrip()
    detail = run_text(item.detail)
    return f"{head} — {detail}" if detail else head


def block_text(block: Block) -> str:
    """The plain text of one block (one line per line/item); empty for dividers, ``alt`` for images."""
    if isinstance(block, Section):
        lines = [block.heading] if block.heading else []
        return "\n".join(lines + [run_text(ln) for ln in block.lines])
    if isinstance(block, Fields):
        return "\n".join(f"{f.label}: {run_text(f.value)}" for f in block.items)
    if isinstance(block, PRList):
        lines = [block.heading] if block.heading else []
        lines += [pr_item_text(i) for i in block.items]
        if block.more:
            lines.append(block.more_text)
        return "\n".join(lines)
    if isinstance(block, Context):
        return run_text(block.runs)
    if isinstance(block, Actions):
        return " · ".join(b.label for b in block.buttons)
    if isinstance(block, Image):
        return block.alt
    return ""


def with_image(card: Card, image: Image) -> Card:
    """``card`` with ``image`` placed after its text, before a trailing row of buttons (if any)."""
    blocks = list(card.blocks)
    at = len(blocks) - 1 if blocks and isinstance(blocks[-1], Actions) else len(blocks)
    blocks.insert(at, image)
    return card.model_copy(update={"blocks": tuple(blocks)})


def _sep(lang: str) -> str:
    return tr(lang, "sep")


def _join(lang: str, items: Iterable[str]) -> str:
    return _sep(lang).join(items)


def _item(p: AnalyzedPR, detail: Line, limits: CardLimits) -> PRItem:
    return PRItem(number=p.number, url=safe_url(p.url), title=clip(p.title, limits.title_chars), detail=detail)


def _gist_item(p: AnalyzedPR, lang: str, limits: CardLimits) -> PRItem:
    """``p`` with its importance and, when it says more than the title, its gist
    (:func:`chatbot.gist_line.shown_gist`: the title is shown once)."""
    gist = shown_gist(p, lang)
    detail: Line = ((Text(text=f"{p.importance:.1f} · "), Untrusted(text=clip(gist, limits.detail_chars))) if gist
                    else (Text(text=f"{p.importance:.1f}"),))
    return _item(p, detail, limits)


def _risk_names(p: AnalyzedPR, lang: str) -> str:
    return _join(lang, (tr(lang, f"risk.{t}") for t in p.risk_tags))


def _rank(p: AnalyzedPR) -> tuple[float, int]:
    return (-p.importance, p.number)


def _more(lang: str, n: int, report_url: str | None) -> str:
    return tr(lang, "card.more_in_report" if report_url else "card.more", n=n) if n else ""


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


def _with_button(blocks: list[Block], lang: str, report_url: str | None) -> list[Block]:
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


# --------------------------------------------------------------------------------------------
# The weekly digest as cards
# --------------------------------------------------------------------------------------------


def _summary_blocks(d: DigestText, limits: CardLimits) -> list[Block]:
    lang = d.lang
    by_num = {p.number: p for p in d.prs}
    risky = sum(1 for p in d.prs if p.risk_tags)
    labels = _join(lang, (tr(lang, "paren", text=k, inner=v) for k, v in list(d.label_counts.items())[:6]))
    modules = _join(lang, (tr(lang, "paren", text=s.name, inner=s.prs) for s in d.module_stats[:6]))
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
        themes = _join(lang, (th.name for th in d.themes))
        head.append((Text(text=tr(lang, "sum.directions", themes=themes)),))
    if d.risk_tag_counts:
        kinds = _join(lang, (tr(lang, "card.risk_kind", name=tr(lang, f"risk.{k}"), n=v)
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
                          *_mark(slots, f"storylines.{th.module}")))
            refs: list[Run] = [Text(text="↳ ")]
            for n in th.prs:
                if n in by_num:
                    if len(refs) > 1:
                        refs.append(Text(text=" · "))
                    refs.append(PRRef(number=n, url=safe_url(by_num[n].url)))
            lines.append(tuple(refs))
        blocks.append(Section(role="highlights", heading=tr(lang, "card.h.highlights"), lines=tuple(lines)))
    return blocks


def _risk_kinds_section(d: DigestText, limits: CardLimits) -> Section:
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


def _reasons_text(p: AnalyzedPR, lang: str) -> str:
    return _join(lang, (f"{tr(lang, f'risk.{t}')}{tr(lang, 'colon')}{p.risk_reasons.get(t, '')}" for t in p.risk_tags))


def top_risks_list(d: DigestText, risky: Sequence[AnalyzedPR], report_url: str | None, limits: CardLimits) -> PRList:
    """The first ``limits.top_risks`` of ``risky`` (rank order) with their reasons, then "8 of 102
    shown" (linked to the full report, which lists them all). Role ``risks``."""
    lang = d.lang
    shown = list(risky[: limits.top_risks])
    items = tuple(_item(p, (Untrusted(text=clip(_reasons_text(p, lang), limits.detail_chars)),), limits) for p in shown)
    more = len(risky) - len(shown)
    url = safe_url(report_url or "")
    key = "card.top_risks.shown_report" if url else "card.top_risks.shown"
    return PRList(role="risks", heading=tr(lang, "card.h.top_risks"), items=items, more=more,
                  more_text=tr(lang, key, n=len(shown), total=len(risky)) if more else "",
                  more_url=url if more else "")


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
        return [Card(header=title, lang=lang, blocks=tuple(_with_button(blocks, lang, report_url)), fallback=fallback_head)]

    risky = sorted((p for p in d.prs if p.risk_tags), key=_rank)
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
    cards = [Card(header=title, lang=lang, blocks=tuple(_with_button(summary, lang, report_url)),
                  fallback=fallback_head, part=1, parts=parts)]

    part = 1
    if has_risks:
        part += 1
        rblocks: list[Block] = [_risk_kinds_section(d, limits), top_risks_list(d, risky, report_url, limits),
                                Context(runs=(Text(text=tr(lang, "card.part", part=part, parts=parts)),))]
        name = tr(lang, "h.risks")
        cards.append(Card(header=part_title(name, part), lang=lang, blocks=tuple(rblocks),
                          fallback=f"{part_title(name, part)}{tr(lang, 'colon')}{tr(lang, 'card.risks.count', n=len(risky), total=d.total_prs)}",
                          part=part, parts=parts))

    if has_tail:
        part += 1
        tblocks: list[Block] = []
        if keys:
            items = tuple(_gist_item(p, lang, limits)
                          for p in keys)
            in_highlights = sum(1 for p in d.key_prs if p.number in highlighted)
            more_text = tr(lang, "card.key_in_highlights", n=in_highlights) if in_highlights else ""
            tblocks.append(PRList(role="key_prs", heading=tr(lang, "card.h.key_prs"), items=items,
                                  more=len(d.key_prs) - len(keys), more_text=more_text))
        if d.recommendations:
            tblocks.append(Section(role="recommendations", heading=tr(lang, "card.h.recommendations"),
                                   lines=tuple((Text(text="• "), Untrusted(text=clip(r.text, limits.detail_chars * 2)),
                                                *_mark(model_slots(d.prose), f"recommendations.{i}"))
                                               for i, r in enumerate(d.recommendations))))
        tblocks.append(Context(runs=(Text(text=tr(lang, "card.part", part=part, parts=parts)),)))
        name = tr(lang, "card.h.key_prs")
        cards.append(Card(header=part_title(name, part), lang=lang, blocks=tuple(_with_button(tblocks, lang, report_url)),
                          fallback=part_title(name, part), part=part, parts=parts))
    return cards


# --------------------------------------------------------------------------------------------
# Splitting a card that is too large for a platform
# --------------------------------------------------------------------------------------------


def _halves(block: Block) -> tuple[Block, Block] | None:
    if isinstance(block, PRList) and len(block.items) > 1:
        mid = len(block.items) // 2
        return (block.model_copy(update={"items": block.items[:mid], "more": 0, "more_text": "", "more_url": ""}),
                block.model_copy(update={"items": block.items[mid:], "heading": ""}))
    if isinstance(block, Section) and len(block.lines) > 1:
        mid = len(block.lines) // 2
        return (block.model_copy(update={"lines": block.lines[:mid]}),
                block.model_copy(update={"lines": block.lines[mid:], "heading": ""}))
    return None


def split_card(card: Card, fits: Callable[[Card], bool]) -> list[Card]:
    """Split ``card`` into consecutive cards that each satisfy ``fits`` (a platform's size check).

    Blocks are kept in order; a PR list or section too large on its own is cut between items or
    lines, so every PR listed in ``card`` is listed exactly once across the result. Continuation
    cards keep the header and ``part``. A single item that cannot fit is returned as is (the
    converter's per-text truncation then applies).

    Args:
        card: the card to split.
        fits: True when a card is within the platform's limits.

    Returns:
        ``[card]`` when it fits, else two or more cards.
    """
    if fits(card) or not card.blocks:
        return [card]
    blocks = list(card.blocks)
    if len(blocks) == 1:
        halves = _halves(blocks[0])
        if halves is None:
            return [card]
        first, second = [halves[0]], [halves[1]]
    else:
        mid = len(blocks) // 2
        first, second = blocks[:mid], blocks[mid:]
    a = card.model_copy(update={"blocks": tuple(first)})
    b = card.model_copy(update={"blocks": tuple(second)})
    return split_card(a, fits) + split_card(b, fits)


# --------------------------------------------------------------------------------------------
# Cards for query answers
# --------------------------------------------------------------------------------------------


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
    risky = sorted((p for p in d.prs if p.risk_tags), key=_rank)
    blocks.append(Section(role="risk_kinds", lines=((Text(text=tr(lang, "card.risks.count", n=len(risky), total=d.total_prs)),),)))
    blocks.append(_risk_kinds_section(d, limits))
    if risky:
        blocks.append(top_risks_list(d, risky, report_url, limits))
    return Card(header=header, lang=lang, blocks=tuple(_with_button(blocks, lang, report_url)),
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
        FieldItem(label=tr(lang, "card.f.pr_labels"), value=(Untrusted(text=_join(lang, p.labels) or "-"),)),
        FieldItem(label=tr(lang, "card.f.pr_modules"),
                  value=(Untrusted(text=_join(lang, (tr(lang, "paren", text=names.get(m, m), inner=m) for m in p.modules)) or "-"),)),
        FieldItem(label=tr(lang, "card.f.merged_at"), value=(Text(text=f"{p.merged_at:%Y-%m-%d %H:%M} UTC · {d.week}"),)),
        FieldItem(label=tr(lang, "card.f.changes"),
                  value=(Text(text=tr(lang, "card.changes", files=f"{p.changed_files:,}", lines=lines_text(p.additions, p.deletions))),)),
    )
    title_line: Line = (PRRef(number=p.number, url=safe_url(p.url), title=clip(p.title, limits.title_chars * 2)),)
    pr_lines: tuple[Line, ...] = (title_line,)
    gist = shown_gist(p, lang)  # what the PR does (its own words, or the checked summary), when not the title again
    if gist:
        pr_lines += ((Untrusted(text=clip(gist, limits.detail_chars * 2)),),)
    blocks: list[Block] = [Section(role="pr", lines=pr_lines), Fields(items=fields)]
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
    prs = sorted((p for p in d.prs if module in p.modules), key=_rank)
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
    )))
    shown = prs[: limits.list_items]
    items = tuple(_gist_item(p, lang, limits)
                  for p in shown)
    more = len(prs) - len(shown)
    blocks.append(PRList(role="module", heading=tr(lang, "card.module.prs"), items=items, more=more,
                         more_text=_more(lang, more, report_url)))
    if risky:
        ritems = tuple(_item(p, (Text(text=_risk_names(p, lang)),), limits) for p in risky[: limits.list_items])
        rmore = len(risky) - len(ritems)
        blocks.append(PRList(role="module_risks", heading=tr(lang, "card.module.risks"), items=ritems, more=rmore,
                             more_text=_more(lang, rmore, report_url)))
    else:
        blocks.append(Section(role="module_risks", lines=((Text(text=tr(lang, "card.module.no_risks")),),)))
    return Card(header=header, lang=lang, blocks=tuple(_with_button(blocks, lang, report_url)),
                fallback=f"{header}{tr(lang, 'colon')}{tr(lang, 'card.module.fallback', n=len(prs), churn=churn)}")


def top_prs_card(d: DigestText, *, report_url: str | None = None, limits: CardLimits = DEFAULT_LIMITS,
                 notice: Sequence[str] = ()) -> Card:
    """The week's key PRs (importance order) with importance and gist."""
    lang = d.lang
    header = tr(lang, "card.top.header", repo=d.repo, week=d.week)
    blocks: list[Block] = [Section(role="notice", lines=tuple((Text(text=n),) for n in notice))] if notice else []
    blocks.append(window_context(d))
    shown = d.key_prs[: limits.list_items]
    items = tuple(_gist_item(p, lang, limits)
                  for p in shown)
    more = len(d.key_prs) - len(shown)
    blocks.append(PRList(role="key_prs", heading=tr(lang, "card.h.key_prs"), items=items, more=more,
                         more_text=_more(lang, more, report_url)))
    return Card(header=header, lang=lang, blocks=tuple(_with_button(blocks, lang, report_url)), fallback=header)


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
                    line.append(Text(text=_sep(lang)))
                line += [Untrusted(text=label), Text(text=f" {count}")]
        lines.append(tuple(line))
    fallback = header + ": " + ", ".join(f"{r.stats.week} {r.stats.total_prs}" for r in rows)
    return Card(header=header, lang=lang, blocks=(Section(role="trends", lines=tuple(lines)),), fallback=fallback)


def filtered_card(d: DigestText, prs: Sequence[AnalyzedPR], *, header: str, count_line: str, empty_line: str,
                  detail: Callable[[AnalyzedPR], str], report_url: str | None = None,
                  limits: CardLimits = DEFAULT_LIMITS, notice: Sequence[str] = (),
                  key: Callable[[AnalyzedPR], tuple[float, ...]] = _rank, heading_key: str = "card.h.matching") -> Card:
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
    items = tuple(_item(p, (Untrusted(text=clip(detail(p), limits.detail_chars)),), limits) for p in shown)
    more = len(ranked) - len(shown)
    blocks.append(PRList(role="filtered", heading=tr(lang, heading_key), items=items, more=more,
                         more_text=_more(lang, more, report_url), more_url=safe_url(report_url or "") if more else ""))
    return Card(header=header, lang=lang, blocks=tuple(_with_button(blocks, lang, report_url)),
                fallback=f"{header}{tr(lang, 'colon')}{count_line}")
