"""The neutral digest cards (BR-03 at the model level) and card splitting."""

from __future__ import annotations

from chatbot.cards import Card, PRList, Section, Text, digest_cards, split_card
from tests.hostile_digest import hostile_digest, risky_in_rank_order


def risk_numbers(cards):
    return [i.number for c in cards for b in c.blocks if isinstance(b, PRList) and b.role == "risks" for i in b.items]


def test_every_risky_pr_once_in_rank_order():
    d = hostile_digest()
    cards = digest_cards(d, report_url="https://prhub.example.com/r")
    assert risk_numbers(cards) == risky_in_rank_order(d)
    assert len(risky_in_rank_order(d)) == 80
    assert [c.part for c in cards] == list(range(1, len(cards) + 1)) and {c.parts for c in cards} == {len(cards)}
    assert all(len(i.title) <= 150 for c in cards for b in c.blocks if isinstance(b, PRList) for i in b.items)


def test_truncation_says_and_n_more_with_report_link():
    from chatbot.cards import CardLimits

    d = hostile_digest()
    cards = digest_cards(d, report_url="https://prhub.example.com/r", limits=CardLimits(risk_prs_per_part=10, max_parts=4))
    listed = risk_numbers(cards)
    assert listed == risky_in_rank_order(d)[:20]
    last = [b for c in cards for b in c.blocks if isinstance(b, PRList) and b.role == "risks"][-1]
    assert last.more == 60 and last.more_text == "and 60 more in the full report" and last.more_url == "https://prhub.example.com/r"


def test_no_report_button_without_url():
    cards = digest_cards(hostile_digest())
    assert not any(b.kind == "actions" for c in cards for b in c.blocks)
    cards = digest_cards(hostile_digest(), report_url="javascript:alert(1)")
    assert not any(b.kind == "actions" for c in cards for b in c.blocks)


def test_split_card_keeps_every_item_once_in_order():
    d = hostile_digest()
    card = digest_cards(d)[1]
    pieces = split_card(card, lambda c: sum(len(b.items) if isinstance(b, PRList) else 1 for b in c.blocks) <= 7)
    assert len(pieces) > 1
    assert risk_numbers(pieces) == risk_numbers([card])


def test_card_is_frozen_and_strict():
    import pytest
    from pydantic import ValidationError

    c = Card(header="h", blocks=(Section(lines=((Text(text="x"),),)),))
    with pytest.raises(ValidationError):
        Card(header="h", colour="red")
    with pytest.raises(ValidationError):
        c.header = "other"


def test_empty_week_single_card(vllm_rules):
    from chatbot.digest import build_digest
    from chatbot.weeks import IsoWeek

    d = build_digest([], repo="a/b", week=IsoWeek.parse("2026-W30"), rules=vllm_rules)
    cards = digest_cards(d)
    assert len(cards) == 1 and "No merged PRs found for 2026-W30." in str(cards[0].blocks)
