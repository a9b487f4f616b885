"""Facts across weeks from the store: a PR of a week reverted or fixed in a later stored week shows
``reverted_by``/``fixed_by`` in its card and in any digest of its week built afterwards."""

from __future__ import annotations

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from chatbot.cards import pr_card, run_text
from chatbot.weeks import IsoWeek
from prhub.report import week_digest
from tests.conftest import thread_prs, week_prs

REPO = "vllm-project/vllm"
W19 = IsoWeek.parse("2026-W19")


def _links(card) -> list[str]:
    return [run_text(ln) for b in card.blocks if getattr(b, "role", "") == "pr_risks" for ln in b.lines]


def test_w19_from_a_store_that_also_holds_w20_knows_the_later_revert_and_fix(db_url, vllm_rules):
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        store.upsert_prs(REPO, week_prs("2026-W18") + week_prs("2026-W19"))
        before = week_digest(store, REPO, W19, "UTC", vllm_rules, "en")
        assert {p.number: p.reverted_by for p in before.prs if p.reverted_by} == {}
        store.upsert_prs(REPO, thread_prs("2026-W20"))  # the later week arrives
        for lang, reverted, fixed in (("en", "Reverted by #42434.", "Fixed by #42292."),
                                      ("zh", "已被 #42434 回滚。", "由 #42292 修复。")):
            d = week_digest(store, REPO, W19, "UTC", vllm_rules, lang)
            assert d.total_prs == 199  # still W19's PRs only
            by = {p.number: p for p in d.prs}
            assert {p.number: p.reverted_by for p in d.prs if p.reverted_by} == {39917: 42434}
            assert {p.number: p.fixed_by for p in d.prs if p.fixed_by} == {40894: (42292,)}
            assert reverted in _links(pr_card(by[39917], d)) and fixed in _links(pr_card(by[40894], d))
            assert 39917 in d.reverted
        # the later week's own digest is unchanged by the earlier one: #42434 reverts #39917
        d20 = week_digest(store, REPO, IsoWeek.parse("2026-W20"), "UTC", vllm_rules, "en")
        rev = next(p for p in d20.prs if p.number == 42434)
        assert (rev.is_revert, rev.reverts, rev.reverted_by) == (True, 39917, None)
        assert "Reverts #39917." in _links(pr_card(rev, d20))


def test_docs_only_revert_is_a_fact_without_advice(vllm_rules):
    from tests.digests import written_digest

    d = written_digest(week_prs("2026-W18") + week_prs("2026-W19"), repo=REPO, week=W19, rules=vllm_rules)
    p = next(p for p in d.prs if p.number == 41618)  # reverts #41353, mkdocs.yaml only
    assert (p.is_revert, p.reverts, p.risk_tags) == (True, 41353, ())
    assert not any("41618" in r.text for r in d.recommendations)
