"""The chat-intent registry: every intent the bot understands, in parse order.

Parsing tries every intent; the one whose words cover most of the message wins
(:func:`chatbot.intent.cue_score`), and the order breaks ties (``unsubscribe`` before
``subscribe``, a PR number before a module name, ...). Intents with
``takes_week`` come after the week check. The help card lists them by ``help_rank``.

To add an intent: write ``chatbot/intents/<name>.py`` (a query model, ``parse``, ``answer``,
patterns and help lines in one :class:`chatbot.intent.Intent`) and add its line below.
"""

from __future__ import annotations

from typing import Any

from chatbot.intent import Intent
from chatbot.intents import (authors, compare, contributors, count, help, labels, module, new_contributors, new_models, paths,
                             pr_lookup, range_summary, report, review_first, risk_tags, risks, search, subscriptions, summary,
                             top_prs, trends)

INTENTS: tuple[Intent[Any], ...] = (
    help.INTENT,
    subscriptions.LIST,
    subscriptions.UNSUBSCRIBE,
    subscriptions.SUBSCRIBE,
    search.INTENT,
    pr_lookup.INTENT,
    compare.INTENT,
    trends.INTENT,
    range_summary.INTENT,
    count.INTENT,
    paths.INTENT,
    review_first.INTENT,
    new_models.INTENT,
    risk_tags.INTENT,
    labels.INTENT,
    risks.INTENT,
    authors.INTENT,
    top_prs.INTENT,
    new_contributors.INTENT,
    contributors.INTENT,
    report.INTENT,
    summary.INTENT,
    module.INTENT,
)
"""The registry, in parse order."""
