"""The Feishu cards of cards: each card fitted once to Feishu's limits, then rendered.

:func:`cards_to_feishu` is what a delivery or a chat reply sends: it cuts and splits each card with
:func:`chatbot.cards.fit.fit` and :data:`FEISHU_LIMITS` (measured as the request body that sends
the rendered card), then renders each fitted card with
:func:`adapters.feishu.cards.card_to_feishu_card`, which only translates. Pure; no network.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.feishu.cards import MAX_CARD_BYTES, card_to_feishu_card, request_body_bytes
from chatbot.cards.fit import PlatformLimits, fit
from chatbot.cards.model import Card


def _fits(card: Card) -> bool:
    return request_body_bytes(card_to_feishu_card(card)) <= MAX_CARD_BYTES


FEISHU_LIMITS = PlatformLimits(fits=_fits, header_chars=150, button_chars=60, alt_chars=200, fallback_chars=120)
"""What one Feishu card message holds: a request body of at most 25,000 bytes
(:data:`adapters.feishu.cards.MAX_CARD_BYTES`), a 150-character header, 60-character button
labels, 200-character alt texts and a 120-character summary (the card's fallback)."""


def cards_to_feishu(cards: Sequence[Card]) -> list[dict[str, Any]]:
    """Card objects for cards, in sending order, each sent in a request body within 25,000 bytes
    (:func:`adapters.feishu.cards.request_body_bytes`).

    A card too large is split between blocks, items or lines (every listed PR kept exactly once).

    Returns:
        Card JSON 2.0 objects (what ``json.loads(content)`` gives for ``im.v1.message.create``).
    """
    return [card_to_feishu_card(piece) for card in cards for piece in fit(card, FEISHU_LIMITS)]


__all__ = ["FEISHU_LIMITS", "cards_to_feishu"]
