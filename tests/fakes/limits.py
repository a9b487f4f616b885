"""ONE table of the platform limits the fakes enforce, next to the limits the code builds with.

Each :class:`Rule` names what the platform rejects (``platform_limit``, from
``../shared/docs/platform-limits.md``), the error it answers with, and the margin limit prhub's
converters use (``ours``, imported from the code so that the two cannot drift apart). The fake
servers read their thresholds from :data:`RULES` only; ``tests/adapters/test_chat_fakes.py`` has one
negative test per rule and checks ``ours <= platform_limit``.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapters.feishu import cards as feishu_cards
from adapters.slack import blocks as slack_blocks


@dataclass(frozen=True)
class Rule:
    """One limit: ``platform`` rejects ``what`` beyond ``platform_limit`` with ``error``; prhub
    stays within ``ours``."""

    platform: str
    name: str
    what: str
    platform_limit: int
    ours: int
    error: str


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("slack", "blocks", "blocks per message", 50, slack_blocks.MAX_BLOCKS, "invalid_blocks"),
    Rule("slack", "section", "section text chars (1..limit)", 3000, slack_blocks.MAX_SECTION, "invalid_blocks"),
    Rule("slack", "header", "header plain_text chars", 150, slack_blocks.MAX_HEADER, "invalid_blocks"),
    Rule("slack", "fields", "fields per section", 10, slack_blocks.MAX_FIELDS, "invalid_blocks"),
    Rule("slack", "field", "chars per field", 2000, slack_blocks.MAX_FIELD, "invalid_blocks"),
    Rule("slack", "total", "block text chars per message (observed)", 13000, slack_blocks.MAX_TOTAL, "msg_blocks_too_long"),
    Rule("slack", "fallback", "top-level text chars (required)", 4000, slack_blocks.MAX_FALLBACK, "msg_too_long"),
    Rule("feishu", "card_bytes", "request body bytes of a card send (UTF-8, card JSON as a string inside)", 30000, feishu_cards.MAX_CARD_BYTES, "230025"),
    Rule("feishu", "tables", "markdown tables per card", 5, 0, "230099"),
)}

SLACK_MISSING_TEXT = "no_text"
SLACK_BAD_JSON = "invalid_blocks_format"
SLACK_NOT_AUTHED = "not_authed"
SLACK_INVALID_AUTH = "invalid_auth"
FEISHU_CARD_INVALID = 230099
FEISHU_MISSING_TOKEN = 99991661
FEISHU_INVALID_TOKEN = 99991663
FEISHU_BAD_APP_SECRET = 10014
FEISHU_THROTTLED = 230020
FEISHU_RATE_LIMIT = 99991400


def limit(name: str) -> int:
    """The platform limit of rule ``name``."""
    return RULES[name].platform_limit
