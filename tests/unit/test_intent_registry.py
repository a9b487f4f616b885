"""Intent precedence is declared, not positional: each intent names the intents it wins a tie
against (``Intent(before=...)``), :func:`chatbot.intent.parse_order` sorts the registry by those
constraints, and a tie on any message of the corpus (the paraphrase set and the tie witnesses,
tests/fixtures/intent_ties.yaml) must be decided by a constraint, never by where a line sits."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml

from chatbot.cards import Card, message_card
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, cue_pattern, cue_score, parse_order
from chatbot.intents import INTENTS
from chatbot.module_names import default_module_index
from chatbot.queries import clean_text, parse

FIXTURES = Path(__file__).parent.parent / "fixtures"
TIES = yaml.safe_load((FIXTURES / "intent_ties.yaml").read_text(encoding="utf-8"))
PARAPHRASES = [c["q"] for c in yaml.safe_load((FIXTURES / "paraphrases.yaml").read_text(encoding="utf-8"))]


def precedes(intents: tuple[Intent[Any], ...]) -> set[tuple[str, str]]:
    """Every ``(a, b)`` with ``a`` before ``b`` through a chain of ``before`` constraints."""
    direct = {i.name: set(i.before) for i in intents}
    out: set[tuple[str, str]] = set()
    for a in direct:
        todo, seen = list(direct[a]), set()
        while todo:
            b = todo.pop()
            if b not in seen:
                seen.add(b)
                todo += direct[b]
        out |= {(a, b) for b in seen}
    return out


def ties(text: str, intents: tuple[Intent[Any], ...] = INTENTS) -> list[tuple[str, str]]:
    """The pairs of intents that both read ``text`` with the same cue score (parse order)."""
    inp = ParseInput(text=clean_text(text), modules=default_module_index(), cues=cue_pattern(intents))
    read = [(i.name, cue_score(i, inp.text)) for i in intents
            if not (i.takes_week and inp.week_problem) and i.parse(inp) is not None]
    return [(a, b) for k, (a, s) in enumerate(read) for b, t in read[k + 1:] if s == t]


def test_the_parse_order_follows_the_constraints_whatever_the_listing_order():
    names = [i.name for i in INTENTS]
    for seed in range(5):
        shuffled = list(INTENTS)
        random.Random(seed).shuffle(shuffled)
        assert [i.name for i in parse_order(shuffled)] == names
    pos = {n: k for k, n in enumerate(names)}
    edges = [(i.name, b) for i in INTENTS for b in i.before]
    assert len(edges) == 23 and all(pos[a] < pos[b] for a, b in edges)
    assert names[:4] == ["help", "subscriptions", "unsubscribe", "subscribe"] and names[-2:] == ["summary", "module"]


def test_every_tie_of_the_corpus_is_decided_by_a_constraint():
    order = precedes(INTENTS)
    corpus = PARAPHRASES + [t["q"] for t in TIES]
    undecided = {(q, a, b) for q in corpus for a, b in ties(q) if (a, b) not in order and (b, a) not in order}
    assert undecided == set()
    assert sum(1 for q in PARAPHRASES if ties(q)) == 19  # paraphrases with a tie among their readings


def test_each_constraint_is_witnessed_by_a_message_on_which_its_pair_ties():
    edges = {(i.name, b) for i in INTENTS for b in i.before}
    witnessed = {tuple(t["tie"]) for t in TIES}
    assert witnessed == edges
    for t in TIES:
        assert tuple(t["tie"]) in ties(t["q"]), t["q"]
    # the constraint decides the reading: without it the tie falls to the names
    assert parse("量化和 moe 对比一下").intent == "compare"
    loose = tuple(replace(i, before=()) if i.name == "compare" else i for i in INTENTS)
    assert parse("量化和 moe 对比一下", intents=parse_order(loose)).intent == "trends"
    assert parse("更多风险").intent == "risk_tag"


def _toy(name: str, before: tuple[str, ...] = (), takes_week: bool = False) -> Intent[Any]:
    class ToyQuery(QueryBase):
        intent: Literal["toy"] = "toy"

    def answer(q: ToyQuery, ctx: AnswerContext) -> Card:
        return message_card(name, [name], lang=ctx.lang, role="toy")

    return Intent(name=name, query=ToyQuery, patterns={"en": (rf"\b{name}\b",)}, answer=answer,
                  parse=lambda inp: ToyQuery(lang=inp.lang) if name in inp.text.split() else None,
                  before=before, takes_week=takes_week)


def test_bad_constraints_are_refused_naming_the_intents():
    with pytest.raises(ValueError, match=r"intent 'zap': before='risk' names no other intent of the registry"):
        parse_order((*INTENTS, _toy("zap", before=("risk",))))
    with pytest.raises(ValueError, match=r"before='zap' names no other intent"):
        parse_order((*INTENTS, _toy("zap", before=("zap",))))
    with pytest.raises(ValueError, match=r"intent 'risks' registered twice"):
        parse_order((*INTENTS, next(i for i in INTENTS if i.name == "risks")))
    cycle = tuple(replace(i, before=(*i.before, "zap")) if i.name == "module" else i for i in INTENTS)
    with pytest.raises(ValueError, match=r"cycle: author before top_prs before new_contributors before contributors "
                                         r"before report before module before zap before risk_tag before risks before "
                                         r"author \(their before= constraints\)"):
        parse_order((*cycle, _toy("zap", before=("risk_tag",))))


def test_an_intent_that_takes_no_week_reads_a_bad_week_wherever_it_sorts():
    registry = parse_order((*INTENTS, _toy("zap")))
    assert registry[-1].name == "zap"  # after every week-taking intent: no constraint, the last name
    assert parse("zap 2026-W60", intents=registry).intent == "toy"
    assert parse("risks 2026-W60", intents=registry).model_dump()["problem"] == "bad_week:2026-W60"
    assert parse("zap", intents=parse_order((*INTENTS, _toy("zap", takes_week=True)))).intent == "toy"
