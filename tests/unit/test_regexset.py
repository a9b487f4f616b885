"""RegexSet's literal prefilter must never change which patterns match."""

import gzip
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from chatbot.rules import RegexSet, _required_literal, shipped_rules
from tests.conftest import shared_file


def brute(rs: RegexSet, text: str) -> tuple[int, ...]:
    return tuple(i for i, rx in enumerate(rs.patterns) if rx.search(text))


def test_required_literals():
    assert _required_literal(r"(?i)\bqwen", 0) == ("qwen", True)
    assert _required_literal(r"(?i)\bspec(ulative)?[ _-]?decod", 0) == ("spec", True)
    assert _required_literal(r"(?i)\b(amd|rocm)\b", 0) is None
    assert _required_literal("AMD", 0) == ("AMD", False)
    assert _required_literal("ab?c", 0) is None and _required_literal("foo|bar", 0) is None
    assert _required_literal("(?x) a b", 0) is None


def test_prefilter_agrees_on_every_2025_title():
    records = json.load(gzip.open(shared_file("vllm-2025.json.gz")))
    rules = shipped_rules("vllm").compiled
    rs = rules.title_patterns
    assert rs is not None
    for r in records:
        assert rs.matching(r["title"]) == brute(rs, r["title"]), r["title"]


def test_prefilter_keeps_non_ascii_case_folding():
    rs = RegexSet((r"(?i)kin", r"(?i)\bqwen"))
    for text in ("KİN", "Kın", "QWEN", "ſqwen"):
        assert rs.matching(text) == brute(rs, text), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("qwenQWENſKkİi dsv4 rocm AMD spec_-ulative decod")), max_size=30))
def test_prefilter_agrees_on_arbitrary_text(text):
    rs = RegexSet((r"(?i)\bqwen", r"(?i)\bspec(ulative)?[ _-]?decod", r"AMD", r"(?i)\bdsv\d", r"(?i)kin"))
    assert rs.matching(text) == brute(rs, text)
