"""Feishu card JSON 2.0 rendering: BR-08 (payload shape, bytes, safe markdown)."""

from __future__ import annotations

import json
import re

from adapters.feishu.cards import (
    HARD_CARD_BYTES,
    MAX_CARD_BYTES,
    card_to_feishu_card,
    escape_md,
    message_payload,
    request_body_bytes,
    webhook_payload,
)
from adapters.feishu.messages import cards_to_feishu
from chatbot.cards import Card, FieldItem, Fields, PRRef, Section, Text, Untrusted, digest_cards
from tests.hostile_digest import hostile_digest, risky_in_rank_order

EVIL = "[Misc] <at id=all></at> cleanup <font color='red'>x</font>"


def markdown_of(card: dict) -> str:
    return "\n".join(e.get("content", "") for e in card["body"]["elements"] if e["tag"] == "markdown")


def test_br08_payload_shape_and_size():
    d = hostile_digest(lang="zh", chinese=True)
    d = d.model_copy(update={"prs": tuple(p.model_copy(update={"title": EVIL}) if i == 3 else p for i, p in enumerate(d.prs))})
    cards = cards_to_feishu(digest_cards(d, report_url="https://prhub.example.com/r"))
    assert len(cards) >= 3
    for card in cards:
        body = message_payload(card)
        assert body["msg_type"] == "interactive" and isinstance(body["content"], str)
        obj = json.loads(body["content"])
        assert obj == card and "card" not in obj and "header" in obj and "body" in obj and obj["schema"] == "2.0"
        assert len(body["content"].encode("utf-8")) < request_body_bytes(card) <= MAX_CARD_BYTES < HARD_CARD_BYTES
        hook = webhook_payload(card)
        assert set(hook) == {"msg_type", "card"} and hook["card"] is card and "content" not in hook
        md = markdown_of(card)
        assert len(re.findall(r"^\|.*\|\s*$", md, re.M)) == 0  # no markdown tables
        assert "<at" not in body["content"] and "<font" not in body["content"]
        assert "\\[" not in md and "\\]" not in md
        assert "i18n_elements" not in card and "i18n_header" not in card
    listed = [int(n) for c in cards for n in re.findall(r"^- \[#(\d+)\]\(https://github\.com/[^)]+\) .*— (?:核心|缺少|删除|大规模|外部|回滚|后续|安全|评审|无人工|机器人|assert)",
                                                         markdown_of(c), re.M)]
    assert listed == risky_in_rank_order(d)[:8]  # the top risks; the report lists all 80
    assert "已显示 80 个中的 8 个，全部见完整报告" in "\n".join(markdown_of(c) for c in cards)


def test_br08_bugfix_prefix_without_backslashes():
    card = card_to_feishu_card(Card(header="h", lang="zh", blocks=(Section(lines=(
        (PRRef(number=1, url="https://github.com/a/b/pull/1", title="[Bugfix] 修复注意力内核在长序列下的数值溢出问题"),),
        (PRRef(number=2, url="https://github.com/a/b/pull/2", title=EVIL),),
    )),)))
    md = markdown_of(card)
    assert "[#1](https://github.com/a/b/pull/1) [Bugfix] 修复注意力内核在长序列下的数值溢出问题" in md
    assert "[#2](https://github.com/a/b/pull/2) [Misc] &#60;at id=all&#62;&#60;/at&#62; cleanup &#60;font color='red'&#62;x&#60;/font&#62;" in md
    assert "\\" not in md


def test_escape_md_neutralises_syntax():
    assert escape_md("[Bugfix] a_b *c*") == "[Bugfix] a_b &#42;c&#42;"  # an _ inside a word stays
    assert escape_md("_x_ __init__.py") == "&#95;x&#95; &#95;&#95;init&#95;&#95;.py"
    assert escape_md("[x](https://evil)") == "[x]&#40;https://evil)"
    assert escape_md("# title") == "&#35; title" and escape_md("- item") == "&#45; item"
    assert escape_md("R&D &lt;x&gt;") == "R&#38;D &#38;lt;x&#38;gt;"
    assert escape_md("<at user_id=\"ou_BOB\"></at>").count("<") == 0


def test_line_start_markers_only_at_the_start_of_a_line():
    assert escape_md("2. item") == "&#50;. item" and escape_md("2. item", line_start=False) == "2. item"
    assert escape_md("+400/-20", line_start=False) == "+400/-20" and escape_md("+400/-20") == "&#43;400/-20"
    assert escape_md("> quote") == "&#62; quote" and escape_md("a > b", line_start=False) == "a &#62; b"
    card = card_to_feishu_card(Card(header="h", lang="zh", blocks=(
        Fields(items=(FieldItem(label="平均重要度", value=(Text(text="2.6"),)),
                      FieldItem(label="改动", value=(Text(text="+400/-20"),)))),
        Section(lines=((Untrusted(text="# not a heading"),), (Text(text="• "), Untrusted(text="# mid-line, gpu_model 1. x")),
                       (Text(text=" "), Untrusted(text="- spaced list")))),
    )))
    md = markdown_of(card)
    assert "**平均重要度**: 2.6" in md and "**改动**: +400/-20" in md
    assert "&#35; not a heading" in md and "• # mid-line, gpu_model 1. x" in md and " &#45; spaced list" in md


def test_hostile_titles_stay_inert_with_lighter_escaping():
    from tests.hostile_digest import HOSTILE

    for lang, chinese in (("en", False), ("zh", True)):
        cards = cards_to_feishu(digest_cards(hostile_digest(lang=lang, chinese=chinese), report_url="https://prhub.example.com/r"))
        for card in cards:
            md = markdown_of(card)
            for live in ("<at", "<font", "<!channel>", "](https://evil", "`code`", "*bold*", "~strike~", "$x$", "| table |"):
                assert live not in md, live
            for line in md.splitlines():  # no heading, list, quote or ordered item but prhub's own "- [#N]" items
                assert not re.match(r"\s{0,3}(#|>|\+|=|\d+[.)]\s|-(?! \[#\d+\]))", line), line
    assert escape_md(HOSTILE[3]).count("&#42;") == 2


def test_digits_mid_line_are_not_entities_in_the_real_weeks(vllm_rules):
    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs

    d = written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules, lang="zh")
    text = "\n".join(markdown_of(c) for c in cards_to_feishu(digest_cards(d)))
    assert not re.findall(r"&#(4[89]|5[0-7]|43);", text)  # no digit or + entity anywhere in this week
    assert f"**平均重要度**：{d.avg_importance:.1f}" in text and "gpu_model_runner.py" in text


def test_body_size_is_the_request_body_as_sent():
    from adapters.feishu.cards import card_bytes, card_json, request_body_bytes

    cards = cards_to_feishu(digest_cards(hostile_digest(lang="zh", chinese=True)))
    assert len(cards) == 3 and all(request_body_bytes(c) <= MAX_CARD_BYTES for c in cards)
    # body = the card JSON + one backslash per quote/backslash in it + the same envelope for every card
    envelopes = {request_body_bytes(c) - card_bytes(c) - card_json(c).count('"') - card_json(c).count("\\") for c in cards}
    assert envelopes == {len('{"receive_id":"","msg_type":"interactive","content":"","uuid":""}') + 64 + 50}


def test_text_runs_keep_spacing():
    card = card_to_feishu_card(Card(header="h", blocks=(Section(lines=((Text(text="• "), Untrusted(text="a"), Text(text=" · "), Text(text="b", bold=True)),)),)))
    assert markdown_of(card) == "• a · **b**"


def test_real_week_cards(vllm_rules):
    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs

    for lang in ("en", "zh"):
        d = written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules, lang=lang)
        cards = cards_to_feishu(digest_cards(d))
        assert all(request_body_bytes(c) <= MAX_CARD_BYTES for c in cards)
        text = "\n".join(markdown_of(c) for c in cards)
        risky = sorted((p for p in d.prs if p.risk_tags), key=lambda p: (-p.importance, p.number))
        assert len(risky) == 33 and all(f"[#{p.number}](" in text for p in risky[:8])
        assert {"en": "8 of 33 shown", "zh": "已显示 33 个中的 8 个"}[lang] in text


def test_an_image_block_is_an_img_element_with_its_img_key():
    from chatbot.cards import Image, with_image

    card = with_image(Card(header="h", blocks=(Section(lines=((Text(text="x"),),)),)),
                      Image(key="img_v2_abc", alt="标签分布（PR 数）"))
    elements = card_to_feishu_card(card)["body"]["elements"]
    assert elements[-1] == {"tag": "img", "img_key": "img_v2_abc", "alt": {"tag": "plain_text", "content": "标签分布（PR 数）"},
                            "scale_type": "fit_horizontal", "preview": True}


def test_field_labels_take_the_languages_colon(vllm_rules):
    """A label and its value are joined by the card language's ``colon``: a full-width colon in
    Chinese ("作者：Nick Hill"), ": " in English, in the Feishu markdown and the plain text alike."""
    from chatbot.cards.answers import pr_card
    from chatbot.render.text import card_to_text
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs
    from tests.digests import written_digest

    for lang, author, merged in (("en", "Author: Nick Hill", "**Author**: Nick Hill"),
                                 ("zh", "作者：Nick Hill", "**作者**：Nick Hill")):
        d = written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"),
                           rules=vllm_rules, lang=lang)
        card = pr_card(next(p for p in d.prs if p.number == 42202), d)
        assert author in card_to_text(card).splitlines()
        assert merged in markdown_of(card_to_feishu_card(card))
        assert (": " in markdown_of(card_to_feishu_card(digest_cards(d)[0]))) is (lang == "en")
