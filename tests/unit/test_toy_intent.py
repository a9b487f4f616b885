"""Adding a chat intent is one module plus one registry line: a toy intent written as a new module
(here in a temporary directory) — its query, parser, answer, words and help, its texts in two
languages, its button and what a press asks, and the tie it wins — and added with one line
(``parse_order((*INTENTS, waiting.INTENT))``, what ``chatbot/intents/__init__.py`` does) is read,
answered in English and Chinese, listed in the help card, decorated with its button and answers a
press, with no other file changed."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from chatbot.buttons import decode
from chatbot.cards import Actions, block_text
from chatbot.intent import Intent, parse_order
from chatbot.intents import INTENTS
from chatbot.queries import Responder, parse, query_adapter
from tests.plugin import load_module

NOW = datetime(2026, 5, 17, 12, tzinfo=timezone.utc)  # in 2026-W20

INTENT_MODULE = '''
"""Intent ``waiting``: PRs that waited long before merging (a toy intent for the registry test)."""

from typing import Literal

from chatbot.buttons import ButtonContext, week_action
from chatbot.cards import Button, Card, message_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns


class WaitingQuery(QueryBase):
    intent: Literal["waiting"] = "waiting"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\\bstale\\b",), "zh": ("陈旧",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> WaitingQuery | None:
    return WaitingQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: WaitingQuery, ctx: AnswerContext) -> Card:
    week = ctx.resolve_week(q.week)
    return message_card(tr(ctx.lang, "card.waiting.header", week=week), [tr(ctx.lang, "card.waiting.none")],
                        lang=ctx.lang, role="waiting")


def buttons(q: WaitingQuery, b: ButtonContext) -> list[Button]:
    return b.weeks("waiting")


INTENT = Intent(name="waiting", query=WaitingQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=95, help={"en": "stale PRs [last week]: PRs that waited long", "zh": "陈旧 PR [上周]：等了很久的 PR"},
                before=("risks",), actions={"waiting": week_action(WaitingQuery)}, buttons=buttons,
                texts={"en": {"card.waiting.header": "Stale PRs · {week}", "card.waiting.none": "None waited over 30 days."},
                       "zh": {"card.waiting.header": "陈旧 PR · {week}", "card.waiting.none": "没有等待超过 30 天的 PR。"}})
'''


@pytest.fixture(scope="module")
def waiting(tmp_path_factory) -> Any:
    return load_module(tmp_path_factory.mktemp("plugin"), "waiting", INTENT_MODULE)


@pytest.fixture(scope="module")
def registry(waiting) -> tuple[Intent[Any], ...]:
    return parse_order((*INTENTS, waiting.INTENT))  # the registry line


def responder(registry) -> Responder:
    return Responder(digest_provider=None, clock=lambda: NOW, repo="o/r", intents=registry, buttons=True)  # type: ignore[arg-type]


def test_the_new_intent_is_read_and_answered_in_both_languages(waiting, registry):
    assert parse("stale PRs 2026-W19").intent == "author"  # without the registry line: "stale" read as a name
    q = parse("stale PRs 2026-W19", intents=registry)
    assert q == waiting.WaitingQuery(week="2026-W19")
    assert query_adapter(registry).validate_python(q.model_dump()) == q
    card = responder(registry).reply("stale PRs 2026-W19")
    assert card.header == "Stale PRs · 2026-W19" and block_text(card.blocks[0]) == "None waited over 30 days."
    zh = responder(registry).reply("上周的陈旧 PR")
    assert zh.header == "陈旧 PR · 2026-W19" and block_text(zh.blocks[0]) == "没有等待超过 30 天的 PR。"
    help_lines = block_text(responder(registry).reply("help").blocks[0]).split("\n")
    assert help_lines[-1] == "• stale PRs [last week]: PRs that waited long" and len(help_lines) == len(INTENTS) - 1


def test_its_button_is_on_its_answer_and_a_press_asks_its_query(waiting, registry):
    r = responder(registry)
    card = r.reply("stale PRs 2026-W19")
    assert isinstance(card.blocks[-1], Actions)
    prev, nxt = card.blocks[-1].buttons
    assert (prev.label, prev.action.id, prev.action.value) == ("◀ Previous week", "waiting", '{"repo":"o/r","week":"2026-W18"}')
    assert (nxt.label, nxt.action.value) == ("Next week ▶", '{"repo":"o/r","week":"2026-W20"}')
    pressed = r.act(prev.action, decode(prev.action.value))
    assert pressed.header == "Stale PRs · 2026-W18"
    late = r.act(prev.action, decode('{"week":"2026-W21"}'))  # a week that has not begun: one line
    assert late.blocks[0].role == "action_problem"
    # the shipped registry knows no such action
    assert responder(INTENTS).act(prev.action, decode(prev.action.value)).blocks[0].role == "action_problem"


def test_its_before_decides_the_tie_it_declares(waiting, registry):
    # "stale risks": the toy's word and the risk word cover as much of the message (5 characters each)
    assert parse("stale risks", intents=registry).intent == "waiting"
    assert [i.name for i in registry].index("waiting") < [i.name for i in registry].index("risks")
    from dataclasses import replace

    loose = parse_order((*INTENTS, replace(waiting.INTENT, before=())))
    assert parse("stale risks", intents=loose).intent == "risks"  # unconstrained, "waiting" sorts after every other name
