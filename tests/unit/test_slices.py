"""Subscription slices on real vLLM data: only the subscriber's modules, each PR once."""

from __future__ import annotations

from chatbot.cards import PRList
from tests.digests import written_digest
from chatbot.slices import slice_card, slice_prs
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs


def _digest(vllm_rules, lang="en"):
    return written_digest(week_prs("2026-W20"), repo="vllm-project/vllm", week=IsoWeek(2026, 20), rules=vllm_rules, lang=lang)


def test_slice_lists_each_matching_pr_once_in_rank_order(vllm_rules):
    d = _digest(vllm_rules)
    modules = [m for m, _ in sorted(d.module_counts.items(), key=lambda kv: -kv[1])[:3]]
    prs = slice_prs(d, [m.upper() + " " for m in modules])  # any case and spacing
    expected = {p.number for p in d.prs if set(p.modules) & set(modules)}
    assert {p.number for p in prs} == expected and len(prs) == len(expected)
    assert any(len(set(p.modules) & set(modules)) > 1 for p in prs)  # some PR matches several modules
    assert [(-p.importance, p.number) for p in prs] == sorted((-p.importance, p.number) for p in prs)
    card = slice_card(d, modules, report_url="https://prhub.example.com/reports/vllm-project/vllm/2026-W20")
    [listed] = [b for b in card.blocks if isinstance(b, PRList) and b.role == "slice_prs"]
    numbers = [i.number for i in listed.items]
    assert len(numbers) == len(set(numbers)) and len(numbers) + listed.more == len(expected)
    risky = [b for b in card.blocks if isinstance(b, PRList) and b.role == "slice_risks"]
    assert all(set(i.number for i in r.items) <= expected for r in risky)


def test_empty_slice_is_skipped_or_sent(vllm_rules):
    d = _digest(vllm_rules, "zh")
    assert slice_card(d, ["no-such-module"]) is None
    card = slice_card(d, ["no-such-module"], send_empty=True)
    assert card is not None and card.lang == "zh" and "没有" in card.fallback
