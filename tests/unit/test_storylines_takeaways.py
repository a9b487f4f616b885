"""Storylines on the threads W20, series titles, topics from the rules, and the takeaways."""

from __future__ import annotations

import re

import pytest

from tests.digests import written_digest
from chatbot.render.markdown import render_markdown
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
        ("topic:deepseek-v4", (41263, 41812, 42236, 42258, 42604)),  # what shipped first: #41946 is a [Bugfix]
        ("topic:spec-methods", (39949, 39487, 41826, 42536, 40269)),
        ("topic:model-runner-v2", (41035, 39337, 41775, 42673, 42710)),
        ("models", (41254, 42705, 41736, 42244, 42498)),  # not the fused mhc kernel #41536 (kernels)
        ("topic:moe-refactor", (42334, 40735, 41046, 41299, 41055)),
        ("frontend", (42370, 42267, 42412, 42341, 42368)),
        ("topic:dependencies", (41711, 42150)),  # kept beside the six ranked ones
    ]
    cited = [n for t in w20.themes for n in t.prs]
    assert len(cited) == len(set(cited))  # no PR in two storylines
    assert 42434 not in cited  # a revert is not a highlight
    # DeepGEMM's build PRs (#41516, #42429) are their own topic, no longer a "DeepSeek" storyline beside the
    # stable-ABI kernel migration #42339; with two PRs that topic is too small to be a storyline
    assert not {41516, 42429, 42339} & set(cited)
    assert w20.themes[0].summary == ("10 PRs: Fuse norm and router for low latency scenario (#41263), Implement flash "
                                     "sparse mla with triton kernels (#41812), Improved dequant gather K cache kernel (#42236).")


def test_key_prs_with_a_description_show_a_gist_that_is_not_their_title(w20):
    bodies = {p.number: p.body for p in thread_prs()}

    def prose(body: str) -> bool:  # a sentence of six words or more outside tables, headings and code
        body = re.sub(r"```.*?```", "", body, flags=re.S)
        return any(len(line.split()) >= 6 for line in body.splitlines() if not line.lstrip().startswith(("|", "#")))

    described = [p for p in w20.key_prs if prose(bodies[p.number])]
    not_title = [p for p in described if p.gist_source == "description"]
    assert (len(w20.key_prs), len(described), len(not_title)) == (24, 15, 15)  # 100% (#41263, #41778: tables only; #42370: one short line, shown)
    assert len(not_title) >= 0.9 * len(described)
    assert {41263, 41778, 42370} == {p.number for p in w20.key_prs if bodies[p.number].strip() and not prose(bodies[p.number])}


def test_the_weeks_bot_findings_are_one_observation_quoting_the_three_most_severe(w20):
    items = [r for r in w20.risks if r.kind == "bot-review-flag"]
    assert len(items) == 1  # was 21 numbered items; 2 findings on test files (#41299, #41252) are no risk
    (item,) = items
    assert len(item.prs) == 19 and item.prs[:3] == (42434, 35859, 42370)  # critical first, then high
    assert item.detail == (
        "Review bots raised 19 high-severity findings on 19 merged PRs, each a live bug unless it was addressed; "
        "the most severe: #42434 (critical, layer.py:150) “The revert removes the assignment of moe_layer_id to "
        "FusedMoE instances, but the restored logic in…”; #35859 (critical, quark_nvfp4.py); #42370 (high, "
        "factories.py) “The imports for OpenAIServingTranscription and…”.")
    assert len(w20.risks) <= 8
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
    assert bullets == (  # only the recommendation names PRs (the highlights and observations do)
        "Shipped: DeepSeek-V4 (10 PRs), speculative decoding (7 PRs), Model Runner V2 (10 PRs).",  # as their sentences count
        "Watch: revert (1 PR); follow-up fix (5 PRs).",
        "Do: Open a tracking issue to re-land what the PR of risk 1 reverted, with a test that reproduces the "
        "failure, so the work is not lost.",
    )
    assert headline(w20) == bullets[0]


def test_a_storyline_is_counted_alike_in_its_sentence_the_takeaways_and_the_summary(w20):
    md = render_markdown(w20)
    for th in w20.themes:
        assert th.summary.startswith(f"{th.total} PRs: ") and th.total >= len(th.prs)
        assert f"{th.name} ({th.total})" in md  # the summary's main directions
    assert takeaways(w20)[0].startswith(f"Shipped: {w20.themes[0].name} ({w20.themes[0].total} PRs)")


def test_a_terse_cited_title_is_followed_by_its_gist():
    # W27's most important PR, "[Spec Decode] DSpark" (#46995), was "DSpark (#46995)" in its storyline's
    # sentence and said nowhere what it does (its key-PR row is left out as told in the highlights)
    d = written_digest(thread_prs("2026-W27"), repo="vllm-project/vllm", week=IsoWeek(2026, 27),
                       rules=shipped_rules("vllm"))
    spec = next(t for t in d.themes if 46995 in t.prs)
    assert spec.summary.startswith("13 PRs: DSpark: Adds support for DSpark speculative decoding, using both… (#46995), "
                                   "Implement block verification for rejection sampling (#46781)")


@pytest.mark.parametrize("title,terse", [("[Spec Decode] DSpark", True), ("Xqa decode", True),
                                         ("Xqa decode kernels", False)], ids=["1-word", "2-words", "3-words"])
def test_terse_title_boundary(title, terse):
    from chatbot.storylines import TERSE_TITLE_WORDS, _lead_what
    assert TERSE_TITLE_WORDS == 3
    p = next(a for a in written_digest(thread_prs("2026-W27"), repo="vllm-project/vllm", week=IsoWeek(2026, 27),
                                       rules=shipped_rules("vllm")).prs if a.number == 46995)
    p = p.model_copy(update={"title": title})
    what = _lead_what(p, {46995: ("Adds the thing.", ())})
    assert what == (f"{title.split('] ')[-1]}: Adds the thing" if terse else title)
