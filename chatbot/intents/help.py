"""Intent ``help``: what the bot understands; also the answer to text it did not understand.

The help card is generated from the registry: one line per intent with a help line, in
``help_rank`` order.
"""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card, Section, Text, Line
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns


class HelpQuery(QueryBase):
    """Help. ``unknown``: the text was not understood; ``problem``: a catalog key and value
    (``bad_week:2026-W60``) naming what was wrong."""

    intent: Literal["help"] = "help"
    unknown: bool = False
    problem: str = ""


PATTERNS = {"en": (r"^(?:help|h|usage|commands|/help)$",), "zh": (r"^(?:帮助|帮忙|使用帮助|怎么用|命令)$",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> HelpQuery | None:
    """An empty message (only a mention) or a help word."""
    if not inp.text or _RX.search(inp.text):
        return HelpQuery(lang=inp.lang)
    return None


def help_card(lang: str, topics: list[str], *, unknown: bool = False, problem: str = "") -> Card:
    """What the bot understands, in ``lang``: one bullet per topic line; ``unknown`` prefixes "I did
    not understand that"; ``problem`` (trusted text) is shown first."""
    lines: list[Line] = []
    if problem:
        lines.append((Text(text=problem),))
    if unknown:
        lines.append((Text(text=tr(lang, "card.help.unknown")),))
    lines += [(Text(text="• "), Text(text=t)) for t in topics]
    header = tr(lang, "card.help.header")
    return Card(header=header, lang=lang, blocks=(Section(role="help", lines=tuple(lines)),),
                fallback=" ".join([header, problem]).strip())


def answer(q: HelpQuery, ctx: AnswerContext) -> Card:
    """The help card of the registry in ``ctx.intents``."""
    problem = ""
    if q.problem.startswith("bad_week:"):
        problem = tr(ctx.lang, "card.bad_week", week=q.problem.split(":", 1)[1])
    ranked = sorted((i for i in ctx.intents if i.help_line(ctx.lang)), key=lambda i: i.help_rank)
    return help_card(ctx.lang, [i.help_line(ctx.lang) for i in ranked], unknown=q.unknown, problem=problem)


INTENT = Intent(name="help", query=HelpQuery, patterns=PATTERNS, parse=parse, answer=answer)
