"""Query answers on the real vLLM week 2026-W20 (skipped without ../shared)."""

from __future__ import annotations

import pytest

from chatbot.cards import PRList, Section, block_text, digest_cards
from chatbot.i18n import tr
from adapters.slack.inbound import strip_markup
from chatbot.queries import DigestCache, answer, parse
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs


@pytest.fixture(scope="module")
def cache(vllm_rules):
    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@pytest.fixture(scope="module")
def now():
    return max(p.merged_at for p in week_prs("2026-W20"))


def ask(text, cache, now, **kw):
    return answer(parse(text), digest_provider=cache, now=now, **kw)


def text_of(card):
    return "\n".join([card.header, *(block_text(b) for b in card.blocks)])


@pytest.mark.parametrize("query,lang", [("risks this week", "en"), ("本周风险", "zh")])
def test_risks_this_week_lists_the_risk_items(cache, now, query, lang):
    card = ask(query, cache, now)
    d = cache.digest(IsoWeek.parse("2026-W20"), lang)
    text = text_of(card)
    assert card.lang == lang and "2026-W20" in card.header
    assert len(d.risks) >= 3
    for item in d.risks:
        assert tr(lang, "card.risk_kind", name=tr(lang, f"risk.{item.kind}"), n=len(item.prs)) in text
    lst = next(b for b in card.blocks if isinstance(b, PRList) and b.role == "risks")
    ranked = sorted((p for p in d.prs if p.risk_tags), key=lambda p: (-p.importance, p.number))
    assert [i.number for i in lst.items] == [p.number for p in ranked[: len(lst.items)]]
    assert len(lst.items) >= 3 and lst.more == len(ranked) - len(lst.items)
    assert all(i.url.startswith("https://github.com/vllm-project/vllm/pull/") for i in lst.items)


def test_pr_card_42202(cache, now):
    card = ask("PR #42202", cache, now)
    text = text_of(card)
    assert card.header == "PR #42202"
    assert "[Model Runner V2] Fix `seq_lens_cpu_upper_bound`" in text
    # +15/-31 in the model runner, 18 lines added: under the core-path (100) and missing-tests (100) thresholds
    assert "Risk reasons\nNo risk tags." in text
    for part in ("Author: Nick Hill", "Importance: 3.3", "Labels: v1, bugfix, model-runner", "Modules: model runner (model-runner)"):
        assert part in text
    zh = text_of(ask("PR #42202", cache, now, lang="zh"))
    assert "没有风险标签。" in zh


def test_pr_card_39568_names_its_core_path(cache, now):
    text = text_of(ask("PR #39568", cache, now))
    assert "core-path change: core path vllm/v1/core/sched/scheduler.py (+91/-61) and 2 more" in text
    assert "核心路径变更" in text_of(ask("PR #39568", cache, now, lang="zh"))


def test_pr_not_found(cache, now):
    text = text_of(ask("PR #1", cache, now))
    assert "PR #1 is not among the PRs merged from 2026-W13 to 2026-W20." in text


def test_attention_this_week(cache, now):
    card = ask("attention this week", cache, now)
    d = cache.digest(IsoWeek.parse("2026-W20"), "en")
    mine = sorted((p for p in d.prs if "attention" in p.modules), key=lambda p: (-p.importance, p.number))
    assert len(mine) == d.module_counts["attention"] == 26
    lst = next(b for b in card.blocks if isinstance(b, PRList) and b.role == "module")
    assert [i.number for i in lst.items] == [p.number for p in mine[:10]] and lst.more == 16
    text = text_of(card)
    assert "attention backends (attention) · 2026-W20" == card.header
    stat = next(s for s in d.module_stats if s.module == "attention")
    assert f"+{stat.additions:,}/-{stat.deletions:,}" in text
    risky = next(b for b in card.blocks if getattr(b, "role", "") == "module_risks")
    assert isinstance(risky, (PRList, Section))


def test_other_intents_on_real_week(cache, now):
    top = ask("top PRs", cache, now)
    d = cache.digest(IsoWeek.parse("2026-W20"), "en")
    lst = next(b for b in top.blocks if isinstance(b, PRList))
    assert [i.number for i in lst.items] == [p.number for p in d.key_prs[:10]]
    contrib = text_of(ask("贡献者", cache, now))
    assert d.contributors[0].login in contrib and "位作者" in contrib
    summary = ask("summary", cache, now)
    assert summary.header == digest_cards(d)[0].header
    assert text_of(ask("what changed in spec-decode last week", cache, now)).count("2026-W19") >= 1


@pytest.mark.parametrize("text,lang", [("trends", "en"), ("<@U_BOT> 趋势", "zh"), ("trends 6 weeks", "en")])
def test_trends_query_on_six_real_weeks(vllm_rules, text, lang):
    weeks = ["2026-W15", "2026-W16", "2026-W17", "2026-W18", "2026-W19", "2026-W20"]
    prs = [p for w in weeks for p in week_prs(w)]
    six = DigestCache(prs, repo="vllm-project/vllm", rules=vllm_rules)
    q = parse(strip_markup(text, bot_ids={"U_BOT"})[0])
    assert q.intent == "trends" and q.lang == lang
    newest = max(p.merged_at for p in prs)
    card = answer(q, digest_provider=six, now=newest)
    body = text_of(card)
    counts = [(w, n) for w, n in zip(weeks, (180, 186, 200, 177, 199, 217))]
    for w, n in counts:
        assert w in body and str(n) in body
    assert "(+6)" in body and "(-23)" in body and "(+18)" in body
    assert card.header.endswith("6 weeks") or card.header.endswith("6 周")


def test_responder_reports_each_reply_latency(cache, now):
    from chatbot.queries import Responder

    seen = []
    responder = Responder(digest_provider=cache, clock=lambda: now, repo="vllm-project/vllm", observe=seen.append)
    card = responder.reply(" risks this week")
    assert "2026-W20" in card.header
    assert len(seen) == 1 and 0 < seen[0] < 30
