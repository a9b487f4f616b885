"""The neutral digest cards (BR-03 at the model level) and card splitting."""

from __future__ import annotations

import pytest

from chatbot.cards import (
    Actions,
    Card,
    Image,
    PlatformLimits,
    PRList,
    Section,
    Text,
    clip,
    digest_cards,
    fit,
    run_text,
    split_card,
    with_image,
)
from chatbot.i18n import tr
from tests.hostile_digest import hostile_digest, risky_in_rank_order


def risk_numbers(cards):
    return [i.number for c in cards for b in c.blocks if isinstance(b, PRList) and b.role == "risks" for i in b.items]


def test_top_risks_with_reasons_and_n_of_m_shown():
    d = hostile_digest()
    cards = digest_cards(d, report_url="https://prhub.example.com/r")
    assert len(cards) == 3  # summary, risks, key PRs: a week of any size
    assert len(risky_in_rank_order(d)) == 80
    assert risk_numbers(cards) == risky_in_rank_order(d)[:8]  # the default top 8, rank order
    top = [b for c in cards for b in c.blocks if isinstance(b, PRList) and b.role == "risks"]
    assert len(top) == 1 and top[0].more == 72
    assert top[0].more_text == "8 of 80 shown; all in the full report" and top[0].more_url == "https://prhub.example.com/r"
    first = next(p for p in d.prs if p.number == top[0].items[0].number)
    assert run_text(top[0].items[0].detail).startswith(f"{tr('en', f'risk.{first.risk_tags[0]}')}: core path vllm/")
    assert [c.part for c in cards] == list(range(1, len(cards) + 1)) and {c.parts for c in cards} == {len(cards)}
    assert all(len(i.title) <= 150 for c in cards for b in c.blocks if isinstance(b, PRList) for i in b.items)
    zh = digest_cards(hostile_digest(lang="zh"))
    assert [b for c in zh for b in c.blocks if isinstance(b, PRList) and b.role == "risks"][0].more_text == "已显示 80 个中的 8 个"


def test_top_risks_is_configurable():
    from chatbot.cards import CardLimits

    d = hostile_digest()
    cards = digest_cards(d, limits=CardLimits(top_risks=3))
    assert risk_numbers(cards) == risky_in_rank_order(d)[:3]
    last = [b for c in cards for b in c.blocks if isinstance(b, PRList) and b.role == "risks"][-1]
    assert last.more == 77 and last.more_text == "3 of 80 shown" and last.more_url == ""
    everything = digest_cards(d, limits=CardLimits(top_risks=80))
    assert risk_numbers(everything) == risky_in_rank_order(d)
    assert [b for c in everything for b in c.blocks if isinstance(b, PRList) and b.role == "risks"][0].more_text == ""


def test_risks_answer_shows_the_top_risks(vllm_rules):
    from chatbot.cards import risks_card
    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs

    d = written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules)
    card = risks_card(d, report_url="https://prhub.example.com/r")
    top = [b for b in card.blocks if isinstance(b, PRList) and b.role == "risks"][0]
    assert [i.number for i in top.items] == risky_in_rank_order(d)[:8]
    assert top.more_text == "8 of 33 shown; all in the full report"


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


def test_fit_cuts_what_a_platform_bounds_then_splits_keeping_every_block_in_order():
    d = hostile_digest()
    card = with_image(digest_cards(d, report_url="https://prhub.example.com/r")[0],
                      Image(key="img_1", alt="Label distribution (PRs) " * 10))
    card = card.model_copy(update={"header": "Weekly   digest " + "x" * 200})
    limits = PlatformLimits(fits=lambda c: len(c.blocks) <= 3, header_chars=40, button_chars=5, alt_chars=12,
                            fallback_chars=30)
    pieces = fit(card, limits)
    assert len(pieces) == -(-len(card.blocks) // 3) and all(len(p.blocks) <= 3 for p in pieces)
    assert [b.kind for p in pieces for b in p.blocks] == [b.kind for b in card.blocks]
    assert {p.header for p in pieces} == {"Weekly digest " + "x" * 25 + "…"}
    assert {p.fallback for p in pieces} == {clip(card.fallback, 30)} and len(clip(card.fallback, 30)) == 30
    assert [b.label for p in pieces for blk in p.blocks if isinstance(blk, Actions) for b in blk.buttons] == ["Full…"]
    assert [blk.alt for p in pieces for blk in p.blocks if isinstance(blk, Image)] == ["Label…"]  # a whole word
    # a card without a fallback notifies with its (cut) header; one that fits is one card
    (alone,) = fit(Card(header="Risks   of the week", blocks=(Section(lines=((Text(text="x"),),)),)), limits)
    assert (alone.header, alone.fallback) == ("Risks of the week", "Risks of the week")


def test_card_is_frozen_and_strict():
    import pytest
    from pydantic import ValidationError

    c = Card(header="h", blocks=(Section(lines=((Text(text="x"),),)),))
    with pytest.raises(ValidationError):
        Card(header="h", colour="red")
    with pytest.raises(ValidationError):
        c.header = "other"


def test_empty_week_single_card(vllm_rules):
    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek

    d = written_digest([], repo="a/b", week=IsoWeek.parse("2026-W30"), rules=vllm_rules)
    cards = digest_cards(d)
    assert len(cards) == 1 and "No merged PRs found for 2026-W30." in str(cards[0].blocks)


def test_plurals_and_chinese_punctuation_in_card_text(vllm_rules):
    from chatbot.cards import module_card, pr_card
    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs

    d = written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules, lang="zh")
    cards = digest_cards(d)
    assert cards[0].header == "vllm-project/vllm 周报 2026-W20（05-11 – 05-17）"
    assert cards[0].fallback.startswith("vllm-project/vllm 周报 2026-W20（05-11 – 05-17）：")
    fields = [run_text(f.value) for b in cards[0].blocks if b.kind == "fields" for f in b.items]
    assert any("（" in v and " (" not in v for v in fields)  # 文档（26）、CI/构建（45）
    single = written_digest(week_prs("2026-W20")[:1], repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"),
                          rules=vllm_rules)
    m = single.prs[0].primary_module
    assert ": 1 PR, +" in module_card(single, m, m).fallback  # never "1 PRs"
    zh1 = written_digest(week_prs("2026-W20")[:1], repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"),
                       rules=vllm_rules, lang="zh")
    assert "：1 个 PR，+" in module_card(zh1, m, m).fallback
    assert "：" in pr_card(d.prs[0], d).fallback and ": " not in pr_card(d.prs[0], d).fallback


@pytest.mark.parametrize("text,limit,want", [
    # the chat "risks" answer once ended "#35859 (critical, quark_nvfp4.py); #42370 (…": a cut left open
    ("the most severe: #35859 (critical, quark_nvfp4.py); #42370 (high, factories.py) “The imports”", 60,
     "the most severe: #35859 (critical, quark_nvfp4.py); #42370…"),
    ("merged PRs of the week and their digest", 20, "merged PRs of the…"),  # a whole word, no dangling space
    ("large change: 32 files, +7,128/-7,010 lines", 31, "large change: 32 files…"),  # no dangling comma
    ("本周合并的PR以及它们的风险观察和建议", 10, "本周合并的PR以及…"),  # no spaces: cut at a character
    ("(a very long parenthesis that never closes in time)", 20, "(a very long…"),  # open from the start: kept
    # a code span left open turns the rest of a Slack/Markdown line into code
    ("Clean up pooling models `build_tok_params` logic for all runners", 38, "Clean up pooling models…"),
    ("Use `x[0]` here and then `tail(x) more` please", 36, "Use `x[0]` here and then…"),  # [ in code is literal
    ("提交说明：修复【注意力后端】中的问题并补充测试用例说明", 14, "提交说明：修复…"),
    ("set the config to {max_num_seqs: 256, block_size: 16} now", 34, "set the config to…"),
    ("exactly twenty chars", 20, "exactly twenty chars"),  # at the limit: untouched
    ("exactly twenty chars!", 20, "exactly twenty…"),  # one over
])
def test_clip_keeps_whole_words_and_closed_brackets(text, limit, want):
    out = clip(text, limit)
    assert out == want and len(out) <= limit
