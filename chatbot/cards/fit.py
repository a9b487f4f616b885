"""Fitting a card to one platform message: its texts cut to the platform's lengths, then the card
split into as many cards as needed, each within one message.

:func:`fit` is called once, before a platform renderer (``adapters/slack/blocks.py``,
``adapters/feishu/cards.py``) turns each fitted card into a message; the renderers themselves cut
and split nothing. A platform states what one of its messages holds as :class:`PlatformLimits`.

Pure: the same card and limits give the same cards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chatbot.cards.model import ELLIPSIS, Actions, Block, Card, Image, PRList, Section


@dataclass(frozen=True)
class PlatformLimits:
    """What one message of a chat platform holds.

    Attributes:
        fits: True when a card (its texts already cut) is within one message, as the platform
            measures it on the rendered message (blocks and characters, or request bytes).
        header_chars: a card's header is cut to this many characters.
        button_chars: a button's label is cut to this many characters.
        alt_chars: an image's alternative text is cut to this many characters.
        fallback_chars: the notification text (the card's fallback, or its header when the card
            has none) is cut to this many characters.
    """

    fits: Callable[[Card], bool]
    header_chars: int
    button_chars: int
    alt_chars: int
    fallback_chars: int


_OPENERS = {"(": ")", "（": "）", "“": "”", "‘": "’", "[": "]", "{": "}", "「": "」", "【": "】", "《": "》", "‹": "›"}
_SAME = "`"
"""A mark that opens and closes alike (a code span): open while its count so far is odd."""
_TRAILING = " ,;:、，；：—-"


def clip(text: str, limit: int) -> str:
    """``text`` with whitespace collapsed, cut to at most ``limit`` characters, the last one "…".

    The cut backs off to keep whole words and brackets: to the last space when one lies in the second
    half of the kept text (so "+7,128/-7,010" is never cut to "+7,128"), then to before a bracket or quote it would leave open ("#42370 (…" read
    as a cut mid-parenthesis) when at least half of the limit remains, and drops separators left
    dangling before the ellipsis. Text without spaces (Chinese) is cut at a character.
    """
    s = " ".join(text.split())
    if len(s) <= limit:
        return s
    keep = max(limit - 1, 0)
    cut = s[:keep]
    space = cut.rfind(" ")
    if space >= keep // 2 and space > 0:
        cut = cut[:space]
    open_at = _unclosed(cut)
    if open_at is not None and open_at >= limit // 2:
        cut = cut[:open_at]
    cut = cut.rstrip(_TRAILING) or s[:keep]
    return cut + ELLIPSIS


def _unclosed(text: str) -> int | None:
    """The index of the first bracket, opening quote or code span (`````) of ``text`` that stays
    open, or None. Inside a code span brackets are literal."""
    stack: list[tuple[str, int]] = []
    code: int | None = None
    for i, ch in enumerate(text):
        if ch in _SAME:
            code = i if code is None else None
        elif code is not None:
            continue
        elif ch in _OPENERS:
            stack.append((_OPENERS[ch], i))
        elif stack and ch == stack[-1][0]:
            stack.pop()
    opened = [i for i in (stack[0][1] if stack else None, code) if i is not None]
    return min(opened) if opened else None


def fit(card: Card, limits: PlatformLimits) -> list[Card]:
    """``card`` as consecutive cards that each fit one message of the platform of ``limits``.

    First the texts a platform bounds are cut (:func:`clip`): the header, the fallback (set to the
    cut fallback, or the cut header when the card has no fallback), button labels and image
    alternative texts. Then the card is split with :func:`split_card` and ``limits.fits``, so
    every PR the card lists is in exactly one of the results.

    Args:
        card: a card as the builders make it (texts of any length).
        limits: the platform's message limits.

    Returns:
        One card when it fits, else two or more, in order; each keeps the header, ``part`` and
        ``parts``.
    """
    cut = card.model_copy(update={
        "header": clip(card.header, limits.header_chars),
        "fallback": clip(card.fallback or card.header, limits.fallback_chars),
        "blocks": tuple(_cut_block(b, limits) for b in card.blocks),
    })
    return split_card(cut, limits.fits)


def _cut_block(block: Block, limits: PlatformLimits) -> Block:
    """``block`` with its button labels or image alternative text cut to ``limits``."""
    if isinstance(block, Actions):
        buttons = tuple(b.model_copy(update={"label": clip(b.label, limits.button_chars)}) for b in block.buttons)
        return block.model_copy(update={"buttons": buttons})
    if isinstance(block, Image):
        return block.model_copy(update={"alt": clip(block.alt, limits.alt_chars)})
    return block


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
