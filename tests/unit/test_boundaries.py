"""Boundary cases at exactly each threshold of the analysis, the week window, chat and Slack cuts.

Each test names the wrong change it catches (they were surviving hand-made mutations, issue 10):
the label bonus 1.0 -> 0.5, the themes cut-off 0.25 -> 0.5, the follow-up-fix window 7 -> 14 days,
the week window closed at its end, tests-removed ``>`` -> ``>=``, the missing-tests minimum of 30
source lines, the fuzzy module match 0.8 -> 0.7, and a Slack cut that splits an ``&entity;``.
"""

from __future__ import annotations

import difflib
import re
from datetime import datetime, timedelta, timezone

import pytest

from adapters.slack.blocks import ELLIPSIS, _cut, escape
from chatbot.analysis import importance
from tests.digests import written_digest
from chatbot.models import Author, FileChange, PullRequest
from chatbot.queries import ModuleIndex
from chatbot.rules import ImportanceWeights, Rules, shipped_rules
from chatbot.weeks import IsoWeek, load_zone

VLLM = shipped_rules("vllm")
WEEK = IsoWeek.parse("2026-W20")
START = datetime(2026, 5, 11, tzinfo=timezone.utc)


def pr(number, title="Change", files=(), at=START + timedelta(days=1), body=""):
    fs = tuple(FileChange(path=p, additions=a, deletions=d) for p, a, d in files)
    return PullRequest(
        number=number, title=title, body=body, url=f"https://github.com/o/r/pull/{number}",
        author=Author(login="alice"), merged_at=at, files=fs,
        additions=sum(f.additions for f in fs), deletions=sum(f.deletions for f in fs), changed_files=len(fs),
    )


def digest(prs, rules=VLLM, tz="UTC", week=WEEK):
    return written_digest(prs, repo="o/r", week=week, rules=rules, tz=tz)


def tags(prs, number, rules=VLLM):
    return next(p for p in digest(prs, rules).prs if p.number == number).risk_tags


# -- importance: label bonus 1.0 per label (mutation 1.0 -> 0.5) ---------------------------------

def test_label_bonus_is_one_point_per_label_capped_at_two():
    plain = dict(code_lines=0, code_files=0, core_files=0, risk_tags=(), n_modules=1, non_code=False,
                 weights=ImportanceWeights())
    assert importance(labels=(), **plain) == 0.0
    for label in ("feature", "new-model", "model", "performance"):
        assert importance(labels=(label,), **plain) == 1.0
    assert importance(labels=("feature", "performance"), **plain) == 2.0
    assert importance(labels=("feature", "performance", "model"), **plain) == 2.0  # label_max
    assert importance(labels=("bugfix",), **plain) == 0.0


def test_a_feature_prefix_adds_exactly_one_point_to_a_real_pr_shape():
    files = [("vllm/entrypoints/openai/serving_chat.py", 40, 10)]
    d = digest([pr(1, "Add streaming option", files), pr(2, "[Feature] Add streaming option", files)])
    by = {p.number: p for p in d.prs}
    assert "feature" in by[2].labels and "feature" not in by[1].labels
    assert round(by[2].importance - by[1].importance, 1) == 1.0


# -- themes: a module joins the first two when its weight is >= 0.25 x the top weight -------------

def _theme_rules(small_bonus: float) -> Rules:
    return Rules.model_validate({
        "prefix_aliases": {"big": ["big"], "mid": ["mid"], "small": ["small"]},
        "modules": [{"id": m, "paths": [f"{m}/**"]} for m in ("a", "b", "c")],
        "importance": {"size": 0, "files": 0, "core": 0, "risk_tag": 0, "module": 0, "label_max": 10,
                       "label_bonus": {"big": 4.0, "mid": 2.0, "small": small_bonus}},
    })


def _theme_prs():
    return [pr(1, "[big] x", [("a/x.py", 1, 0)]), pr(2, "y", [("a/y.py", 1, 0)]),
            pr(3, "[mid] x", [("b/x.py", 1, 0)]), pr(4, "y", [("b/y.py", 1, 0)]),
            pr(5, "[small] x", [("c/x.py", 1, 0)]), pr(6, "y", [("c/y.py", 1, 0)])]


def test_third_theme_at_exactly_a_quarter_of_the_top_weight_is_kept():
    d = digest(_theme_prs(), _theme_rules(1.0))  # weights 4, 2, 1 = 0.25 x 4
    assert [(t.module, t.weight) for t in d.themes] == [("a", 4.0), ("b", 2.0), ("c", 1.0)]


def test_third_theme_just_below_a_quarter_of_the_top_weight_is_dropped():
    d = digest(_theme_prs(), _theme_rules(0.9))
    assert [t.module for t in d.themes] == ["a", "b"]


# -- follow-up-fix: the cited PR merged at most 7 days before the week starts ---------------------

@pytest.mark.parametrize("before,expected", [
    (timedelta(days=7), True),                         # day 7: in
    (timedelta(days=7, microseconds=1), False),        # a moment before day 7: out
    (timedelta(days=8), False),                        # day 8: out (a 14-day window would take it)
    (timedelta(days=-1), True),                        # earlier in the same week
])
def test_follow_up_fix_window_is_seven_days_before_the_week(before, expected):
    old = pr(100, "Speed up sampler", [("vllm/v1/sample/sampler.py", 5, 5)], at=START - before)
    fix = pr(200, "[Bugfix] Fix sampler regression from #100", [("vllm/v1/sample/sampler.py", 2, 1)],
             at=START + timedelta(days=2))
    assert ("follow-up-fix" in tags([old, fix], 200)) is expected


# -- the week window is half-open: [Monday 00:00, next Monday 00:00) in the zone -----------------

@pytest.mark.parametrize("tz", ["UTC", "Asia/Shanghai", "America/Los_Angeles"])
def test_week_window_excludes_the_instant_it_ends(tz):
    start, end = WEEK.utc_window(load_zone(tz))
    prs = [pr(1, at=start), pr(2, at=end - timedelta(microseconds=1)), pr(3, at=end),
           pr(4, at=start - timedelta(microseconds=1))]
    d = digest(prs, tz=tz)
    assert [p.number for p in d.prs] == [1, 2]
    assert IsoWeek.containing(end, load_zone(tz)) == WEEK.next()
    assert IsoWeek.containing(end - timedelta(microseconds=1), load_zone(tz)) == WEEK


# -- tests-removed: net-removed test lines strictly above 50 -------------------------------------

@pytest.mark.parametrize("deleted,expected", [(60, False), (61, True)])  # net -50 (equal: no), -51 (yes)
def test_tests_removed_needs_more_than_the_threshold(deleted, expected):
    p = pr(1, "Trim tests", [("tests/test_sampler.py", 10, deleted)])
    assert VLLM.thresholds.tests_removed_min_lines == 50
    assert ("tests-removed" in tags([p], 1)) is expected


# -- missing-tests: at least 100 lines added to behavioural source and no test file ---------------

@pytest.mark.parametrize("lines,expected", [(99, False), (100, True)])
def test_missing_tests_starts_at_a_hundred_added_source_lines(lines, expected):
    p = pr(1, "Tweak", [("vllm/utils/misc_helpers.py", lines, 40)])
    assert VLLM.thresholds.missing_tests_min_lines == 100
    assert ("missing-tests" in tags([p], 1)) is expected


# -- core-path-change: at least 100 changed lines in core paths -----------------------------------

@pytest.mark.parametrize("added,expected", [(59, False), (60, True)])  # +59/-40 = 99, +60/-40 = 100
def test_core_path_change_starts_at_a_hundred_core_lines(added, expected):
    p = pr(1, "Tweak", [("vllm/v1/worker/gpu_model_runner.py", added, 40), ("tests/test_x.py", 1, 0)])
    assert VLLM.thresholds.core_path_min_lines == 100
    assert ("core-path-change" in tags([p], 1)) is expected


# -- large-change: more than 1,000 lines or 30 files outside tests ---------------------------------

@pytest.mark.parametrize("added,expected", [(1000, False), (1001, True)])
def test_large_change_counts_lines_outside_tests(added, expected):
    p = pr(1, "Big", [("vllm/big.py", added, 0), ("tests/test_big.py", 900, 0)])
    assert ("large-change" in tags([p], 1)) is expected


# -- chat module names: fuzzy match at ratio >= 0.8 ----------------------------------------------

def _index() -> ModuleIndex:
    return ModuleIndex(Rules.model_validate({"modules": [{"id": "m", "name": "abcdefghij", "paths": ["m/**"]}]}))


@pytest.mark.parametrize("typed,ratio,expected", [
    ("abcdefghxy", 0.8, "m"),     # exactly 0.8: matched
    ("abcdefgxyz", 0.7, None),    # 0.7: not matched (a 0.7 threshold would match it)
    ("abcdefghxyz", 0.7619, None),  # between 0.7 and 0.8
])
def test_fuzzy_module_match_at_exactly_point_eight(typed, ratio, expected):
    assert round(difflib.SequenceMatcher(None, typed, "abcdefghij").ratio(), 4) == ratio
    assert _index().resolve(typed) == (expected, ())


# -- Slack: a cut never splits an entity ----------------------------------------------------------

_PARTIAL_ENTITY = re.compile(r"&(?!amp;|lt;|gt;)")


@pytest.mark.parametrize("entity_char", ["&", "<", ">"])
def test_slack_cut_never_splits_an_entity(entity_char):
    raw = escape("x" * 40 + entity_char + "y" * 40)
    entity = escape(entity_char)
    at = raw.index(entity)
    for limit in range(at - 1, at + len(entity) + 3):
        out = _cut(raw, limit)
        assert len(out) <= limit
        assert out.endswith(ELLIPSIS)
        assert not _PARTIAL_ENTITY.search(out), (limit, out)
        # everything that fits before the ellipsis is kept, except a part of the entity
        fits = limit - len(ELLIPSIS)
        expected = raw[:fits] if fits <= at or fits >= at + len(entity) else raw[:at]
        assert out == expected + ELLIPSIS, limit
