"""Tester findings on chat understanding, answered on the real week 2026-W20 (skipped without
../shared): a week after "PR" is no PR number, Chinese written without spaces around "PR", topics
that are no authors, a trailing "模块", bare "PRs", mention-only authors and weeks outside the years
1970..2100."""

from __future__ import annotations

import pytest

from chatbot.cards import block_text
from chatbot.intents.help import HelpQuery
from chatbot.queries import DigestCache, answer, parse
from prhub.chat import cited_prs
from tests.conftest import week_prs


@pytest.fixture(scope="module")
def cache(vllm_rules):
    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@pytest.fixture(scope="module")
def ask(cache, vllm_rules):
    from chatbot.queries import ModuleIndex

    index = ModuleIndex(vllm_rules)
    now = max(p.merged_at for p in week_prs("2026-W20"))

    def run(text):
        q = parse(text, modules=index)
        card = answer(q, digest_provider=cache, now=now, modules=index, history=cache.history, so_far=False)
        return q, card
    return run


def text_of(card):
    return "\n".join([card.header, *(block_text(b) for b in card.blocks)])


# (question, intent, header, the PRs it cites first)
WEEK_AFTER_PR = [
    ("本周安全相关的 PR 2026-W20", "risk_tag", "安全相关 · vllm-project/vllm 2026-W20", [42594]),
    ("security PR 2026-W20", "risk_tag", "security-sensitive change · vllm-project/vllm 2026-W20", [42594]),
    ("重点PR 2026-W20", "top_prs", "重点 PR · vllm-project/vllm 2026-W20", [41035, 41946, 42339]),
    ("top PR 2026 W20", "top_prs", "Top PRs · vllm-project/vllm 2026-W20", [41035, 41946, 42339]),
]


@pytest.mark.parametrize("question,intent,header,first", WEEK_AFTER_PR)
def test_a_week_after_pr_is_no_pr_number(ask, question, intent, header, first):
    q, card = ask(question)
    assert (q.intent, q.week, card.header) == (intent, "2026-W20", header)
    assert cited_prs(card)[:len(first)] == first


def test_a_pr_number_is_still_one(ask):
    for text in ("PR #42202", "pr42202", "PR 42202 w/ fix", "哪个PR42202"):
        q, card = ask(text)
        assert (q.intent, q.number, card.header) == ("pr_lookup", 42202, "PR #42202"), text


# (unspaced, spaced, header, the PRs it cites first)
UNSPACED = [
    ("哪些PR删了测试", "哪些 PR 删了测试", "删除测试 · vllm-project/vllm 2026-W20", []),  # none net-removes 50+ lines
    ("本周安全相关的PR", "本周安全相关的 PR", "安全相关 · vllm-project/vllm 2026-W20", [42594]),
    ("缺少测试的PR", "缺少测试的 PR", "缺少测试覆盖 · vllm-project/vllm 2026-W20", [42339, 41263, 36517]),
    ("哪些PR缺少测试", "哪些 PR 缺少测试", "缺少测试覆盖 · vllm-project/vllm 2026-W20", [42339, 41263, 36517]),
]


@pytest.mark.parametrize("unspaced,spaced,header,first", UNSPACED)
def test_chinese_without_spaces_around_pr_reads_like_the_spaced_form(ask, unspaced, spaced, header, first):
    q, card = ask(unspaced)
    assert q == ask(spaced)[0] and q.intent == "risk_tag" and not q.asked
    assert card.header == header and cited_prs(card)[:len(first)] == first
    assert "没有名为" not in text_of(card)


def test_a_topic_with_xiangguan_is_searched_not_an_author(ask):
    q, card = ask("DeepSeek V4 相关的PR")
    assert (q.intent, q.text) == ("search", "deepseek v4")
    assert card.header == "搜索“deepseek v4” · 2026-W20"
    assert cited_prs(card)[:3] == [42810, 42320, 42342] and "共 217 个 PR 中有 13 个。" in text_of(card)


def test_a_trailing_module_word_names_the_module(ask):
    q, card = ask("注意力模块有什么变化")
    assert (q.intent, q.module) == ("module", "attention")
    assert card.header == "注意力后端（attention）· 2026-W20"
    en = ask("what changed in attention")[1]
    assert cited_prs(card) == cited_prs(en) and cited_prs(card)[:3] == [42339, 40392, 42304]
    assert ask("attention module changes")[0].module == "attention"


def test_bare_prs_with_a_week_lists_the_weeks_key_prs(ask):
    q, card = ask("PRs 2026-W20")
    assert (q.intent, q.week) == ("top_prs", "2026-W20")
    assert card.header == "Top PRs · vllm-project/vllm 2026-W20"
    assert cited_prs(card) == cited_prs(ask("top PRs 2026-W20")[1]) and cited_prs(card)[:3] == [41035, 41946, 42339]
    assert "Search" not in text_of(card)


@pytest.mark.parametrize("question", ["PRs by @all", "PRs by <!channel>", "prs from @here"])
def test_prs_by_a_mention_only_is_no_author_and_never_echoes_it(ask, question):
    q, card = ask(question)
    assert (q.intent, q.name) == ("author", "")
    text = text_of(card)
    assert card.header == "PRs by an author"
    assert text.endswith("No such author: name one by login or name (e.g. “PRs by Michael Goin”); "
                         "@-mentions are not read as names.")
    for junk in ("@all", "channel", "@here", "Search"):
        assert junk not in text


@pytest.mark.parametrize("week,ok", [("1969-W52", False), ("1970-W01", True), ("2100-W01", True), ("2101-W01", False),
                                     ("9999-W01", False), ("2026-W53", True), ("2026-W54", False)])
def test_weeks_outside_the_years_get_the_bad_week_answer(ask, week, ok):
    q, card = ask(f"risks {week}")
    if ok:
        assert q.intent == "risks" and q.week == week
        return
    assert q == HelpQuery(lang="en", problem=f"bad_week:{week}")
    assert text_of(card).split("\n")[1] == f"“{week}” is not a valid ISO week: use the form 2026-W19."


@pytest.mark.parametrize("question,lang,header,line", [
    ("risks in vllm-project/vllm", "en", "Risks · vllm-project/vllm 2026-W20", ""),
    ("vllm-project/vllm 的风险", "zh", "风险 · vllm-project/vllm 2026-W20", ""),
    ("risks in foo/bar", "en", "Unknown repository",
     'I do not serve foo/bar; ask about one of: vllm-project/vllm (e.g. "risks in vllm-project/vllm").'),
    ("foo/bar 的风险", "zh", "未知仓库", "未配置仓库 foo/bar；可以问：vllm-project/vllm（例如“vllm-project/vllm 的风险”）。"),
])
def test_ask_reads_a_repository_mention_as_serve_does(cache, vllm_rules, question, lang, header, line):
    import json

    from prhub.chat import ask_cache

    out = json.loads(ask_cache(question, cache, rules=vllm_rules, tz="UTC", lang=None, fmt="json"))
    assert (out["card"]["header"], out["card"]["lang"], out["repo"]) == (header, lang, "vllm-project/vllm")
    if line:
        assert out["card"]["fallback"] == line and out["prs"] == []
    else:  # the repository's risks, not a path query for "vllm-project/vllm"
        assert out["intent"] == "risks" and out["prs"][:3] == [41035, 41946, 42339]


def test_an_empty_week_names_the_weeks_the_input_holds(cache, vllm_rules):
    import json

    from prhub.chat import ask_cache

    out = json.loads(ask_cache("what got reverted last week", cache, rules=vllm_rules, tz="UTC", lang=None, fmt="json"))
    assert (out["week"], out["card"]["header"]) == ("2026-W19", "vllm-project/vllm")
    assert out["card"]["fallback"] == (
        "vllm-project/vllm No merged PRs found for 2026-W19. "
        "The stored PRs are all from 2026-W20; ask about that week (e.g. “risks 2026-W20”) or store more weeks.")
    inside = json.loads(ask_cache("what got reverted 2026-W20", cache, rules=vllm_rules, tz="UTC", lang=None, fmt="json"))
    assert "stored PRs" not in json.dumps(inside["card"])  # a week the input holds: no hint


@pytest.mark.parametrize("question,lang", [("compare this week with last week", "en"), ("比上周", "zh")])
def test_trends_when_the_current_week_is_empty_point_to_the_stored_weeks(vllm_rules, question, lang):
    from datetime import datetime, timezone

    from chatbot.queries import ModuleIndex

    two = DigestCache(week_prs("2026-W19") + week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)
    index = ModuleIndex(vllm_rules)
    card = answer(parse(question, modules=index), digest_provider=two, now=datetime(2026, 12, 1, 13, tzinfo=timezone.utc),
                  modules=index, history=two.history)
    assert card.header == "vllm-project/vllm"  # was "Trends · · 0 weeks"
    assert text_of(card).split("\n")[1:] == {
        "en": ["No merged PRs found for 2026-W48.",
               "The stored PRs are from 2026-W19 to 2026-W20; ask about one of those weeks (e.g. “risks 2026-W20”)."],
        "zh": ["未找到 2026-W48 合并的 PR。", "已存储的 PR 来自 2026-W19 至 2026-W20；请问其中某一周（例如“风险 2026-W20”）。"]}[lang]


def test_no_english_catalog_text_says_1_with_a_plural():
    """Every en catalog text formatted with each count at 1: no "1 files", "merged 1 PRs", "1 key PRs"."""
    import string

    from chatbot.i18n import catalog_keys, tr

    plural = __import__("re").compile(r"(?<![\d,.])1(?: [a-z-]+){0,2} (?:PRs|files|parts|authors|weeks)\b")
    said = {}
    for key in sorted(catalog_keys("en")):
        names = {f for _, f, _, _ in string.Formatter().parse(_raw("en", key)) if f}
        text = tr("en", key, **{n: 1 for n in names}) if "key" not in names and "lang" not in names else ""
        if plural.search(text):
            said[key] = text
    # "1 of 1 PRs carry": the verb is the count's, kept plural for the usual 1 of N; {prs} is a list of PRs
    assert said == {"card.risks.count": "1 of 1 PRs carry risk tags.", "slice.count": "1 of 1 merged PRs touched them."}
    assert tr("en", "card.changes", files="1", lines="+5/-1") == "1 file, +5/-1"
    assert tr("en", "md.lead", week="2026-W49", repo="vllm-project/vllm", total=1, labels="bug") == \
        "In 2026-W49, vllm-project/vllm merged 1 PR; bug lead."
    assert tr("en", "sum.key", nkey=1, avg="3.0") == "1 key PR; average importance of all PRs 3.0."
    assert tr("en", "card.filter.count", n=12, total=217) == "12 of 217 PRs."


def _raw(lang, key):
    from chatbot import i18n

    return i18n._lookup(lang, key)



def test_chinese_module_candidates_and_subscriptions_use_full_width_parentheses(ask):
    from datetime import datetime, timezone

    from chatbot.subscriptions import Requester
    from tests.fakes.subscriptions import MemoryBook

    _, card = ask("模块 模型")
    assert text_of(card).split("\n")[1:4] == ["“模型”可能指多个模块，请用其中之一再问：", "• 模型支持（models）", "• 模型运行器（model-runner）"]
    book = MemoryBook()
    alice = Requester(platform="slack", workspace="T_TEST", user="U_ALICE", channel="C_DIGEST", repo="vllm-project/vllm")
    now = datetime.now(timezone.utc)
    answer(parse("订阅 投机解码"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    listed = answer(parse("我的订阅"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert "• 投机解码（spec-decode）" in text_of(listed).split("\n")
    en = answer(parse("my subscriptions"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert "• speculative decoding (spec-decode)" in text_of(en).split("\n")


@pytest.mark.parametrize("unspaced,spaced,intent", [
    ("kv-connector和ROCm上周的风险", "kv-connector 和 ROCm 上周的风险", "risk_tag"), ("前5个重点PR", "前 5 个重点 PR", "top_prs"),
    ("改了vllm/v1/worker的PR", "改了 vllm/v1/worker 的 PR", "paths"), ("趋势12周", "趋势 12 周", "trends"),
    ("PR#42202是什么", "PR #42202 是什么", "pr_lookup"), ("安全相关的PR 2026-W19", "安全相关的 PR 2026-W19", "risk_tag"),
])
def test_unspaced_chinese_parses_as_the_spaced_form(vllm_rules, unspaced, spaced, intent):
    """Pins that the Chinese/Latin spacing keeps these (most already parsed before it) as they were."""
    from chatbot.queries import ModuleIndex

    index = ModuleIndex(vllm_rules)
    q = parse(unspaced, modules=index)
    assert q == parse(spaced, modules=index) and q.intent == intent
