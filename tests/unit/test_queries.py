"""Query parsing (BR-02, BR-07 parse part) and answers that need no real data."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatbot.cards import Card, block_text
from adapters.feishu.inbound import Mention, bot_mentioned, message_text, strip_mentions
from adapters.slack.inbound import strip_markup
from chatbot.inbound import InboundMessage, wants_answer
from chatbot.queries import (
    DigestCache,
    HelpQuery,
    ModuleQuery,
    PRLookupQuery,
    RisksQuery,
    SubscribeQuery,
    SubscriptionsQuery,
    UnsubscribeQuery,
    answer,
    parse,
    query_adapter,
)
from chatbot.rules import shipped_rules
from chatbot.subscriptions import Requester
from tests.fakes.subscriptions import MemoryBook

SLACK_BOT = {"U_BOT", "B_BOT"}
FEISHU_BOT = {"ou_BOT"}
BOT = Mention(key="@_user_1", id="ou_BOT", name="DigestBot")
BOB = Mention(key="@_user_2", id="ou_BOB", name="Bob")
QUERY = query_adapter()


def slack_parse(text, bot_ids=SLACK_BOT):
    """What the Slack adapter hands the core: markup stripped, then parsed."""
    return parse(strip_markup(text, bot_ids=bot_ids)[0])


def feishu_parse(text, mentions=(), bot_ids=FEISHU_BOT):
    """What the Feishu adapter hands the core: placeholders resolved and removed, then parsed."""
    return parse(strip_mentions(text, bot_ids=bot_ids, mentions=mentions)[0])


def both_parse(text, mentions=()):
    """Both adapters' cleaning (a text holding either platform's markup)."""
    s, _ = strip_markup(text, bot_ids=SLACK_BOT | FEISHU_BOT)
    return parse(strip_mentions(s, bot_ids=SLACK_BOT | FEISHU_BOT, mentions=mentions)[0])


def wants(direct, mentioned):
    return wants_answer(InboundMessage(platform="test", is_direct=direct, addressed_to_bot=mentioned))


def text_of(card: Card) -> str:
    return "\n".join([card.header, *(block_text(b) for b in card.blocks)])


# --- BR-02: Slack command parsing around mentions ---------------------------------------------

@pytest.mark.parametrize("text", ["<@U_BOT> risks this week", "<@U_BOT>\u00a0risks this week"])
def test_br02_risks_current_week(text):
    q = slack_parse(text)
    assert q == RisksQuery(week="current")
    assert q.model_dump()["intent"] == "risks" and q.week == "current"


@pytest.mark.parametrize("text", ["<@U_BOB> <@U_BOT> PR #1234", "<@U_BOT|digestbot> PR#1234"])
def test_br02_pr_lookup(text):
    assert slack_parse(text) == PRLookupQuery(number=1234)


def test_br02_subscribe_sender_not_mentioned_user():
    q = slack_parse("hey <@U_BOT>, subscribe attention")
    assert isinstance(q, SubscribeQuery) and q.module == "attention" and not q.channel
    assert "U_BOB" not in q.model_dump_json() and "<@" not in q.model_dump_json()
    book = MemoryBook()
    who = Requester(platform="slack", workspace="T_TEST", user="U_ALICE", channel="C_DIGEST",
                    repo="example-org/example-repo")
    card = answer(q, digest_provider=None, now=datetime.now(timezone.utc), requester=who, subscriptions=book)
    assert [s.subscriber for s in book.subs] == ["U_ALICE"]
    assert "Subscribed you to attention backends (attention)" in text_of(card)


def test_br02_bare_mention_is_help():
    q = slack_parse("<@U_BOT>")
    assert q == HelpQuery()
    card = answer(q, digest_provider=None, now=datetime.now(timezone.utc))
    assert "what you can ask" in card.header


@pytest.mark.parametrize("text", ["<@U_BOT> <@U_1234> risks", "<@U_BOT> subscribe <@U_BOB>", "<@U_BOT> <@U_4321>"])
def test_br02_other_mentions_are_never_modules_or_numbers(text):
    q = slack_parse(text)
    assert not isinstance(q, PRLookupQuery)
    assert "U_BOB" not in q.model_dump_json() and "4321" not in q.model_dump_json() and "1234" not in q.model_dump_json()


# --- BR-07: Feishu placeholders and message formats (parse part) --------------------------------

def test_br07_1_placeholder_bot():
    text = message_text("text", '{"text":"@_user_1 risks this week"}')
    assert feishu_parse(text, [BOT]) == RisksQuery(week="current")
    assert bot_mentioned(text, bot_ids=FEISHU_BOT, mentions=[BOT])


def test_br07_2_other_user_placeholder_ignored():
    text = message_text("text", '{"text":"@_user_2 @_user_1 subscribe attention"}')
    q = feishu_parse(text, [BOT, BOB])
    assert isinstance(q, SubscribeQuery) and q.module == "attention" and q.asked == "attention"
    assert "@_user_" not in q.model_dump_json() and "ou_BOB" not in q.model_dump_json()
    book = MemoryBook()
    who = Requester(platform="feishu", workspace="tenant", user="ou_ALICE", channel="oc_GROUP", repo="vllm-project/vllm")
    card = answer(q, digest_provider=None, now=datetime.now(timezone.utc), requester=who, subscriptions=book)
    assert [s.subscriber for s in book.subs] == ["ou_ALICE"]
    assert "@_user_" not in text_of(card)


def test_br07_3_group_without_mention_gets_no_reply():
    text = message_text("text", '{"text":"risks this week"}')
    mentioned = bot_mentioned(text, bot_ids=FEISHU_BOT, mentions=[])
    assert not mentioned and not wants(False, mentioned)
    assert wants(False, True) and wants(True, False)


def test_br07_4_p2p_pr_lookup():
    text = message_text("text", '{"text":"PR #1234"}')
    assert wants(True, bot_mentioned(text, bot_ids=FEISHU_BOT))
    assert feishu_parse(text) == PRLookupQuery(number=1234)


def test_br07_5_post_message():
    content = ('{"title":"","content":[[{"tag":"at","user_id":"@_user_1","user_name":"DigestBot"},'
               '{"tag":"text","text":" PR #1234"}]]}')
    text = message_text("post", content)
    assert bot_mentioned(text, bot_ids=FEISHU_BOT, mentions=[BOT])
    assert feishu_parse(text, [BOT]) == PRLookupQuery(number=1234)


def test_message_text_never_raises():
    assert message_text("text", "not json") == "" and message_text("image", "{}") == ""
    assert message_text("post", '{"zh_cn":{"title":"t","content":[[{"tag":"text","text":"周报"}]]}}') == "t\n周报"


# --- intents, languages and tolerance ------------------------------------------------------------

@pytest.mark.parametrize("text,intent,fields", [
    ("本周风险", "risks", {"week": "current", "lang": "zh"}),
    ("上周风险", "risks", {"week": "previous", "lang": "zh"}),
    ("risks last week", "risks", {"week": "previous"}),
    ("Risks 2026-W19", "risks", {"week": "2026-W19"}),
    ("risks 2026w19!", "risks", {"week": "2026-W19"}),
    ("#51655", "pr_lookup", {"number": 51655}),
    ("pr 51655", "pr_lookup", {"number": 51655}),
    ("ＰＲ＃５１６５５", "pr_lookup", {"number": 51655}),
    ("https://github.com/vllm-project/vllm/pull/42202", "pr_lookup", {"number": 42202}),
    ("attention this week", "module", {"module": "attention", "week": "current"}),
    ("What changed in spec-decode?", "module", {"module": "spec-decode"}),
    ("模块 投机解码", "module", {"module": "spec-decode", "lang": "zh"}),
    ("what's new in EAGLE", "module", {"module": "spec-decode"}),
    ("attension", "module", {"module": "attention"}),
    ("quantisation last week", "module", {"module": "quantization", "week": "previous"}),
    ("kv", "module", {"module": None, "candidates": ("scheduler", "kv-connector")}),
    ("module nosuchthing", "module", {"module": None, "asked": "nosuchthing", "candidates": ()}),
    ("top PRs", "top_prs", {}),
    ("重点PR", "top_prs", {"lang": "zh"}),
    ("本周前5个PR", "top_prs", {"n": 5, "lang": "zh"}),  # "the first 5 PRs of the week"
    ("上周前 3 条 PR", "top_prs", {"n": 3, "week": "previous"}),
    ("contributors", "contributors", {}),
    ("贡献者", "contributors", {"lang": "zh"}),
    ("summary", "summary", {}),
    ("周报", "summary", {"lang": "zh"}),
    ("subscribe channel spec decode", "subscribe", {"channel": True, "module": "spec-decode"}),
    ("订阅 投机解码", "subscribe", {"module": "spec-decode", "lang": "zh"}),
    ("订阅频道 注意力后端", "subscribe", {"channel": True, "module": "attention"}),
    ("unsubscribe moe", "unsubscribe", {"module": "moe"}),
    ("取消订阅 moe", "unsubscribe", {"module": "moe"}),
    ("subscribe moe and quantization", "subscribe", {"modules": ("moe", "quantization")}),
    ("订阅 注意力后端, MoE", "subscribe", {"modules": ("attention", "moe"), "lang": "zh"}),
    ("订阅 MoE 和 量化", "subscribe", {"modules": ("moe", "quantization")}),
    ("subscribe moe quantization", "subscribe", {"modules": ("moe", "quantization")}),  # not fuzzily one module
    ("unsubscribe spec decode and moe", "unsubscribe", {"modules": ("spec-decode", "moe")}),
    ("subscribe moe and nosuch", "subscribe", {"modules": (), "asked": "nosuch"}),
    ("subscribe moe and kv", "subscribe", {"modules": (), "asked": "kv", "candidates": ("scheduler", "kv-connector")}),
    ("kv-connector 和 ROCm 上周的风险", "risk_tag", {"modules": ("kv-connector",), "topics": ("rocm",), "week": "previous"}),
    ("DeepSeek V4 risks", "risk_tag", {"topic": "deepseek-v4", "modules": ()}),
    ("reverts in nosuch", "risk_tag", {"tag": "revert", "words": ("nosuch",)}),  # the answer says it ignored it
    ("top risks", "risks", {}),
    ("my subscriptions", "subscriptions", {}),
    ("我的订阅", "subscriptions", {"lang": "zh"}),
    ("help", "help", {"unknown": False}),
    ("帮助", "help", {"unknown": False, "lang": "zh"}),
    ("what is the weather", "search", {"fallback": True, "text": "weather"}),  # not understood: searched
    ("what is the", "summary", {"week": "current"}),  # only stop words: the week, offered as an unsure reading
    ("Kimi changes", "search", {"fallback": True, "text": "kimi"}),
    ("what changed in qwen3", "search", {"fallback": True, "text": "qwen3"}),
    ("search kv cache", "search", {"fallback": False, "text": "kv cache"}),
    ("搜索 量化", "search", {"fallback": False, "text": "量化", "lang": "zh"}),
    ("risks 2026-W60", "help", {"problem": "bad_week:2026-W60"}),
])
def test_intents(text, intent, fields):
    q = slack_parse(text)
    assert q.intent == intent, q
    for k, v in fields.items():
        assert getattr(q, k) == v, (k, q)


def test_bot_mention_anywhere_and_case():
    for text in ["RISKS THIS WEEK <@U_BOT>", "risks <@U_BOT> this week", "<@U_BOT>,  Risks,  This Week!!"]:
        assert slack_parse(text) == RisksQuery(week="current")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_always_returns_a_query(text):
    q = both_parse(text, [BOT, BOB])
    assert QUERY.validate_python(q.model_dump()) == q


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["<@U_BOT>", "<@U_BOB|bob>", "@_user_1", "@_user_2", "PR", "#", "12", "risks",
                                 "本周", "subscribe", "channel", "\u00a0", "，", "ＰＲ", "2026-W19", "<!channel>", " "])))
def test_parse_token_soup(tokens):
    q = both_parse("".join(tokens), [BOT, BOB])
    assert "U_BOB" not in q.model_dump_json() and "@_user" not in q.model_dump_json()


# --- answers without real data --------------------------------------------------------------------

def test_subscription_idempotent_and_admin_only():
    book = MemoryBook()
    alice = Requester(platform="slack", workspace="T_TEST", user="U_ALICE", channel="C_DIGEST", repo="Example-Org/Example-Repo")
    now = datetime.now(timezone.utc)
    first = answer(parse("subscribe spec-decode"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    second = answer(parse("subscribe  Spec-Decode "), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert len(book.subs) == 1
    assert "Subscribed you" in text_of(first) and "already subscribed" in text_of(second)
    denied = answer(parse("subscribe channel moe"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert "Only admins" in text_of(denied) and len(book.subs) == 1
    admin = alice.model_copy(update={"is_admin": True})
    answer(parse("subscribe channel moe"), digest_provider=None, now=now, requester=admin, subscriptions=book)
    assert {(s.kind, s.subscriber, s.module) for s in book.subs} == {("user", "U_ALICE", "spec-decode"), ("channel", "C_DIGEST", "moe")}
    listed = answer(parse("my subscriptions"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert "spec-decode" in text_of(listed) and "moe" in text_of(listed)
    gone = answer(parse("unsubscribe spec-decode"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert "Unsubscribed" in text_of(gone) and len(book.subs) == 1
    zh = answer(parse("订阅 投机解码"), digest_provider=None, now=now, requester=alice, subscriptions=book)
    assert "已为你订阅" in text_of(zh)


def test_several_modules_in_one_subscribe_all_or_none():
    book = MemoryBook()
    alice = Requester(platform="slack", workspace="T_TEST", user="U_ALICE", channel="C_DIGEST", repo="o/r")
    now = datetime.now(timezone.utc)
    both = text_of(answer(parse("订阅 MoE 和 量化"), digest_provider=None, now=now, requester=alice, subscriptions=book))
    assert sorted(s.module for s in book.subs) == ["moe", "quantization"]
    assert both.count("已为你订阅") == 2
    again = text_of(answer(parse("subscribe moe and attention"), digest_provider=None, now=now, requester=alice,
                           subscriptions=book))
    assert "you already subscribed to MoE (moe) in o/r: nothing changed." in again
    assert "Subscribed you to attention backends (attention) in o/r." in again
    assert sorted(s.module for s in book.subs) == ["attention", "moe", "quantization"]
    bad = text_of(answer(parse("unsubscribe moe and nosuch"), digest_provider=None, now=now, requester=alice,
                         subscriptions=book))
    assert "nosuch" in bad and len(book.subs) == 3  # one unknown name: nothing changes


def test_subscription_without_store_says_so():
    card = answer(parse("subscribe moe"), digest_provider=None, now=datetime.now(timezone.utc))
    assert "not available" in text_of(card)


def test_ambiguous_and_unknown_modules_answered_with_candidates():
    now = datetime.now(timezone.utc)
    amb = text_of(answer(parse("kv"), digest_provider=None, now=now))
    assert "could mean" in amb and "kv-connector" in amb and "scheduler" in amb
    unknown = text_of(answer(parse("module nosuchthing"), digest_provider=None, now=now))
    assert "nosuchthing" in unknown and "spec-decode" in unknown


def test_empty_current_week_offers_last_week(vllm_rules):
    from tests.conftest import week_prs

    cache = DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)
    now = datetime(2026, 5, 19, 9, 0, tzinfo=timezone.utc)  # Tuesday of 2026-W21: nothing merged yet
    card = answer(parse("risks this week"), digest_provider=cache, now=now)
    text = text_of(card)
    assert "No merged PRs found for 2026-W21 yet." in text and "Here is last week, 2026-W20:" in text
    assert card.header == "Risks · vllm-project/vllm 2026-W20"
    zh = text_of(answer(parse("本周风险"), digest_provider=cache, now=now))
    assert "暂未找到 2026-W21 合并的 PR。" in zh
    empty = text_of(answer(parse("risks 2026-W30"), digest_provider=cache, now=now))
    assert "No merged PRs found for 2026-W30." in empty


def test_lang_override(vllm_rules):
    from tests.conftest import week_prs

    cache = DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)
    now = max(p.merged_at for p in week_prs("2026-W20"))
    assert answer(parse("本周风险"), digest_provider=cache, now=now, lang="en").header.startswith("Risks")
    assert answer(parse("risks"), digest_provider=cache, now=now, lang="zh").header.startswith("风险")
