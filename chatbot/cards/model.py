"""The platform-free chat card's types, and reading a card back as plain text.

A :class:`Card` is what the bot says in one chat message: a header, then an ordered tuple of
blocks (sections of text lines, fields, PR lists, context lines, buttons, images). The builders in
:mod:`chatbot.cards.digest` and :mod:`chatbot.cards.answers` fill it; :func:`chatbot.cards.fit.fit`
cuts it to a platform's limits; converters in ``adapters/slack`` and ``adapters/feishu`` then turn
each fitted card into Block Kit or a Feishu card, and :mod:`chatbot.render.text` prints it for the CLI.

Trusted and untrusted text are kept apart so every platform can escape each correctly:

* :class:`Text` runs hold template text written by prhub (catalog strings, numbers, risk names).
* :class:`Untrusted` runs, :class:`Link` labels and :class:`PRRef` titles hold text that comes from
  PRs or users (titles, paths, logins, reasons naming paths). A converter must escape them.
* URLs in :class:`Link`, :class:`PRRef` and :class:`Button` are only kept when
  :func:`chatbot.render.escape.safe_url` accepts them (``http(s)``, no whitespace, no ``<``, ``>``,
  ``|``, quotes or backslashes).

Everything here is pure and imports nothing of prhub's but pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

ELLIPSIS = "…"
"""What a text cut to a limit ends with (one character)."""

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
    sep: str = ": "
    """Between a label and its value where a renderer puts them on one line, in the card's language
    (the catalog's ``colon``: ``": "``, ``"："``)."""


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
        value: the action's argument, a short string the card wrote (:func:`chatbot.buttons.encode`);
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
# Reading a card as plain text
# --------------------------------------------------------------------------------------------


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
        return "\n".join(f"{f.label}{block.sep}{run_text(f.value)}" for f in block.items)
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
