"""A platform-free chat card: its types, the builders that fill it, and fitting it to a platform.

The package, by concern (each module says more):

* :mod:`chatbot.cards.model`: the types (:class:`Card`, its blocks and inline runs, the content
  limits :class:`CardLimits`) and reading a card back as plain text;
* :mod:`chatbot.cards.compose`: the builders the digest and the answers share;
* :mod:`chatbot.cards.digest`: the weekly digest as cards (:func:`digest_cards`);
* :mod:`chatbot.cards.answers`: the cards of chat answers (:func:`risks_card`, :func:`pr_card`, ...);
* :mod:`chatbot.cards.fit`: cutting texts and splitting a card to a platform's limits, done once
  before a converter in ``adapters/slack`` or ``adapters/feishu`` renders it.

Every name is re-exported here, so ``from chatbot.cards import Card, digest_cards`` keeps working.
"""

from chatbot.cards.answers import (
    contributors_card,
    filtered_card,
    message_card,
    module_card,
    pr_card,
    risks_card,
    top_prs_card,
    trends_card,
)
from chatbot.cards.compose import (
    reasons_text,
    report_button,
    top_risks_list,
    week_range,
    window_context,
    with_image,
    with_report_attached,
)
from chatbot.cards.digest import digest_cards
from chatbot.cards.fit import PlatformLimits, clip, fit, split_card
from chatbot.cards.model import (
    ACTION_ID,
    DEFAULT_LIMITS,
    ELLIPSIS,
    Action,
    Actions,
    Attachment,
    Block,
    Button,
    Card,
    CardLimits,
    Context,
    FieldItem,
    Fields,
    Image,
    Line,
    Link,
    PRItem,
    PRList,
    PRRef,
    Run,
    Section,
    Text,
    Untrusted,
    block_text,
    pr_item_text,
    run_text,
)
from chatbot.render.escape import safe_url

__all__ = [
    "ACTION_ID",
    "DEFAULT_LIMITS",
    "ELLIPSIS",
    "Action",
    "Actions",
    "Attachment",
    "Block",
    "Button",
    "Card",
    "CardLimits",
    "Context",
    "FieldItem",
    "Fields",
    "Image",
    "Line",
    "Link",
    "PRItem",
    "PRList",
    "PRRef",
    "PlatformLimits",
    "Run",
    "Section",
    "Text",
    "Untrusted",
    "block_text",
    "clip",
    "contributors_card",
    "digest_cards",
    "filtered_card",
    "fit",
    "message_card",
    "module_card",
    "pr_card",
    "pr_item_text",
    "reasons_text",
    "report_button",
    "risks_card",
    "run_text",
    "safe_url",
    "split_card",
    "top_prs_card",
    "top_risks_list",
    "trends_card",
    "week_range",
    "window_context",
    "with_image",
    "with_report_attached",
]
