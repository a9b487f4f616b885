"""The validator between written words and the digest's facts: a sentence stays only if it is true to them. Pure.

A sentence (:class:`~chatbot.prose_check.checks.Claim`: text, cited PRs, cited fact ids) is checked
against the :class:`~chatbot.prose_check.facts.Facts` of the digest by every named check of
:data:`~chatbot.prose_check.checks.CHECKS` (length, markup, known PRs, the slot's PRs, numbers,
versions, dates, relations, people, direction, foreign identifiers, wrong label, module or
platform names, language). Numbers are found CJK-aware by :mod:`chatbot.prose_check.tokens`.
Each fault is a sentence naming what is wrong; the writer sends them back to the model once.
"""

from chatbot.prose_check.checks import CHECKS, MAX_SENTENCE, Claim, check_claim
from chatbot.prose_check.facts import Facts

__all__ = ["CHECKS", "MAX_SENTENCE", "Claim", "Facts", "check_claim"]
