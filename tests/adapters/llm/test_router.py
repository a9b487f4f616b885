"""The optional model router of chat questions: the real ``openai`` client against the scripted
OpenAI-compatible server on 127.0.0.1 (function calling). The model only picks a typed query; the
answer is built by code; a wrong, invalid, absent or failed tool call falls back to the parser;
routes are cached per normalised message; without ``llm:`` nothing changes.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from adapters.llm.router import ModelRouter, tool_specs
from chatbot.cards import block_text
from chatbot.intents import INTENTS
from chatbot.intents.risk_tags import RiskTagQuery
from chatbot.module_names import default_module_index
from chatbot.queries import DigestCache, Responder, parse
from prhub.chat import cited_prs
from tests.conftest import week_prs
from tests.fakes.openai_server import FakeOpenAI, Status, Stall, ToolCall

MODEL = "Qwen/Qwen3-8B"
NOW = datetime(2026, 5, 17, 12, tzinfo=timezone.utc)
CONTRIBUTORS_HEADER = "Contributors · vllm-project/vllm 2026-W20"


def router(fake: FakeOpenAI, **kw) -> ModelRouter:
    return ModelRouter(fake.base_url, MODEL, "sk-test", intents=INTENTS, modules=default_module_index(), **kw)


def test_the_tools_are_the_registrys_query_models():
    tools = tool_specs(INTENTS, default_module_index())
    assert [t["function"]["name"] for t in tools] == [i.name for i in INTENTS]
    risk_tag = next(t["function"] for t in tools if t["function"]["name"] == "risk_tag")
    assert set(risk_tag["parameters"]["properties"]) == {"week", "tag", "modules", "topics", "labels", "words"}
    assert "Module ids: spec-decode, attention, moe" in risk_tag["description"]
    assert "intent" not in json.dumps(risk_tag["parameters"]["properties"])


def test_a_tool_call_becomes_the_typed_query():
    with FakeOpenAI([ToolCall("risk_tag", json.dumps({"modules": ["scheduler"]}))]) as fake:
        q = router(fake)("是不是调度器那边最近不太稳？")
        body = fake.requests[0]
    assert q == RiskTagQuery(lang="zh", modules=("scheduler",))
    assert body["tool_choice"] == "required" and body["temperature"] == 0 and len(body["tools"]) == len(INTENTS)
    assert body["messages"][1]["content"] == "是不是调度器那边最近不太稳"  # the normalised message


@pytest.mark.parametrize("step", [
    ToolCall("no_such_tool", "{}"),                                   # a tool that does not exist
    ToolCall("top_prs", json.dumps({"n": 5000})),                      # out of the model's bounds (n <= 50)
    ToolCall("module", json.dumps({"module": "<!channel>"})),          # a module the rules do not have
    ToolCall("risk_tag", json.dumps({"modules": ["scheduler"], "colour": "red"})),  # a field no query has
    ToolCall("risks", "not json"),                                     # arguments that are no JSON
    ToolCall("", content="I think you want the risks."),               # prose instead of a tool call
    Status(500), Status(429, retry_after="1"),                         # the server fails
])
def test_a_bad_or_absent_tool_call_gives_none(step):
    with FakeOpenAI([step]) as fake:
        assert router(fake)("anything risky in the scheduler?") is None


def test_a_slow_model_gives_none_within_the_timeout():
    with FakeOpenAI([Stall(3.0)]) as fake:
        assert router(fake, timeout_s=0.5)("anything risky in the scheduler?") is None


def test_routes_are_cached_per_normalised_message():
    with FakeOpenAI([ToolCall("risks", "{}")]) as fake:
        r = router(fake, cache_size=2)
        first = r("Risks this week?")
        assert r("  risks THIS week ") == first and len(fake.requests) == 1
        r("top PRs")
        r("summary")  # the oldest entry leaves the cache
        r("risks this week")
        assert len(fake.requests) == 4


@pytest.fixture(scope="module")
def cache(vllm_rules):
    return DigestCache(week_prs("2026-W19") + week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


def test_the_answer_is_built_by_code_from_the_routed_query(cache):
    with FakeOpenAI([ToolCall("risk_tag", json.dumps({"modules": ["scheduler"]}))]) as fake:
        bot = Responder(digest_provider=cache, clock=lambda: NOW, repo="vllm-project/vllm", router=router(fake))
        card = bot.reply("is the scheduler side shaky lately?")
    plain = Responder(digest_provider=cache, clock=lambda: NOW, repo="vllm-project/vllm").reply("anything risky in the scheduler?")
    assert card.header == "risk tags in scheduler · vllm-project/vllm 2026-W20"
    assert cited_prs(card) == cited_prs(plain)[:len(cited_prs(card))] and cited_prs(card)[:2] == [39568, 42434]


def test_a_wrong_tool_is_answered_as_that_query_and_an_invalid_one_by_the_parser(cache):
    # a valid but wrong pick: the answer is that query's code-built card (never model text)
    with FakeOpenAI([ToolCall("contributors", "{}")]) as fake:
        card = Responder(digest_provider=cache, clock=lambda: NOW, repo="vllm-project/vllm",
                         router=router(fake)).reply("anything risky in the scheduler?")
    assert card.header == CONTRIBUTORS_HEADER and "risk" not in block_text(card.blocks[0]).casefold()
    # an invalid pick: the parser's reading, with its "I read this as" line
    with FakeOpenAI([ToolCall("module", json.dumps({"module": "nosuch"}))]) as fake:
        card = Responder(digest_provider=cache, clock=lambda: NOW, repo="vllm-project/vllm",
                         router=router(fake)).reply("anything risky in the scheduler?")
    assert card.header == "risk tags in scheduler · vllm-project/vllm 2026-W20"
    assert block_text(card.blocks[0]).startswith("I read this as risky PRs (scheduler)")


def test_without_llm_the_chat_has_no_router():
    from prhub.config import load
    from prhub.web import create_responders

    responders = create_responders(load(None), None, digest_provider=DigestCache([], repo="vllm-project/vllm",
                                                                                   rules=default_rules()))
    assert [r.router for r in responders] == [None]
    assert responders[0].query("anything risky in the scheduler?") == parse("anything risky in the scheduler?")


def default_rules():
    from chatbot.rules import shipped_rules

    return shipped_rules("vllm")
