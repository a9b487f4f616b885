"""The Slack messages of cards: each card fitted once to Slack's limits, then rendered.

:func:`card_to_messages` is what a delivery or a chat reply posts: it cuts and splits each card
with :func:`chatbot.cards.fit.fit` and :data:`SLACK_LIMITS` (measured on the rendered Block Kit),
then renders each fitted card with :func:`adapters.slack.blocks.card_to_message`, which only
translates. Pure; no network.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.slack.blocks import MAX_ALT, MAX_BUTTON, MAX_HEADER, card_to_blocks, card_to_message, fits_one_message
from chatbot.cards.fit import PlatformLimits, fit
from chatbot.cards.model import Card

FALLBACK_CHARS = 1000
"""A message's notification ``text`` is cut to this many characters before it is escaped."""


def _fits(card: Card) -> bool:
    return fits_one_message(card_to_blocks(card))


SLACK_LIMITS = PlatformLimits(fits=_fits, header_chars=MAX_HEADER, button_chars=MAX_BUTTON, alt_chars=MAX_ALT,
                              fallback_chars=FALLBACK_CHARS)
"""What one Slack message holds (``docs/platform-limits.md``): 50 blocks and 12,000 characters of
block text, a 150-character header, 75-character button labels, 2,000-character alt texts."""


def card_to_messages(cards: Sequence[Card]) -> list[dict[str, Any]]:
    """``chat.postMessage`` keyword arguments for cards, in posting order.

    Each item is ``{"text": fallback, "blocks": [...]}`` (no channel, no thread: the delivery adds
    them; items 2..n go in item 1's thread). A card too large for one message becomes several
    consecutive messages.

    Returns:
        One dict per message, each within the Slack limits of :mod:`adapters.slack.blocks`.
    """
    return [card_to_message(piece) for card in cards for piece in fit(card, SLACK_LIMITS)]


__all__ = ["SLACK_LIMITS", "card_to_messages"]
