"""The chat-intent registry: every intent the bot understands, one line each, in any order.

Parsing tries every intent; the one whose words cover most of the message wins
(:func:`chatbot.intent.cue_score`). Only when two readings score alike does precedence decide:
each intent names the intents it wins such a tie against (``Intent(before=(...))``: ``unsubscribe``
before ``subscribe``, ``risk_tag`` before ``risks``, ``summary`` before ``module``, ...), and
:func:`chatbot.intent.parse_order` sorts the registry by those constraints (by name where none
applies). ``tests/unit/test_intent_registry.py`` fails on a cycle, a ``before`` naming no intent,
or a message of its corpus on which two intents tie that no constraint orders. The help card lists
the intents by ``help_rank``.

To add an intent: write ``chatbot/intents/<name>.py`` (a query model, ``parse``, ``answer``,
patterns, help lines and its ``before`` in one :class:`chatbot.intent.Intent`) and add its line
below.
"""

from __future__ import annotations

from typing import Any

from chatbot.intent import Intent, parse_order
from chatbot.intents import (authors, compare, contributors, count, help, labels, module, new_contributors, new_models,
                             paths, pr_lookup, range_summary, report, review_first, risk_tags, risks, search,
                             subscriptions, summary, top_prs, trends)

INTENTS: tuple[Intent[Any], ...] = parse_order((
    authors.INTENT,
    compare.INTENT,
    contributors.INTENT,
    count.INTENT,
    help.INTENT,
    labels.INTENT,
    module.INTENT,
    new_contributors.INTENT,
    new_models.INTENT,
    paths.INTENT,
    pr_lookup.INTENT,
    range_summary.INTENT,
    report.INTENT,
    review_first.INTENT,
    risk_tags.INTENT,
    risks.INTENT,
    search.INTENT,
    subscriptions.LIST,
    subscriptions.SUBSCRIBE,
    subscriptions.UNSUBSCRIBE,
    summary.INTENT,
    top_prs.INTENT,
    trends.INTENT,
))
"""The registry, in parse order (:func:`chatbot.intent.parse_order` of the lines above)."""
