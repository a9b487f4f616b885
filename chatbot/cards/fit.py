"""Fitting a card to a platform's limits: cutting texts and splitting a card that is too large.

Pure: the same card and size check give the same cards.
"""

from __future__ import annotations

from collections.abc import Callable

from chatbot.cards.model import Block, Card, PRList, Section

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """``text`` with whitespace collapsed, cut to ``limit`` characters (the last one "…")."""
    s = " ".join(text.split())
    return s if len(s) <= limit else s[: max(limit - 1, 0)] + ELLIPSIS


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
