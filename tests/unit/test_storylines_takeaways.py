"""Storylines on the threads W20, series titles, topics from the rules, and the takeaways."""

from __future__ import annotations

import pytest

from tests.digests import written_digest
from chatbot.rules import parse_rules, shipped_rules
from chatbot.storylines import series_stem
from chatbot.takeaways import headline, takeaways
from chatbot.weeks import IsoWeek
from tests.conftest import thread_prs, week_prs


@pytest.fixture(scope="module")
def w20():
    return written_digest(thread_prs(), repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=shipped_rules("vllm"))


def test_storylines_of_the_threads_week(w20):
    assert [(t.module, t.prs) for t in w20.themes] == [
        ("topic:spec-methods", (39949, 41035, 39487, 40269)),
        ("topic:deepseek-v4", (41946, 41263, 42258, 42810)),
        ("models", (41254, 42280, 42705, 42333)),
        ("topic:deepseek", (42339, 40392, 41778, 41986)),
    ]
    cited = [n for t in w20.themes for n in t.prs]
    assert len(cited) == len(set(cited))  # no PR in two storylines
    assert 42434 not in cited  # a revert is not a highlight
    assert w20.themes[0].summary == ("9 PRs: #39949 Support hybrid attention models in extract_hidden_states; "
                                     "#41035 Per-position acceptance rates were recently added in this PR, adding support for both…")


def test_key_prs_with_a_description_show_a_gist_that_is_not_their_title(w20):
    bodies = {p.number: p.body for p in thread_prs()}
    described = [p for p in w20.key_prs if bodies[p.number].strip()]
    not_title = [p for p in described if p.gist_source == "description"]
    assert (len(w20.key_prs), len(described), len(not_title)) == (24, 17, 16)  # 94%; #42370 says only "Following #..."
    assert len(not_title) >= 0.9 * len(described)


def test_every_finding_is_a_risk_item_with_quote_and_path(w20):
    items = [r for r in w20.risks if r.kind == "bot-review-flag"]
    assert len(items) == 21
    assert any(r.prs == (41429,) and "vllm/v1/sample/sampler.py:188" in r.detail
               and "“Hardcoding pin_memory=True can cause issues on WSL environments.”" in r.detail for r in items)
    docs_only = {p.number for p in w20.prs if p.modules == ("docs",)}
    top = [n for r in w20.risks[:8] for n in r.prs[:8]]
    assert not docs_only & set(top)


def test_docs_only_prs_get_no_revert_security_or_core_advice(vllm_rules):
    d = written_digest(week_prs("2026-W19"), repo="vllm-project/vllm", week=IsoWeek(2026, 19), rules=vllm_rules)
    by = {p.number: p for p in d.prs}
    assert by[41618].risk_tags == () and by[38920].risk_tags == ()  # mkdocs.yaml revert; docs/usage/security.md
    assert all("41618" not in r.text and "38920" not in r.text for r in d.recommendations)


def test_a_later_weeks_revert_is_known_when_the_input_holds_it(vllm_rules):
    d = written_digest(week_prs("2026-W19") + week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek(2026, 19),
                     rules=vllm_rules)
    assert {p.number: p.reverted_by for p in d.prs if p.reverted_by} == {39917: 42434}


def test_series_stems_and_topics_from_the_rules_file():
    assert series_stem("[Perf][1/n] Eliminate various GPU<->CPU syncs") == "eliminate various gpu"
    assert series_stem("[5/n] Migrate CUTLASS MLA to torch stable ABI (continued)") == "migrate cutlass mla"
    assert series_stem("[Perf] Eliminate various GPU<->CPU syncs") is None
    rules = parse_rules("topics:\n  - {id: widgets, name: Widgets, aliases: [wdg]}\n", "<test>")
    assert rules.topics[0].aliases == ("wdg",)


def test_takeaways_lead_and_the_headline_is_the_first(w20):
    bullets = takeaways(w20)
    assert bullets == (
        "Shipped: speculative decoding (#39949), DeepSeek-V4 (#41946), model support (#41254).",
        "Watch: revert #42434; security-sensitive change #42594.",
        "Do: Track the reverted work #42434: open a tracking issue for the re-land with a test that reproduces the failure.",
    )
    assert headline(w20) == bullets[0]
