"""Block Kit rendering: BR-04 (mrkdwn escaping) and BR-03 (limits on a hostile 312-PR week)."""

from __future__ import annotations

import json
import re

import pytest
from slack_sdk.models.blocks import Block

from adapters.slack.blocks import block_text_length, card_to_blocks, escape, render_runs
from adapters.slack.messages import card_to_messages
from chatbot.cards import Card, Link, PRList, PRRef, Section, Text, Untrusted, digest_cards
from tests.hostile_digest import HOSTILE, hostile_digest, risky_in_rank_order

URL = "https://github.com/example-org/example-repo/pull/4321"
TITLE = '[Frontend] Escape <script> & "a > b" <!channel> <@U_ALICE> R&D &lt;x&gt;'
EXPECTED = ('<https://github.com/example-org/example-repo/pull/4321|[Frontend] Escape &lt;script&gt; &amp; "a &gt; b" '
            '&lt;!channel&gt; &lt;@U_ALICE&gt; R&amp;D &amp;lt;x&amp;gt;>')


# --- BR-04 ----------------------------------------------------------------------------------------

def test_br04_exact_line():
    assert render_runs([Link(url=URL, label=TITLE)]) == EXPECTED
    assert render_runs([PRRef(number=4321, url=URL, title=TITLE)]) == "#4321 " + EXPECTED


def test_br04_checks():
    line = EXPECTED
    # & first, then < and >, each once: unescaping once gives the title back
    label = line[len(URL) + 2 : -1]
    assert label.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == TITLE
    assert escape(TITLE) == label
    # the only raw < and > are the link delimiters
    assert line.count("<") == 1 and line.startswith("<") and line.count(">") == 1 and line.endswith(">")
    # URL byte-identical
    assert line[1 : 1 + len(URL)] == URL and line[1 + len(URL)] == "|"
    for live in ("<!channel>", "<!here>", "<@"):
        assert live not in line[1:]
    # idempotent rendering: same title twice, same string; not escaped again
    assert render_runs([Link(url=URL, label=TITLE)]) == render_runs([Link(url=URL, label=TITLE)])
    assert "&amp;amp;" not in line


def test_br04_in_a_digest_with_bold_labels_intact():
    d = hostile_digest(total=5, risky=5)
    p = d.prs[0].model_copy(update={"title": TITLE, "url": URL, "number": 4321})
    d = d.model_copy(update={"prs": (p, *d.prs[1:]), "key_prs": (p,)})
    msgs = card_to_messages(digest_cards(d))
    texts = [b["text"]["text"] for m in msgs for b in m["blocks"] if b["type"] == "section" and "text" in b]
    assert any(EXPECTED in t for t in texts)
    assert any(t.startswith("*Risk observations*") for t in texts)


def test_bot_formatting_and_unsafe_urls():
    card = Card(header="h", blocks=(Section(heading="Head", lines=((Text(text="Risky", bold=True), Untrusted(text=" *x* <!here>")),
                                                                    (Link(url="javascript:alert(1)", label="<evil>"),),
                                                                    (Link(url="https://a.example/x|y", label="z"),))),))
    text = card_to_blocks(card)[1]["text"]["text"]
    assert text.splitlines() == ["*Head*", "*Risky*\u200b*\u200bx\u200b*\u200b &lt;!here&gt;", "&lt;evil&gt;", "z"]


Z = "\u200b"


@pytest.mark.parametrize("title,shown", [
    ("Fix *bold* path", f"Fix {Z}*{Z}bold{Z}*{Z} path"),
    ("an _italic_ word", f"an {Z}_{Z}italic{Z}_{Z} word"),
    ("~struck~ out", f"{Z}~{Z}struck{Z}~{Z} out"),
    ("Add `bind_gpu_block_pool()` API", f"Add {Z}`{Z}bind_gpu_block_pool(){Z}`{Z} API"),
    ("rename gptq_marlin.py to auto_gptq.py", "rename gptq_marlin.py to auto_gptq.py"),
    ("_leading and trailing_", f"{Z}_{Z}leading and trailing{Z}_{Z}"),
    ("a*b", f"a{Z}*{Z}b"),
], ids=["bold", "italic", "strike", "code", "underscore-inside-words-stays", "underscore-at-edges", "lone-star"])
def test_a_title_cannot_format_slack_text(title, shown):
    """Titles (untrusted) rendered "*bold*", "_x_", "~x~" and backticks as formatting on Slack cards;
    mrkdwn has no escape for them, so each marker gets a zero-width space on both sides (no
    boundary on either side: it opens and closes nothing). Wrong change: guarding only one side, or
    every ``_`` (the vLLM file names of real W20 #38288 would be split)."""
    assert escape(title) == shown
    assert render_runs([PRRef(number=1, url=URL, title=title)]) == f"#1 <{URL}|{shown}>"


# --- BR-03 ----------------------------------------------------------------------------------------

def check_message(msg):
    assert set(msg) == {"text", "blocks"}
    assert 0 < len(msg["text"]) <= 3000
    blocks = msg["blocks"]
    assert 0 < len(blocks) <= 50
    assert block_text_length(blocks) <= 12000
    ids = [b["block_id"] for b in blocks]
    assert len(ids) == len(set(ids))
    for b in blocks:
        if b["type"] == "header":
            assert len(b["text"]["text"]) <= 150
        if b["type"] == "section":
            if "text" in b:
                assert 1 <= len(b["text"]["text"]) <= 3000
            if "fields" in b:
                assert len(b["fields"]) <= 10 and all(len(f["text"]) <= 2000 for f in b["fields"])
        Block.parse(b).validate_json()  # slack_sdk's own checks


def risk_numbers(msgs):
    out = []
    for m in msgs:
        for b in m["blocks"]:
            if b["block_id"].startswith("risks-"):
                out += [int(n) for n in re.findall(r"^• #(\d+) ", b["text"]["text"], re.M)]
    return out


@pytest.mark.parametrize("report_url", [None, "https://prhub.example.com/reports/x/2024-W24"])
def test_br03_hostile_week_within_limits(report_url):
    d = hostile_digest()
    msgs = card_to_messages(digest_cards(d, report_url=report_url))
    assert len(msgs) >= 2
    for m in msgs:
        check_message(m)
    header = msgs[0]["blocks"][0]["text"]["text"]
    assert len(header) == 143 and header.endswith(" weekly PR…")  # Slack's 150, cut back to a whole word
    assert risk_numbers(msgs) == risky_in_rank_order(d)[:8]  # the top risks; all 80 are in the report
    assert len(msgs) <= 4
    assert "8 of 80 shown" in "\n".join(b["text"]["text"] for m in msgs for b in m["blocks"] if b["block_id"].startswith("risks-"))


def test_one_monster_title_cannot_break_a_message():
    d = hostile_digest(total=3, risky=3)
    p = d.prs[0].model_copy(update={"title": "&<>" * 5000})
    d = d.model_copy(update={"prs": (p, *d.prs[1:])})
    card = Card(header="x" * 400, blocks=(PRList(role="risks", items=tuple(
        __import__("chatbot.cards", fromlist=["PRItem"]).PRItem(number=i, url="https://e.example/p", title="<&>" * 3000,
                                                                detail=(Untrusted(text="&" * 5000),)) for i in range(1, 40))),))
    msgs = card_to_messages([card]) + card_to_messages(digest_cards(d))
    for m in msgs:
        check_message(m)
    assert risk_numbers(card_to_messages([card])) == list(range(1, 40))


def test_real_week_payloads(vllm_rules):
    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs

    for lang in ("en", "zh"):
        d = written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules, lang=lang)
        msgs = card_to_messages(digest_cards(d, report_url="https://prhub.example.com/r"))
        for m in msgs:
            check_message(m)
        ranked = [p.number for p in sorted((p for p in d.prs if p.risk_tags), key=lambda p: (-p.importance, p.number))]
        assert len(ranked) == 33 and risk_numbers(msgs) == ranked[:8]


def _linked(block_text):
    return [int(n) for n in re.findall(r"/pull/(\d+)\|", block_text)]


def test_a_300_pr_week_fits_in_four_messages(vllm_rules):
    """W20's 217 real PRs plus the first 83 of W19 moved a week later: 300 merged PRs."""
    from datetime import timedelta

    from tests.digests import written_digest
    from chatbot.weeks import IsoWeek
    from tests.conftest import week_prs

    w19 = sorted(week_prs("2026-W19"), key=lambda p: p.number)[:83]
    prs = week_prs("2026-W20") + [p.model_copy(update={"merged_at": p.merged_at + timedelta(days=7)}) for p in w19]
    for lang in ("en", "zh"):
        d = written_digest(prs, repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules, lang=lang)
        assert d.total_prs == 300
        risky = sum(1 for p in d.prs if p.risk_tags)
        msgs = card_to_messages(digest_cards(d, report_url="https://prhub.example.com/r"))
        assert len(msgs) == 3
        for m in msgs:
            check_message(m)
        shown = {"en": f"8 of {risky} shown; all in the full report", "zh": f"已显示 {risky} 个中的 8 个，全部见完整报告"}[lang]
        assert risky == 50 and shown in json.dumps(msgs, ensure_ascii=False)
        highlights = [n for m in msgs for b in m["blocks"] if b["block_id"].startswith("highlights-") for n in _linked(b["text"]["text"])]
        key = [n for m in msgs for b in m["blocks"] if b["block_id"].startswith("key_prs-") for n in _linked(b["text"]["text"])]
        assert highlights and key and not set(highlights) & set(key)  # no PR twice
        assert len(set(highlights)) + len(key) >= len(d.key_prs)  # the key PRs are all shown, once


def test_hostile_titles_never_live():
    msgs = card_to_messages(digest_cards(hostile_digest()))
    blob = "\n".join(b["text"]["text"] for m in msgs for b in m["blocks"] if "text" in b and b["type"] == "section")
    assert "<!channel>" not in blob and "<!here>" not in blob and "<@U_ALICE>" not in blob and "<https://evil" not in blob
    assert all(h[:10] for h in HOSTILE)


def test_an_image_block_is_a_slack_file_image_before_the_buttons():
    from chatbot.cards import Actions, Button, Image, with_image
    from chatbot.render.text import card_to_text

    card = Card(header="h", blocks=(Section(lines=((Text(text="x"),),)),
                                    Actions(buttons=(Button(label="Full report", url="https://example.com/r"),))))
    card = with_image(card, Image(key="F0123ABC", alt="Label distribution (PRs)"))
    blocks = card_to_blocks(card)
    assert [b["type"] for b in blocks] == ["header", "section", "image", "actions"]
    image = blocks[2]
    assert image["slack_file"] == {"id": "F0123ABC"} and image["alt_text"] == "Label distribution (PRs)"
    parsed = Block.parse(image)
    assert parsed is not None and parsed.to_dict()["slack_file"] == {"id": "F0123ABC"}
    assert "[Label distribution (PRs)]" in card_to_text(card)


def test_the_renderer_translates_a_fitted_card_and_cuts_nothing_itself():
    card = Card(header="x" * 400, blocks=(Section(lines=((Text(text="y"),),)),))
    assert card_to_blocks(card)[0]["text"]["text"] == "x" * 400  # as given: fitting is not the renderer's
    (msg,) = card_to_messages([card])
    assert msg["blocks"][0]["text"]["text"] == "x" * 149 + "…" and msg["text"] == "x" * 400
