"""Extractive gists: the description's purpose in its own words, measured results quoted exactly."""

from __future__ import annotations

import re

import pytest

from chatbot.gist import GIST_MAX, extract_gist, measured_results, title_without_tags
from tests.conftest import thread_prs

VLLM_TEMPLATE = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose

## Test Plan

## Test Result

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
</details>
"""


@pytest.fixture(scope="module")
def w20():
    return {p.number: p for p in thread_prs()}


def test_purpose_section_in_the_prs_own_words(w20):
    g = extract_gist(w20[42052].title, w20[42052].body)
    assert g.source == "description"
    assert g.text == "Add a new prompt_text field to ChatCompletionResponse and ChatCompletionStreamResponse."


def test_fixes_and_follow_up_lines_are_skipped(w20):
    assert extract_gist(w20[42217].title, w20[42217].body).text.startswith("Fix Gemma4 image encoder crashes when")
    assert extract_gist(w20[42292].title, w20[42292].body).text.startswith("As a widely used tool parser, Qwen3Coder")
    # a description that only says "Following #41907" has no purpose of its own: the title speaks
    g = extract_gist(w20[42274].title, w20[42274].body)
    assert g.text == "Consolidate Speech to Text tests"


def test_shell_commands_are_not_a_purpose(w20):
    g = extract_gist(w20[41761].title, w20[41761].body)
    assert g.source == "title" and g.text == "Bug fix: logprob dtype int64/int32 issue"


def test_a_sentence_ending_in_a_colon_keeps_what_follows_and_long_text_is_cut_at_a_word(w20):
    g = extract_gist(w20[42201].title, w20[42201].body)
    assert g.text.startswith("silu_mul_per_token_group_quant_fp8_colmajor computes row/column offsets using int32 arithmetic: With large")
    assert GIST_MAX - 10 <= len(g.text) <= GIST_MAX and g.text.endswith("…") and "  " not in g.text


def test_pr_links_become_numbers_and_e_g_does_not_end_a_sentence(w20):
    assert extract_gist(w20[41429].title, w20[41429].body).text.startswith("Fix first batch of unnecessary gpu/cpu syncs, found via #40561")
    assert "(e.g. \"modelopt_fp4\"" in extract_gist(w20[42181].title, w20[42181].body).text


def test_measured_results_are_quoted_exactly(w20):
    assert extract_gist(w20[40408].title, w20[40408].body).results == ("28.9% E2E latency improvement",)
    assert extract_gist(w20[42460].title, w20[42460].body).results == ("So we saved 94% of memory allocation!",)
    assert measured_results("GEMM-RS gives 30%+ prefill E2E on SM100, and 1.2x–2.2x lower decode latency.") == (
        "GEMM-RS gives 30%+ prefill E2E on SM100", "1.2x–2.2x lower decode latency")
    assert extract_gist(w20[42098].title, w20[42098].body).results == ("~8% geomean speedup vs baseline",)
    assert measured_results("| throughput | +12% |\n```\n+4.84% output throughput\n```") == ()  # tables, code
    assert measured_results("Runs on MI355x and 8x H100.") == ()  # model names and counts are not results


def test_every_gist_is_short_and_made_of_the_prs_words(w20):
    described = 0
    for pr in w20.values():
        g = extract_gist(pr.title, pr.body)
        assert 0 < len(g.text) <= GIST_MAX
        for r in g.results:
            assert r in f"{pr.title}\n{pr.body}"
        words = set(re.findall(r"[A-Za-z]{4,}", f"{pr.title} {pr.body}"))
        assert set(re.findall(r"[A-Za-z]{4,}", g.text)) <= words, pr.number
        described += g.source == "description"
    assert described == 154  # of 165 descriptions; the rest hold only templates, links or commands


def test_no_description_or_only_the_template_gives_the_title_without_tags():
    assert extract_gist("[CI/Build] Reduce LoRA model tests.", "").text == "Reduce LoRA model tests."
    g = extract_gist("[ROCm][Bugfix]: dynamically align BLOCK_DMODEL (#41119)", VLLM_TEMPLATE)
    assert (g.source, g.text) == ("title", "Dynamically align BLOCK_DMODEL")
    assert title_without_tags("[WIP]") == "[WIP]"


def test_images_code_and_markup_are_left_out():
    body = "## Summary\n![shot](https://x/y.png)\n```python\nx = 1\n```\n**Speeds up** the [sampler](https://x/z) by caching `top_k`.\n"
    assert extract_gist("t", body).text == "Speeds up the sampler by caching top_k."


def test_a_benchmark_table_under_the_test_plan_is_not_a_purpose(w20):
    # "## Purpose" is empty; "### performance" under "## Test Plan" holds a setup line and a table
    g = extract_gist(w20[41263].title, w20[41263].body)
    assert (g.source, g.text) == ("title", "Fuse norm and router for low latency scenario")


@pytest.fixture(scope="module")
def w27():
    return {p.number: p for p in thread_prs("2026-W27")}


def test_a_list_after_an_unended_line_starts_a_sentence_and_withdrawn_items_are_left_out(w27, w20):
    # #42890's purpose: "... before this PR" + "- [reverted] Remove the padding ...": read as one sentence,
    # the gist said the PR reverted something (its reverted_by is empty; the item was withdrawn)
    g = extract_gist(w27[42890].title, w27[42890].body)
    assert g.text == "NVFP4 kv does not support --kv-cache-dtype-skip-layers sliding_window before this PR."
    # #40119: "... with Mx8 tiles and K- unroll-by-4" + "- Add RVV ISA dispatch ...": two items, not one
    assert extract_gist(w20[40119].title, w20[40119].body).text.endswith("with Mx8 tiles and K- unroll-by-4.")


@pytest.mark.parametrize("body,want", [
    ("Makes the loader faster for large models\n- [removed] the old cache\n- Adds a new index for lookups",
     "Makes the loader faster for large models. Adds a new index for lookups"),
    ("Makes the loader faster for large models\n- ~~the old cache~~ the new cache", "Makes the loader faster for "
     "large models. the new cache"),
    ("Makes the loader faster, for large models:\n- Adds a new index for lookups",  # a colon keeps its list
     "Makes the loader faster, for large models: Adds a new index for lookups"),
    ("Makes the loader faster for large models\n- [ROCm] Adds a new index", "Makes the loader faster for large "
     "models. [ROCm] Adds a new index"),  # a tag is no withdrawal
], ids=["removed-item", "struck-text", "colon-keeps-list", "tag-is-kept"])
def test_withdrawn_list_items(body, want):
    assert extract_gist("Speed up loading", body).text == want


def test_a_short_first_sentence_takes_the_next_one_cut_at_a_word(w27, w20):
    # "Fixes #45736." alone said nothing of what the PR does
    g = extract_gist(w27[47062].title, w27[47062].body).text
    assert g.startswith("Fixes #45736. When GPT-OSS Harmony output ends in a non-terminal parser state")
    assert g.endswith("…") and len(g) <= GIST_MAX
    assert extract_gist(w20[41668].title, w20[41668].body).text.startswith(
        "Follow-up to #41416. Mirror the cu130 wheel build switch onto cu129")


@pytest.mark.parametrize("first,goes_on", [(79, True), (80, False)], ids=["79-chars-goes-on", "80-chars-stops"])
def test_short_gist_boundary(first, goes_on):
    from chatbot.gist import SHORT_GIST, fit_sentences
    assert SHORT_GIST == 80
    one = "A" + "b" * (first - 2) + "."
    two = "Then " + "word " * 60 + "end."
    out = fit_sentences(f"{one} {two}", go_on=True)
    assert out.startswith(one) and (out != one) == goes_on
    assert fit_sentences(f"{one} {two}") == one  # a review finding's quote keeps its whole sentence


def test_markdown_escapes_read_as_the_character(w27):
    # W27 #47143's list item "- \>1.5 years old" showed its backslash in every plain-text answer
    g = extract_gist(w27[47143].title, w27[47143].body).text
    assert g.startswith(">1.5 years old; See almost no usage in vLLM") and "\\" not in g
    assert extract_gist("t", "Handles a\\_b and 3 \\* 4 in the parser correctly.").text == \
        "Handles a_b and 3 * 4 in the parser correctly."


@pytest.mark.parametrize("body,want", [
    ("Make the new cache opt-in. The default stays the old one for every model we ship today.",
     "Make the new cache opt-in. The default stays the old one for every model we ship today."),
    ("Log in. This fixes the login flow for users behind the proxy of the cluster.",
     "Log in. This fixes the login flow for users behind the proxy of the cluster."),
    ("Clamp when x<y and y>z so the scheduler never sees a negative budget in practice.",
     "Clamp when x<y and y>z so the scheduler never sees a negative budget in practice."),
    ("Return a `std::vector<int>` of outputs instead of copying each tensor in the loop.",
     "Return a std::vector<int> of outputs instead of copying each tensor in the loop."),
    ("Fix `__init__.py` imports and `*args` handling in the loader for every caller.",
     "Fix __init__.py imports and *args handling in the loader for every caller."),
    ("Details are in the design doc, see https://docs.example/design. It covers the new cache.",
     "Details are in the design doc. It covers the new cache."),
    ("Drops <b>bold</b> markup and a <br/> break from the text shown in the digest.",
     "Drops bold markup and a break from the text shown in the digest."),
], ids=["opt-in", "log-in", "lt-gt-text", "template-in-code", "dunder-in-code", "dangling-see", "html-tags"])
def test_inline_text_keeps_the_words_as_written(body, want):
    # red-team finds: "opt-in." became "opt-.", "x<y and y>z" lost "<y and y>", `__init__.py` lost its dunders
    assert extract_gist("t", body).text == want
