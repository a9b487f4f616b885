"""The entities of one message (``chatbot/entities.py``) at the edges of each pattern.

Counts: "top", "first" and "前" before a number only say "the first N", and 个 / 条 only count: they
are part of the count and leave the text with it, so "前5个重点PR" keeps no leftover word "前" (it
was answered with "Ignored “前”") and "上周前 3 条 PR" no "条". Wrong changes: not cutting the count,
or only its number (the ``前5`` rows fail with ``words == ("前",)``), or cutting it without its
measure word (the 条 rows fail with ``("条",)``).
"""

from __future__ import annotations

import pytest
from chatbot.weeks import IsoWeek

from chatbot.entities import extract
from chatbot.intent import cue_pattern
from chatbot.intents import INTENTS
from chatbot.module_names import default_module_index
from chatbot.queries import clean_text, parse


def entities(q: str):
    return extract(clean_text(q), default_module_index(), cues=cue_pattern(INTENTS))


@pytest.mark.parametrize("q,n,words,intent", [
    ("前5个重点PR", 5, (), "top_prs"),
    ("本周前5个重点PR", 5, (), "top_prs"),
    ("前 3 个重点 PR", 3, (), "top_prs"),
    ("上周前 3 条 PR", 3, (), "top_prs"),
    ("前5个重点PR zzqx", 5, ("zzqx",), "top_prs"),
    ("top 5 PRs", 5, (), "top_prs"),
    ("first 5 biggest PRs", 5, (), "count"),
    ("5 biggest PRs", 5, (), "count"),
    ("重点 5 个 PR", 5, (), "top_prs"),
    ("5 条重要 PR", 5, (), "top_prs"),
], ids=["zh-lead-no-space", "zh-lead-after-week", "zh-lead-spaced", "zh-lead-tiao", "zh-lead-other-word-kept",
        "en-top", "en-first-keeps-biggest", "en-trailing-biggest", "zh-zhongdian-lead",
        "zh-trailing-tiao"])
def test_a_count_takes_its_leading_word_with_it(q, n, words, intent):
    e = entities(q)
    assert (e.n, e.words) == (n, words)
    assert parse(q).intent == intent


@pytest.mark.parametrize("q,n,span,modules", [
    ("前端的重点 PR", None, None, ("frontend",)),
    ("前 3 周的重点 PR", None, "weeks:3", ()),
], ids=["qian-duan-is-a-module", "qian-3-zhou-is-a-range"])
def test_qian_without_a_count_is_no_count(q, n, span, modules):
    e = entities(q)
    assert (e.n, e.span, e.modules, e.words) == (n, span, modules, ())


@pytest.mark.parametrize("q,n,intent", [
    ("top 0", 0, "top_prs"),
    ("前0个重点PR", 0, "top_prs"),
    ("0 biggest PRs", 0, "count"),
    ("top 1", 1, "top_prs"),
    ("top 50", 50, "top_prs"),
    ("top 51", 50, "top_prs"),
    ("top 999", 50, "top_prs"),
    ("前100个重点PR", 50, "top_prs"),
    ("top 999 modules", 50, "count"),
    ("top 1000", None, "top_prs"),
], ids=["zero-en", "zero-zh", "zero-size", "one", "50-cap", "51-capped", "999-capped", "zh-three-digits",
        "three-digit-ranking", "four-digits-no-count"])
def test_a_count_is_kept_from_0_and_capped_at_50(q, n, intent):
    """0 stays 0 (it was raised to 1 and "top 0" listed one PR); three digits are one count, read by
    every intent alike (top_prs had its own pattern: "前100个" was 50 PRs with "前" ignored, "top 999
    modules" the key PRs). Wrong change: ``max(n, 1)`` fails the zero rows."""
    e = entities(q)
    assert (e.n, e.words) == (n, ())
    query = parse(q)
    assert (query.intent, getattr(query, "n")) == (intent, n)


@pytest.mark.parametrize("q,weeks,week", [
    ("top PRs W19", ("W19",), "W19"),
    ("top PRs wk19", ("W19",), "W19"),
    ("top PRs wk 19", ("W19",), "W19"),
    ("top PRs week 19", ("W19",), "W19"),
    ("top PRs 2026-W19", ("2026-W19",), "2026-W19"),
    ("top PRs 2026-wk19", ("2026-W19",), "2026-W19"),
    ("top PRs 2026wk19", ("2026-W19",), "2026-W19"),
    ("top PRs 2025 week 19", ("2025-W19",), "2025-W19"),
    ("2026年第19周的重点PR", ("2026-W19",), "2026-W19"),
    ("第19周的重点PR", ("W19",), "W19"),
    ("top PRs wk53", ("W53",), "W53"),
    ("network PRs", (), "current"),
], ids=["w", "wk", "wk-spaced", "week", "iso", "iso-wk", "iso-wk-no-dash", "year-week-words", "zh-year",
        "zh-no-year", "wk-53", "w-inside-a-word"])
def test_every_week_word_reads_the_same_week(q, weeks, week):
    """"wk19" and "2026-wk19" were no week (the answer was of the current week) though "W19" and
    "2026-W19" were, and "2025 week 19" read only "week 19" (2026-W19). One word for a week
    (w, wk, week) serves both patterns. Wrong change: ``wk`` left out of either (the wk rows fail),
    or ``week`` out of the ISO pattern (year-week-words reads 2026-W19)."""
    assert entities(q).weeks == weeks
    assert parse(q).week == week


def test_a_week_that_does_not_exist_is_told_in_every_form():
    for q in ("risks 2026-W60", "risks 2026-wk60", "risks 2026年第60周"):
        assert parse(q).model_dump()["problem"] == "bad_week:2026-W60", q


@pytest.mark.parametrize("ref,current,want", [
    ("W53", IsoWeek(2026, 20), IsoWeek(2020, 53)),  # 2026-W53 is after W20 and 2025 has 52 weeks: was 2025-W52
    ("W53", IsoWeek(2026, 53), IsoWeek(2026, 53)),
    ("W52", IsoWeek(2026, 20), IsoWeek(2025, 52)),
    ("W20", IsoWeek(2026, 20), IsoWeek(2026, 20)),
    ("W21", IsoWeek(2026, 20), IsoWeek(2025, 21)),
], ids=["w53-years-back", "w53-this-year", "w52-last-year", "same-week", "next-week-is-last-year"])
def test_a_short_week_is_the_latest_such_week_not_after_now(ref, current, want):
    from chatbot.entities import resolve_week
    assert resolve_week(ref, current) == want


@pytest.mark.parametrize("text,problem", [("top 3 wk0", "W00"), ("top 3 w54", "W54"), ("risks week 0", "W00"),
                                          ("top 3 w53", ""), ("top 3 w1", "")],
                         ids=["wk0", "w54", "week-0", "w53-exists", "w1"])
def test_a_short_week_no_year_has_is_a_problem(text, problem):
    """"top PRs wk54" answered the current week as if asked (red team): now "W54" is no ISO week."""
    from chatbot.intent import week_of
    from chatbot.queries import read
    assert week_of(text)[1] == problem
    if problem:
        assert read(text).query.problem == f"bad_week:{problem}"
