"""The chat-intent registry: one module and one registry line per intent; the help card is
generated from it."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Literal

from chatbot.cards import Card, block_text, message_card
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns, parse_order
from chatbot.intents import INTENTS
from chatbot.intents.search import SearchQuery
from chatbot.queries import Responder, answer, parse, query_adapter

NOW = datetime(2026, 5, 17, 12, tzinfo=timezone.utc)


def lines_of(card: Card) -> list[str]:
    return block_text(card.blocks[0]).split("\n")


def test_registry_is_consistent():
    names = [i.name for i in INTENTS]
    assert len(names) == len(set(names))
    for intent in INTENTS:
        assert intent.query.model_fields["intent"].default == intent.name
        assert intent.patterns and all(isinstance(p, str) for ps in intent.patterns.values() for p in ps)
        compile_patterns(intent.patterns)


def test_help_card_is_generated_from_the_registry_in_rank_order():
    en = lines_of(answer(parse("help"), digest_provider=None, now=NOW))  # type: ignore[arg-type]
    assert en == [
        "• risks [this week | last week | 2026-W19]: PRs carrying risk tags, with reasons",
        "• reverts / security / missing tests / tests removed / large / dependencies [in MODULE(S), TOPIC or by AUTHOR] "
        "[last week]: PRs with that risk",
        "• what should I review first [this week]: your modules' PRs, else top risks and unreviewed large changes",
        "• PR #42202: one PR of any stored week: title, author, modules, risks, reverts and fixes",
        "• what changed in spec-decode / attention this week: one module's PRs, churn and risks",
        "• PRs by LOGIN / what did NAME merge [last week]: one author's merged PRs",
        "• PRs touching vllm/v1/worker (a file or a directory) [last week]",
        "• perf / bugfix / docs PRs [in MODULE] [last week]: PRs with that label",
        "• search kv cache / Kimi changes / DeepSeek V4: PRs by title, path, module, topic or author",
        "• new models [this week]: the models a week added",
        "• top PRs [in ROCm / attention / perf]: the week's key PRs",
        "• contributors: the most active authors",
        "• any new contributors? [last week]: first merges in the stored history",
        "• how many perf PRs / which module had the most PRs / the biggest PRs [this week]",
        "• summary: the week in one card",
        "• MoE this month / ROCm in the last 4 weeks / attention since W18: a subject across weeks",
        "• full report [last week | 2026-W19]: the week's full report (a link, or the PDF when no public URL is set)",
        "• trends [12 weeks]: PR counts, top labels and importance week by week",
        "• compare W19 and W20 / attention vs moe: counts, risks and what is new",
        "• subscribe [channel] <module> [and <module>] / unsubscribe <module>: weekly updates for modules",
        "• my subscriptions: what you follow",
    ]
    zh = lines_of(answer(parse("帮助"), digest_provider=None, now=NOW))  # type: ignore[arg-type]
    assert zh[0] == "• 本周风险 / 上周风险 / 风险 2026-W19：带风险标签的 PR 及原因" and len(zh) == 21
    bad = lines_of(answer(parse("risks 2026-W60"), digest_provider=None, now=NOW))  # type: ignore[arg-type]
    assert "2026-W60" in bad[0] and len(bad) == 22


# --- a new intent: the "module" below plus one registry entry ------------------------------------

class PingQuery(QueryBase):
    intent: Literal["ping"] = "ping"


PING_PATTERNS = {"en": (r"\bping\b",), "zh": ("在吗",)}
_PING = compile_patterns(PING_PATTERNS)


def _parse_ping(inp: ParseInput) -> PingQuery | None:
    return PingQuery(lang=inp.lang) if _PING.search(inp.text) else None


def _answer_ping(q: PingQuery, ctx: AnswerContext) -> Card:
    return message_card("pong", ["pong" if ctx.lang == "en" else "在"], lang=ctx.lang, role="ping")


PING = Intent(name="ping", query=PingQuery, patterns=PING_PATTERNS, parse=_parse_ping, answer=_answer_ping,
              help={"en": "ping: is the bot there", "zh": "在吗：机器人在不在"}, help_rank=95)


def test_adding_an_intent_is_one_module_and_one_registry_entry():
    registry = parse_order((*INTENTS, PING))  # the registry line
    assert parse("ping") == SearchQuery(text="ping", fallback=True)  # not understood without it: searched
    q = parse("<@U_BOT> PING!", intents=registry)
    assert q == PingQuery()
    assert query_adapter(registry).validate_python(q.model_dump()) == q
    assert parse("在吗", intents=registry) == PingQuery(lang="zh")
    card = answer(q, digest_provider=None, now=NOW, intents=registry)  # type: ignore[arg-type]
    assert card.header == "pong"
    help_lines = lines_of(answer(parse("help", intents=registry), digest_provider=None, now=NOW, intents=registry))  # type: ignore[arg-type]
    assert help_lines[-1] == "• ping: is the bot there" and len(help_lines) == 22
    responder = Responder(digest_provider=None, clock=lambda: NOW, repo="o/r", intents=registry)  # type: ignore[arg-type]
    assert responder.reply("ping").header == "pong"
    # the words decide first: "subscribe" covers more of "subscribe ping" than "ping" does
    assert parse("subscribe ping", intents=registry).intent == "subscribe"


def test_patterns_are_searched_per_language():
    from chatbot.intents import risks

    rx = compile_patterns(risks.INTENT.patterns)
    assert rx.search("any risky prs") and rx.search("本周风险") and not rx.search("brisket")
    assert re.compile(risks.PATTERNS["zh"][0]).search("风险")
