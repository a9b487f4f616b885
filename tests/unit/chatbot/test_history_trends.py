"""Trend top-N (chatbot/history.py ``build_trends``): the ``top`` keys with the largest totals over
all the weeks, ties by key, exactly ``top`` when there are more.

Kills the mutation ``[:top]`` -> ``[:top + 1]`` (the old test had two labels and ``top`` 5, so any
cut at or past 2 passed) and a tie order other than by key.
"""

from __future__ import annotations

import pytest

from chatbot.history import WeekStats, build_trends


def _stats(week: str, labels: dict[str, int]) -> WeekStats:
    return WeekStats(week=week, total_prs=sum(labels.values()), key_prs=0, avg_importance=0.0, contributors=0,
                     label_counts=labels, module_counts={k.upper(): v for k, v in labels.items()},
                     risk_tag_counts={})


W1 = {"bugfix": 30, "ci/build": 12, "rocm": 9, "v1": 7, "doc": 4, "frontend": 2}
W2 = {"bugfix": 20, "ci/build": 9, "rocm": 3, "v1": 6, "doc": 2, "frontend": 1, "tpu": 5}
# totals: bugfix 50, ci/build 21, v1 13, rocm 12, doc 6, tpu 5, frontend 3


@pytest.mark.parametrize("top,labels", [
    (1, ("bugfix",)),
    (4, ("bugfix", "ci/build", "v1", "rocm")),
    (5, ("bugfix", "ci/build", "v1", "rocm", "doc")),              # the default; 7 keys, 5 kept
    (6, ("bugfix", "ci/build", "v1", "rocm", "doc", "tpu")),
    (7, ("bugfix", "ci/build", "v1", "rocm", "doc", "tpu", "frontend")),
    (8, ("bugfix", "ci/build", "v1", "rocm", "doc", "tpu", "frontend")),  # fewer keys than top
], ids=["top-1", "top-4", "top-5", "top-6", "top-7", "top-8"])
def test_top_n_keeps_exactly_the_n_largest_totals(top, labels):
    t = build_trends("o/r", [_stats("2026-W19", W1), _stats("2026-W20", W2)], top=top)
    assert t.top_labels == labels
    assert t.top_modules == tuple(k.upper() for k in labels)
    assert t.top_risk_tags == ()


def test_the_default_is_five_and_ties_go_by_key():
    tied = {"zeta": 4, "alpha": 4, "mid": 4, "beta": 4, "omega": 4, "gamma": 4}
    t = build_trends("o/r", [_stats("2026-W20", tied)])
    assert t.top_labels == ("alpha", "beta", "gamma", "mid", "omega")
