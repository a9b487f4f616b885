"""The chat-intent registry: every intent the bot understands, in parse order.

Parsing tries the intents top to bottom and the first match wins, so the order is the precedence
(``unsubscribe`` before ``subscribe``, a PR number before a module name, ...). Intents with
``takes_week`` come after the week check. The help card lists them by ``help_rank``.

To add an intent: write ``chatbot/intents/<name>.py`` (a query model, ``parse``, ``answer``,
patterns and help lines in one :class:`chatbot.intent.Intent`) and add its line below.
"""

from __future__ import annotations

from typing import Any

from chatbot.intent import Intent
from chatbot.intents import (authors, contributors, help, module, new_contributors, paths, pr_lookup, risk_tags, risks,
                             search, subscriptions, summary, top_prs, trends)

INTENTS: tuple[Intent[Any], ...] = (
    help.INTENT,
    subscriptions.LIST,
    subscriptions.UNSUBSCRIBE,
    subscriptions.SUBSCRIBE,
    search.INTENT,
    pr_lookup.INTENT,
    trends.INTENT,
    paths.INTENT,
    risk_tags.INTENT,
    risks.INTENT,
    authors.INTENT,
    top_prs.INTENT,
    new_contributors.INTENT,
    contributors.INTENT,
    summary.INTENT,
    module.INTENT,
)
"""The registry, in parse order."""
