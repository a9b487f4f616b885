"""Two rules of the writer's validator (chatbot/prose_check/checks.py) at their edges, on real W20.

- The PRs a sentence cites are the model's ``prs`` list as well as its ``#N`` and ``prs.<n>`` ids:
  kills the mutation that drops ``set(self.prs)`` from :meth:`Claim.cited_prs` (a PR the model lists
  but does not write as ``#N`` would then escape ``known_prs``).
- A number without decimals never states a 0-10 importance score, and "about" allows 5%: kills the
  mutation of ``_compatible``'s last line to ``return True`` (an invented one-digit "8" would pass as
  #41946's score 8.8 rounded) and ``0.05 * max(v, 1.0)`` -> ``max(v, 20.0)`` ("about 13 files" for 12).
- A zh sentence without CJK is wrong only when it has an English word; PR references and the week's
  logins are none (real W27, seed 001's risk and key-PR cells): kills ``(cjk == 0 and words)`` ->
  ``cjk == 0`` (the PR list is "not Chinese" again), dropping ``w not in f.people`` (hmellor is an
  English word) and ``cjk == 0 and words`` -> ``False`` ("#46995 leads" passes as Chinese).
- A person is bound to the PRs of their own list item (real W27; seed 001's authors with the PRs of
  its key-PR table): kills ``check_people`` on clauses alone (the comma in ``（12 PR，#47058）`` binds
  BugenZhao to #47058, and two swapped authors pass) and without the item level (one clause holds
  both rows, so a swap of their authors passes).
- An identifier is about the PRs of its own list item, or of the groups around it when its item names
  none (real W27, seed 001's 外部依赖升级 row): kills ``_item_groups`` -> ``_groups`` (FlashInfer
  "of #47551" again) and dropping its branch for items without PRs (``#38174：DSpark ...`` passes).
"""

from __future__ import annotations

import pytest

from chatbot.prose_check import Claim, Facts, check_claim
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.conftest import thread_prs
from tests.digests import written_digest


@pytest.fixture(scope="module")
def w20() -> Facts:
    prs = thread_prs("2026-W20")
    d = written_digest(prs, repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=shipped_rules("vllm"), lang="en")
    return Facts.build(d, prs)


@pytest.fixture(scope="module")
def w27() -> Facts:
    prs = thread_prs("2026-W27")
    d = written_digest(prs, repo="vllm-project/vllm", week=IsoWeek(2026, 27), rules=shipped_rules("vllm"), lang="zh")
    return Facts.build(d, prs)


@pytest.mark.parametrize("claim,cited", [
    (Claim("It adds aiter mhc support.", prs=(41946,)), {41946}),                 # the model's list alone
    (Claim("#41946 and #41263 lead.", prs=()), {41946, 41263}),                    # written only
    (Claim("It moved.", facts=("prs.42434.files",)), {42434}),                    # a fact id only
    (Claim("#41946 leads.", prs=(41263,), facts=("prs.42434",)), {41946, 41263, 42434}),
    (Claim("Nothing named.", prs=(), facts=("week.merged_prs",)), set()),
], ids=["list", "written", "fact-id", "all-three", "none"])
def test_cited_prs_include_the_models_list(claim, cited):
    assert claim.cited_prs() == cited


def test_a_listed_pr_outside_the_week_is_caught_without_a_hash(w20):
    assert check_claim(Claim("It adds aiter mhc support.", prs=(99999,)), w20, None, checks=["known_prs"]) == [
        "cites PRs that are not in this week: #99999"]


@pytest.mark.parametrize("text,faults", [
    # #41946 (W20): 12 files, +1,920/-1,033 lines, importance 8.8
    ("#41946 ranks 9 this week.", ["states 9 for #41946, which no cited fact has"]),   # invented one digit
    ("#41946 ranks 8 this week.", ["states 8 for #41946, which no cited fact has"]),
    ("#41946 scores 8.8 this week.", []),                                               # the score, as written
    ("#41946 changed 12 files.", []),
    ("#41946 changed about 12 files.", []),
    ("#41946 changed about 13 files.", ["states 13 files for #41946, which no cited fact has"]),  # 8% off
    ("#41946 changed 13 files.", ["states 13 files for #41946, which no cited fact has"]),
], ids=["9-is-score-rounded", "8", "8.8-score", "12-files", "about-12", "about-13", "13"])
def test_a_one_digit_number_is_no_score_and_about_is_five_percent(w20, text, faults):
    assert check_claim(Claim(text), w20, None, checks=["numbers"]) == faults


NOT_ZH = ["is not written in Chinese (the digest's language)"]


@pytest.mark.parametrize("text,faults", [
    ("#47058, #44589, #46995, #38174", []),                      # seed: 相关PR of 核心路径变更缺失测试
    ("相关PR：#47058, #44589, #46995, #38174", []),
    ("hmellor", []),                                              # seed: 作者 of #47058, a login of the week
    ("benchislett", NOT_ZH),                                      # the seed's login, not the week's (Benjamin Chislett)
    ("#46995 leads", NOT_ZH),
    ("Core path changes lack tests: #47058, #44589, #46995, #38174", NOT_ZH),
], ids=["pr-list", "pr-list-with-cjk", "week-login", "unknown-login", "one-word", "english-with-pr-list"])
def test_a_zh_sentence_without_cjk_is_wrong_only_with_english_words(w27, text, faults):
    assert check_claim(Claim(text), w27, None, checks=["language"]) == faults



def _not_behind(name: str, *prs: int) -> str:
    return f"names {name} as the person behind " + ", ".join(f"#{n}" for n in prs) + ", who is not its author or co-author"


@pytest.mark.parametrize("text,faults", [
    ("hmellor（12 PR，#47058）、BugenZhao（10，#47283）等活跃贡献。", []),
    ("hmellor（12 PR，#47283）、BugenZhao（10，#47058）等活跃贡献。",
     [_not_behind("hmellor", 47283), _not_behind("BugenZhao", 47058)]),
    ("#47283 Rust枚举域类型（BugenZhao）、#45890 Rust HTTPS/mTLS（tahsintunan）。", []),
    ("#47283 Rust枚举域类型（tahsintunan）、#45890 Rust HTTPS/mTLS（BugenZhao）。", [_not_behind("tahsintunan", 47283)]),
    ("hmellor主导的系列重构（#47058、#44589）将模型权重加载逻辑抽离。", []),
    ("BugenZhao主导的系列重构（#47058、#44589）将模型权重加载逻辑抽离。", [_not_behind("BugenZhao", 47058, 44589)]),
    ("hmellor、BugenZhao 分别提交了 #47058、#47283。", []),
    ("#46703 NCCL对称内存扩展（hmellor）：AllGather/ReduceScatter支持NVLS。", [_not_behind("hmellor", 46703)]),
], ids=["own-pr-after-comma", "swapped-in-brackets", "two-rows", "two-rows-swapped", "pr-group", "pr-group-wrong",
        "names-then-prs", "row-wrong"])
def test_a_person_is_bound_to_the_prs_of_their_own_item(w27, text, faults):
    assert check_claim(Claim(text), w27, None, checks=["people"]) == faults



@pytest.mark.parametrize("text,faults", [
    ("huggingface-hub升级（#47551）、FlashInfer 0.6.13（#46683）、DeepGEMM tag更新（#47304）可能引入兼容问题", []),
    ("huggingface-hub升级（#47551）、FlashInfer 0.6.13（#47304）、DeepGEMM tag更新（#46683）可能引入兼容问题",
     ["says FlashInfer of #47304, but FlashInfer is in the title of #43729, #46076, #46683",
      "says DeepGEMM of #46683, but DeepGEMM is in the title of #47304"]),
    ("#38174：DSpark半自回归推测解码", ["says DSpark of #38174, but DSpark is in the title of #46995, #47093"]),
], ids=["seed-row", "seed-row-swapped", "item-without-pr"])
def test_an_identifier_is_about_the_prs_of_its_own_item(w27, text, faults):
    assert check_claim(Claim(text), w27, None, checks=["foreign_identifiers"]) == faults
