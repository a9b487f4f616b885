"""chatbot.history: deltas, new contributors and trends on small hand-made data (no ../shared needed)."""

import pytest

from chatbot.history import WeekHistory, WeekStats, build_trends, signed


def stats(week, total, labels=None, avg=2.0, contributors=10):
    return WeekStats(week=week, total_prs=total, key_prs=5, avg_importance=avg, contributors=contributors,
                     label_counts=labels or {}, module_counts={}, risk_tag_counts={})


def test_trend_deltas_against_the_row_before():
    t = build_trends("o/r", [stats("2026-W15", 180, {"bugfix": 31}), stats("2026-W16", 186, {"bugfix": 47, "v1": 1}, avg=2.3)])
    assert [w.total_delta for w in t.weeks] == [None, 6]
    assert t.weeks[1].label_deltas == {"bugfix": 16, "v1": 1}
    assert t.weeks[1].avg_delta == 0.3
    assert t.top_labels == ("bugfix", "v1")


def test_trends_reject_unordered_weeks():
    with pytest.raises(ValueError):
        build_trends("o/r", [stats("2026-W16", 1), stats("2026-W15", 1)])


def test_history_delta_and_missing_keys():
    h = WeekHistory(week="2026-W20", previous=stats("2026-W19", 199, {"bugfix": 52}))
    assert h.delta("total", "", 217) == 18
    assert h.delta("labels", "bugfix", 54) == 2
    assert h.delta("labels", "new", 3) == 3
    assert WeekHistory(week="2026-W20").delta("labels", "bugfix", 54) is None


def test_signed():
    assert [signed(2), signed(-3), signed(0), signed(0.3), signed(None)] == ["+2", "-3", "±0", "+0.3", ""]
