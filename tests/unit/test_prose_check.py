"""The validator's named checks, one group each, on the shipped real week 2026-W20 (217 PRs).

Each test pins a true sentence that passes and the wrong one it must catch; the numbers come from
the week's records (``prhub/data/2026-W20.json``).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatbot.prose_check import CHECKS, Claim, Facts, check_claim
from chatbot.prose_check.checks import matches
from chatbot.prose_check.tokens import CJK_CHAR, clauses, dates, numbers, versions
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.conftest import thread_prs
from tests.digests import written_digest


@pytest.fixture(scope="module")
def w20():
    prs = thread_prs()
    out = {}
    for lang in ("en", "zh"):
        d = written_digest(prs, repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=shipped_rules("vllm"), lang=lang)
        out[lang] = Facts.build(d, prs)
    return out


def faults(facts, text, *, prs=(), ids=None, slot=None, only=None):
    return check_claim(Claim(text, tuple(prs), None if ids is None else tuple(ids)), facts, slot,
                       checks=[only] if only else None)


# --- tokens --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("v1路径占比超70%", [("70%", 70.0, "%", "percent", True)]),
    ("本周共合并246个PR", [("246", 246.0, "", "prs", False)]),
    ("净减约2,750行代码", [("2,750", 2750.0, "", "lines", True)]),
    ("+6.4k/-94 行", [("+6.4k", 6400.0, "k", "thousands", False), ("-94", 94.0, "", "lines", False)]),
    ("提速1.2x–2.2x", [("1.2x", 1.2, "x", "times", False), ("2.2x", 2.2, "x", "times", False)]),
    ("在8卡B300上达到350+ TPS", [("8", 8.0, "", "", False), ("350", 350.0, "", "", True)]),
    ("Qwen3-8B、GLM5.2、W8A8 与 MI300", []),
    ("2026-W20 的 #41946", []),
])
def test_numbers_are_found_next_to_chinese_and_not_inside_identifiers(text, expected):
    assert [(n.text, n.value, n.suffix, n.unit, n.approx) for n in numbers(text)] == expected


def test_versions_dates_and_clauses_are_one_token_each():
    assert versions("FlashInfer 0.6.13（#46683）与 huggingface-hub v1.10.2") == ["0.6.13", "1.10.2"]
    assert numbers("FlashInfer 0.6.13") == []  # not the number 0.6
    assert [(x.month, x.day) for x in dates("第 20 周（05.11 - 05-17），5月12日合并")] == [(5, 11), (5, 17), (5, 12)]
    assert clauses("共 1,821 行，其中 #1 最多。") == [(0, 9), (10, 18)]


_CJK_TEXT = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(before=_CJK_TEXT, after=_CJK_TEXT, value=st.integers(min_value=0, max_value=10**7),
       frac=st.sampled_from(["", ".5", ".25"]), suffix=st.sampled_from(["", "%", "x", "k", "倍", "％"]),
       commas=st.booleans())
def test_no_number_next_to_a_cjk_character_escapes_extraction(before, after, value, frac, suffix, commas):
    written = (f"{value:,}" if commas else str(value)) + frac + suffix
    found = numbers(before + written + after)
    assert len(found) == 1
    scale = 1000 if suffix == "k" else 1
    assert found[0].value == float(str(value) + frac) * scale
    assert CJK_CHAR.match(before[-1]) and CJK_CHAR.match(after[0])


# --- one test group per named check ---------------------------------------------------------------

def test_every_check_is_registered_once_with_a_docstring():
    assert list(CHECKS) == ["length", "markup", "known_prs", "slot_prs", "numbers", "versions", "dates", "relations",
                            "people", "direction", "foreign_identifiers", "wrong_entity", "language"]
    assert all(fn.__doc__ for fn in CHECKS.values())


def test_length(w20):
    assert faults(w20["en"], "x" * 400, only="length") == []
    assert faults(w20["en"], "x" * 401, only="length") == ["is longer than 400 characters"]


@pytest.mark.parametrize("text", ["see @hmellor", "see ＠hmellor", "see <!channel>", "see example.com now",
                                  "see https://x.io", "**bold**", "see www.vllm.ai"])
def test_markup_mentions_and_bare_domains(w20, text):
    assert faults(w20["en"], text, only="markup") == ["contains mention or markup syntax (write plain text)"]


def test_markup_leaves_versions_and_module_paths(w20):
    assert faults(w20["en"], "vllm.v1.worker moved to 0.6.13.", only="markup") == []


def test_known_prs(w20):
    assert faults(w20["en"], "#41946 adds aiter mhc support.", only="known_prs") == []
    assert faults(w20["en"], "#99999 adds it.", only="known_prs") == ["cites PRs that are not in this week: #99999"]


def test_slot_prs_a_storyline_sentence_names_its_own_prs(w20):
    f = w20["zh"]
    assert faults(f, "#41263 与 #41812 领衔。", slot="storylines.topic:deepseek-v4", only="slot_prs") == []
    assert faults(f, "#39949 领衔。", slot="storylines.topic:deepseek-v4", only="slot_prs") == [
        "names PRs that are not in storylines.topic:deepseek-v4: #39949"]
    assert faults(f, "#42434 回滚了 #39917。", slot="prs.42434", only="slot_prs") == []


def test_numbers_bind_to_the_subject_next_to_them(w20):
    f = w20["zh"]
    assert faults(f, "本周共合并 217 个 PR，其中重点 PR 24 个。", only="numbers") == []
    assert faults(f, "bugfix（77）与 ci/build（51）最多。", only="numbers") == []
    assert faults(f, "bugfix（51）最多。", only="numbers") == ["states 51 for bugfix, which no cited fact has"]
    assert faults(f, "本周只合并了 24 个 PR。", only="numbers") == ["states 24 prs for 合并, which no cited fact has"]
    assert faults(f, "v1 占比约 35%。", only="numbers") == []  # 75 of 217 = 34.6%
    assert faults(f, "v1 占比超 70%。", only="numbers") == ["states 70% for v1, which no cited fact has"]
    assert faults(f, "yewentao256（14 个 PR）最活跃。", only="numbers") == []
    assert faults(f, "yewentao256（7 个 PR）最活跃。", only="numbers") == [
        "states 7 prs for yewentao256, which no cited fact has"]


def test_numbers_of_a_pr_need_the_pr_cited(w20):
    f = w20["en"]
    assert faults(f, "#41946 changed 12 files, +1,920/-1,033 lines.", only="numbers") == []
    assert faults(f, "#41946 adds about 1.9k lines.", only="numbers") == []  # +1,920
    assert faults(f, "#41946 changed about 2.9k lines.", only="numbers") == [  # 1,920 + 1,033 is not a fact
        "states 2.9k lines for #41946, which no cited fact has"]
    assert faults(f, "#41946 changed 22 files.", only="numbers") == ["states 22 files for #41946, which no cited fact has"]
    assert faults(f, "#40408 gives a 28.9% E2E latency improvement.", only="numbers") == []
    assert faults(f, "#40408 gives a 38.9% E2E latency improvement.", only="numbers") == [
        "states 38.9% for #40408, which no cited fact has"]
    # ids given: only what they name counts
    assert faults(f, "217 PRs were merged.", ids=["labels.bugfix"], only="numbers") == [
        "states 217 prs for merged, which no cited fact has"]
    assert faults(f, "217 PRs were merged.", ids=["week.merged_prs"], only="numbers") == []


def test_rounding_rule():
    (n,) = numbers("6.4k")
    assert matches(n, 6351) and matches(n, 6449) and not matches(n, 6451)
    (n,) = numbers("35%")
    assert matches(n, 34.6) and not matches(n, 34.4)
    (n,) = numbers("约2,750行")
    assert matches(n, 2750) and matches(n, 2800) and not matches(n, 2900)


def test_versions(w20):
    f = w20["en"]
    p = next(p for p in f.prs.values() if p.versions)
    v = sorted(p.versions)[0]
    assert faults(f, f"#{p.number} moves to {v}.", only="versions") == []
    assert faults(f, f"#{p.number} moves to {v}.99.", only="versions") == [f"states versions that no cited PR has: {v}.99"]


def test_dates_inside_the_inclusive_window(w20):
    f = w20["zh"]
    assert faults(f, "第 20 周（05-11 – 05-17）共合并 217 个 PR。", only="dates") == []
    assert faults(f, "截至 05-18 的一周。", only="dates") == ["states 05-18, outside the week 05-11 – 05-17"]


def test_relations_must_exist_in_the_facts(w20):
    f = w20["zh"]
    assert faults(f, "#42434 回滚了 #39917。", only="relations") == []
    assert faults(f, "#39917 被 #42434 回滚。", only="relations") == []
    assert faults(f, "#39568 reverts #39949.", only="relations") == ["says #39568 reverts #39949, which the facts do not show"]
    assert faults(f, "#42706 修复了 #39805 的问题。", only="relations") == []
    assert faults(f, "#42706 修复了 #41946 的问题。", only="relations") == [
        "says #42706 fixes #41946, which the facts do not show"]


def test_people_are_authors_of_the_prs_they_are_named_with(w20):
    f = w20["en"]
    assert faults(f, "Michael Goin's #39949 supports hybrid attention.", only="people") == []
    assert faults(f, "Nick Hill's #39949 supports hybrid attention.", only="people") == [
        "names Nick Hill as the person behind #39949, who is not its author or co-author"]


def test_direction_does_not_turn_the_pr_around(w20):
    f = w20["zh"]
    assert faults(f, "#39949 支持混合注意力模型。", only="direction") == []
    assert faults(f, "#39949 移除了混合注意力模型的支持。", only="direction") == []  # both words: not decided
    assert faults(f, "#39949 移除了混合注意力模型。", only="direction") == [
        "says #39949 removes or turns off what its title adds or turns on"]
    assert faults(f, "#40408 让 E2E 延迟指标提升。", only="direction") == []
    assert faults(f, "#40408 让 E2E 性能下降。", only="direction") == [
        "says #40408 made things worse, but its stated result is an improvement"]


def test_foreign_identifiers(w20):
    f = w20["en"]
    assert faults(f, "#41946 adds aiter mhc support for DSV4.", only="foreign_identifiers") == []
    out = faults(f, "#41946 consolidates GPTQ.", only="foreign_identifiers")
    assert out and out[0].startswith("says GPTQ of #41946, but GPTQ is in the title of")


@pytest.mark.parametrize("lang, text, wrong", [
    ("zh", "#41946 为 ROCm 增加 aiter mhc 支持。", None),
    ("zh", "#39949 为 ROCm 增加混合注意力支持。", "ROCm of #39949"),
    ("zh", "XPU 上的 #39949 支持混合注意力。", "XPU of #39949"),
    ("en", "#42128 fixes Gemma4 tool-parser streaming.", None),
    ("en", "#39949 brings hybrid attention to Gemma4.", "Gemma4 of #39949"),
    # the clause's PRs: one of them being ROCm's is enough; a clause without a PR reads the sentence's
    ("en", "On ROCm, #41946 adds aiter mhc support and #39949 supports hybrid attention.", None),
    ("zh", "修复了 Kimi 的解析问题：#39949。", "Kimi of #39949"),
    # not names: a plain word opening an English sentence, lower case, a name no title of the week writes
    ("en", "Speculative decoding: #39949 supports hybrid attention models.", None),
    ("en", "#39949 touches the build and the tpu runner.", None),
    ("en", "#39949 also helps Medusa drafters.", None),
])
def test_wrong_entity_a_platform_model_or_module_name_must_be_the_prs(w20, lang, text, wrong):
    """A name the rules give a label, module or topic, and other titles of the week write, must be one
    of the cited PR's (its labels, modules, storyline, or its own words): #41946 is [ROCm], #39949 is
    a spec-decode PR, #42128 fixes the Gemma4ToolParser."""
    expected = [f"says {wrong}, which is none of its labels, modules or topics"] if wrong else []
    assert faults(w20[lang], text, only="wrong_entity") == expected


def test_language(w20):
    assert faults(w20["zh"], "#41946 为 ROCm 增加 aiter mhc 支持。", prs=[41946], only="language") == []
    assert faults(w20["zh"], "ROCm gained aiter mhc support in this week.", only="language") == [
        "is not written in Chinese (the digest's language)"]
    assert faults(w20["en"], "#41946 adds aiter mhc support.", only="language") == []
    assert faults(w20["en"], "#41946 增加了支持。", only="language") == ["is not written in English (the digest's language)"]


def test_the_writer_knows_the_display_names_and_co_authors_of_key_prs():
    """The writer has the digest only (no raw records): its fact sheet and facts carry each PR's
    author login, display name and co-authors (927e43b: logins only, so "Harry Mellor" on another
    PR passed and a true co-author was rejected). Real records of 2026-W27."""
    from chatbot.factsheet import fact_sheet, pr_entry

    d = written_digest(thread_prs("2026-W27"), repo="vllm-project/vllm", week=IsoWeek(2026, 27),
                       rules=shipped_rules("vllm"), lang="zh")
    full = fact_sheet(d)
    sheet = {p["number"]: p for p in full["key_prs"] + full["storyline_prs"]}
    assert 44589 in {p["number"] for p in full["storyline_prs"]}  # model support cites it; it is no key PR
    assert (sheet[45953]["author"], sheet[45953]["author_name"], sheet[45953]["co_authors"]) == (
        "ekagra-ranjan", "Ekagra Ranjan", ["Benjamin Chislett", "Nick Hill"])
    assert (sheet[44589]["author"], sheet[44589]["author_name"], sheet[44589]["co_authors"]) == ("hmellor", "Harry Mellor", [])
    # bots and the author's own trailer are no co-authors: 44785 has chengzheng345 and mergify[bot]
    assert sheet[44785]["co_authors"] == [] and sheet[46182]["co_authors"] == ["LucasWilkinson"]
    entry = pr_entry(d, next(p for p in d.key_prs if p.number == 46781))
    assert (entry["author"], entry["author_name"]) == ("TheEpicDolphin", "Giancarlo Delfin")

    f = Facts.build(d)
    assert faults(f, "Harry Mellor 的 #44589 移除了多余的 load_weights 方法。", only="people") == []
    assert faults(f, "Nick Hill 与 Ekagra Ranjan 合作的 #45953 让动态投机解码兼容完整 CUDA Graph。", only="people") == []
    assert faults(f, "Giancarlo Delfin 在 #46781 中实现了块验证。", only="people") == []
    assert faults(f, "Harry Mellor 的 #46182 搭建了 CuTeDSL 预热框架。", only="people") == [
        "names Harry Mellor as the person behind #46182, who is not its author or co-author"]
    assert faults(f, "Nick Hill 参与的 #46182 搭建了 CuTeDSL 预热框架。", only="people") == [
        "names Nick Hill as the person behind #46182, who is not its author or co-author"]
    assert faults(f, "Roberto L. Castro 与 LucasWilkinson 的 #46182 搭建了 CuTeDSL 预热框架。", only="people") == []
