"""The core's chat actions (chatbot/actions.py): button values validated at each boundary, encoded
the same way every time, and the buttons each answer carries."""

from __future__ import annotations

import pytest

from chatbot.actions import ActionValue, decode, encode, query_of
from chatbot.cards import Action, Card
from chatbot.intents.risks import RisksQuery
from chatbot.intents.subscriptions import SubscribeQuery
from chatbot.module_names import ModuleIndex
from chatbot.weeks import IsoWeek

CURRENT = IsoWeek(2026, 20)


@pytest.fixture(scope="module")
def modules(vllm_rules):
    return ModuleIndex(vllm_rules)


def problem(card):
    assert isinstance(card, Card) and card.blocks[0].role == "action_problem"
    return card.fallback


@pytest.mark.parametrize("week,ok", [("2026-W20", True), ("2026-W21", False), ("1970-W01", True),
                                     ("1969-W52", False), ("2026-W53", False), ("2020-W53", True), ("2026-w19", False)])
def test_the_week_of_a_button_is_checked_at_each_boundary(modules, week, ok):
    got = query_of(Action(id="risks", value=""), ActionValue(week=week), modules=modules, current=CURRENT)
    if ok:
        assert got == RisksQuery(week=week)
    else:
        assert "does not exist or has not begun" in problem(got)


def test_modules_and_ids_are_checked(modules):
    assert query_of(Action(id="subscribe"), ActionValue(module="attention", lang="zh"), modules=modules,
                    current=CURRENT) == SubscribeQuery(lang="zh", modules=("attention",), asked="attention")
    assert "module" in problem(query_of(Action(id="subscribe"), ActionValue(), modules=modules, current=CURRENT))
    assert "does not have" in problem(query_of(Action(id="risks"), ActionValue(module="Attention"), modules=modules,
                                               current=CURRENT))
    assert "not known" in problem(query_of(Action(id="approve"), ActionValue(), modules=modules, current=CURRENT))


def test_values_round_trip_and_refuse_what_is_not_theirs():
    v = ActionValue(repo="vllm-project/vllm", week="2026-W19", lang="zh")
    assert encode(v) == '{"lang":"zh","repo":"vllm-project/vllm","week":"2026-W19"}'
    assert decode(encode(v)) == v and decode("") == ActionValue()
    for bad in ('{"lang":"fr"}', '{"channel":true}', "[1]", "{", '{"week":"2026-W190"}', "[" * 1999):
        assert decode(bad) is None, bad


def test_the_actions_are_the_ones_the_intents_declare():
    from dataclasses import replace

    from chatbot.actions import ACTIONS, actions_of
    from chatbot.intents import INTENTS

    assert {i.name: sorted(i.actions) for i in INTENTS if i.actions} == {
        "module": ["module"], "risks": ["risks"], "subscribe": ["subscribe"], "summary": ["summary"],
        "top_prs": ["top_prs"], "unsubscribe": ["unsubscribe"]}
    assert sorted(ACTIONS) == ["module", "risks", "subscribe", "summary", "top_prs", "unsubscribe"]
    assert sorted(a for a, x in ACTIONS.items() if x.needs_module) == ["module", "subscribe", "unsubscribe"]
    risks = next(i for i in INTENTS if i.name == "risks")
    with pytest.raises(ValueError, match=r"chat action 'risks' declared by both 'risks' and 'echo'"):
        actions_of((*INTENTS, replace(risks, name="echo")))
