"""A PR's risk reasons on cards: one clause per risk (issue 20 follow-up: reasons hold commas)."""


import pytest

from adapters.export.ghjson import load_exports
from chatbot.cards import reasons_text
from chatbot.weeks import IsoWeek
from tests.conftest import ROOT
from tests.digests import written_digest


@pytest.fixture(scope="module")
def sample_prs():
    return load_exports([str(ROOT / "prhub" / "data" / "2026-W20.json")]).prs


@pytest.mark.parametrize("lang,want", [
    ("en", "follow-up fix: fixes #41536, merged 05-11; dependency change: dependency file requirements/rocm.txt "
           "(+0/-3); large change: 11 files outside tests"),
    ("zh", "后续修复：修复 05-11 合并的 #41536；外部依赖变更：依赖文件 requirements/rocm.txt（+0/-3）；大规模变更：测试以外 11 个文件"),
])
def test_reasons_are_one_clause_per_risk(sample_prs, vllm_rules, lang, want):
    """#41946's reasons were joined with ", ", and its first reason ("fixes #41536, merged 05-11")
    holds one: the card read as one list of four items. They are joined with the clause separator."""
    d = written_digest(sample_prs, repo="vllm-project/vllm", week=IsoWeek.parse("2026-W20"), rules=vllm_rules, lang=lang)
    p = next(p for p in d.prs if p.number == 41946)
    assert p.risk_tags == ("follow-up-fix", "dependency-change", "large-change")
    assert reasons_text(p, lang).startswith(want)
