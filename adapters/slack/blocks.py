"""Slack Block Kit rendering of the core's :class:`~chatbot.cards.Card` (pure; no network).

Untrusted text (PR titles, paths, logins) is escaped for mrkdwn exactly once: ``&`` -> ``&amp;``
first, then ``<`` -> ``&lt;`` and ``>`` -> ``&gt;``; and each formatting character (``*``, ``~``,
a backtick, ``_`` unless inside a word: ``gpu_model`` stays) gets a zero-width space on both sides,
since mrkdwn has no escape for them: a marker with no boundary on either side opens and closes
nothing, whether Slack reads U+200B as a space or a letter. So no mention, broadcast
(``<!channel>``), link, bold, italic, strike or code can be created by a title. The bot's own syntax (``<url|label>`` links, ``*bold*`` headings) is added around the
escaped text and stays intact; a URL is used byte for byte, and only if
:func:`chatbot.render.escape.safe_url` accepts it.

Limits, with margin (``docs/platform-limits.md``): at most 50 blocks per message, section text
1-3,000 chars, header 150 chars (cut with "…"), at most 10 fields of 2,000 chars, 12,000 chars of
block text per message, fallback ``text`` at most 3,000 chars. The renderers here take a card
already fitted to these limits (:data:`adapters.slack.messages.SLACK_LIMITS`, with
:func:`chatbot.cards.fit.fit`: header, button labels, alt texts and fallback cut, a card too large
for one message split between blocks, items or lines, every PR it lists posted exactly once);
they only translate, cutting nothing but escaped section text to its block's size.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from chatbot.cards.model import (
    ELLIPSIS,
    Actions,
    Block,
    Card,
    Context,
    Fields,
    Image,
    Link,
    PRItem,
    PRList,
    PRRef,
    Section,
    Text,
    Untrusted,
)
from chatbot.render.escape import break_urls, safe_url

MAX_BLOCKS = 50
MAX_SECTION = 3000
MAX_HEADER = 150
MAX_FIELDS = 10
MAX_FIELD = 2000
MAX_CONTEXT = 2000
MAX_TOTAL = 12000
MAX_FALLBACK = 3000
MAX_BUTTON = 75
MAX_ALT = 2000


ZWSP = "\u200b"
_MARKERS = re.compile(r"[*~`]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
"""mrkdwn's formatting markers; ``_`` only at a word's edge (Slack does not italicize ``a_b_c``)."""


def escape(text: str) -> str:
    """Escape untrusted text for Slack mrkdwn: ``&``, then ``<`` and ``>``, each exactly once; each
    formatting marker between two zero-width spaces (:data:`_MARKERS`); and a bare URL of a host
    other than GitHub broken (:func:`chatbot.render.escape.break_urls`: Slack would link
    ``https://evil.example/phish``; it shows ``https://evil[.]example/phish``).

    ``R&D <x>`` -> ``R&amp;D &lt;x&gt;``; ``&lt;`` -> ``&amp;lt;`` (shown to readers as typed);
    ``*bold*`` -> ``␣*␣bold␣*␣`` (␣: U+200B), shown as typed, not bold.
    """
    s = break_urls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKERS.sub(lambda m: ZWSP + m.group(0) + ZWSP, s)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int) -> str:
    """Cut already-escaped mrkdwn to ``limit`` chars without splitting an entity or a link."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    amp = cut.rfind("&")
    if amp >= 0 and ";" not in cut[amp:] and len(cut) - amp < 6:
        cut = cut[:amp]
    lt = cut.rfind("<")
    if lt >= 0 and ">" not in cut[lt:]:
        cut = cut[:lt]
    if len(cut) >= 2 and cut[-2] == ZWSP and _MARKERS.match(cut[-1]):  # a marker without its closing guard
        cut = cut[:-2]
    return cut + ELLIPSIS


def _bold(text: str) -> str:
    s = escape(_one_line(text))
    return f"*{s}*" if s else ""


def _pr(ref: PRRef) -> str:
    url = safe_url(ref.url)
    title = escape(_one_line(ref.title))
    if not title:
        return f"<{url}|#{ref.number}>" if url else f"#{ref.number}"
    return f"#{ref.number} <{url}|{title}>" if url else f"#{ref.number} {title}"


def render_runs(runs: Iterable[Text | Untrusted | Link | PRRef]) -> str:
    """One line of runs as mrkdwn (untrusted text escaped, links as ``<url|label>``)."""
    out: list[str] = []
    for r in runs:
        if isinstance(r, Text):
            out.append(_bold(r.text) if r.bold else escape(r.text))
        elif isinstance(r, Untrusted):
            out.append(escape(_one_line(r.text)))
        elif isinstance(r, Link):
            url = safe_url(r.url)
            label = escape(_one_line(r.label)) or escape(url)
            out.append(f"<{url}|{label}>" if url else label)
        else:
            out.append(_pr(r))
    return "".join(out)


def _item_line(item: PRItem) -> str:
    line = "• " + _pr(PRRef(number=item.number, url=item.url, title=item.title))
    detail = render_runs(item.detail)
    return f"{line} — {detail}" if detail else line


def _sections(lines: Sequence[str], block_id: str) -> list[dict[str, Any]]:
    """Pack lines into section blocks of at most 3,000 chars (a longer line is cut)."""
    chunks: list[list[str]] = []
    size = 0
    for raw in lines:
        line = _cut(raw, MAX_SECTION)
        if chunks and size + 1 + len(line) <= MAX_SECTION:
            chunks[-1].append(line)
            size += 1 + len(line)
        else:
            chunks.append([line])
            size = len(line)
    return [
        {"type": "section", "block_id": f"{block_id}-{i}"[:255], "text": {"type": "mrkdwn", "text": "\n".join(c) or " "}}
        for i, c in enumerate(chunks)
    ]


def _block(block: Block, n: int) -> list[dict[str, Any]]:
    if isinstance(block, Section):
        lines = ([_bold(block.heading)] if block.heading else []) + [render_runs(ln) for ln in block.lines]
        return _sections([ln for ln in lines if ln] or [" "], f"{block.role or 'section'}-{n}")
    if isinstance(block, Fields):
        if not block.items:
            return []
        fields = [{"type": "mrkdwn", "text": _cut(f"{_bold(f.label)}\n{render_runs(f.value) or ' '}", MAX_FIELD)}
                  for f in block.items[:MAX_FIELDS]]
        return [{"type": "section", "block_id": f"fields-{n}", "fields": fields}]
    if isinstance(block, PRList):
        lines = [_bold(block.heading)] if block.heading else []
        lines += [_item_line(i) for i in block.items]
        if block.more:
            url = safe_url(block.more_url)
            text = escape(block.more_text)
            lines.append(f"<{url}|{text}>" if url else text)
        return _sections(lines or [" "], f"{block.role}-{n}")
    if isinstance(block, Context):
        text = _cut(render_runs(block.runs), MAX_CONTEXT)
        return [{"type": "context", "block_id": f"context-{n}", "elements": [{"type": "mrkdwn", "text": text or " "}]}] if text else []
    if isinstance(block, Actions):
        elements: list[dict[str, Any]] = []
        for i, b in enumerate(block.buttons[:25]):
            el: dict[str, Any] = {"type": "button", "text": {"type": "plain_text", "text": b.label, "emoji": True},
                                  "action_id": (b.action.id if b.action else b.name or "link")[:240] + f"-{n}-{i}"}
            url = safe_url(b.url)
            if url:
                el["url"] = url
            elif b.action is None:
                continue  # neither a safe link nor an action: nothing to press
            if b.action is not None and b.action.value:
                el["value"] = b.action.value[:2000]
            elements.append(el)
        return [{"type": "actions", "block_id": f"actions-{n}", "elements": elements}] if elements else []
    if isinstance(block, Image):
        return [{"type": "image", "block_id": f"image-{n}", "slack_file": {"id": block.key},
                 "alt_text": block.alt or "image"}]
    return []


def card_to_blocks(card: Card) -> list[dict[str, Any]]:
    """Block Kit blocks of one card: a header block, then each card block in order.

    Sections longer than 3,000 chars become several section blocks; the result may exceed one
    message's limits (50 blocks, 12,000 chars): :func:`chatbot.cards.fit.fit` splits such cards first.

    Returns:
        A list of block dicts (``header``, ``section``, ``context``, ``divider``, ``actions``,
        ``image`` with ``slack_file`` for an :class:`~chatbot.cards.Image` holding a Slack file id).
    """
    blocks: list[dict[str, Any]] = [
        {"type": "header", "block_id": "header", "text": {"type": "plain_text", "text": card.header or "prhub", "emoji": True}}
    ]
    for n, block in enumerate(card.blocks):
        blocks.extend(_block(block, n))
    return blocks


def block_text_length(blocks: Sequence[dict[str, Any]]) -> int:
    """Characters of text in blocks (header, section text and fields, context, button labels)."""
    total = 0
    for b in blocks:
        text = b.get("text")
        if isinstance(text, dict):
            total += len(text.get("text", ""))
        for f in b.get("fields", ()):
            total += len(f.get("text", ""))
        for e in b.get("elements", ()):
            t = e.get("text")
            total += len(t.get("text", "")) if isinstance(t, dict) else len(t or "")
    return total


def fits_one_message(blocks: Sequence[dict[str, Any]]) -> bool:
    """Whether blocks respect the per-message limits (<= 50 blocks, <= 12,000 chars of text)."""
    return len(blocks) <= MAX_BLOCKS and block_text_length(blocks) <= MAX_TOTAL


def fallback_text(card: Card) -> str:
    """The top-level ``text`` of a message: the fitted card's fallback (``prhub`` when empty),
    escaped, <= 3,000 chars."""
    return _cut(escape(card.fallback or "prhub"), MAX_FALLBACK)


def card_to_message(card: Card) -> dict[str, Any]:
    """``chat.postMessage`` keyword arguments of one fitted card: ``{"text": fallback, "blocks": [...]}``
    (no channel, no thread: the delivery adds them).

    A card :func:`chatbot.cards.fit.fit` could not bring within one message (a single block too
    large on its own) keeps the header and the first blocks that fit, so the message is accepted.
    """
    blocks = card_to_blocks(card)
    if not fits_one_message(blocks):
        kept: list[dict[str, Any]] = []
        for b in blocks:
            if not fits_one_message([*kept, b]):
                break
            kept.append(b)
        blocks = kept
    return {"text": fallback_text(card), "blocks": blocks}


__all__ = [
    "block_text_length",
    "card_to_blocks",
    "card_to_message",
    "escape",
    "fallback_text",
    "fits_one_message",
    "render_runs",
]
