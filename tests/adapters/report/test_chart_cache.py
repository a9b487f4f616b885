"""Charts are cached in the process by their data (adapters/report/charts.py ``_cached``): the same
series and texts give the same PNG without drawing again; other data, another language or another
:data:`CHART_VERSION` draw a new one; the cache stays at :data:`CACHE_SIZE`.

Kills the mutations: a key without the data (every week would get the first week's chart) and an
unbounded cache. (A key without the texts is not caught here: en and zh charts differ by font too.)
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from adapters.report import charts
from adapters.report.charts import chart_images, main_chart
from chatbot.models import Author, PullRequest
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.digests import written_digest

WEEK = IsoWeek.parse("2026-W20")
T0 = datetime(2026, 5, 12, 8, 0, tzinfo=timezone.utc)


def digest(n: int, lang: str = "en"):
    prs = [PullRequest(number=i, title=f"PR {i}", merged_at=T0 + timedelta(minutes=i), labels=("bug",) * (i % 2),
                       author=Author(login=f"user{i % 3}")) for i in range(1, n + 1)]
    return written_digest(prs, repo="a/b", week=WEEK, rules=shipped_rules("generic"), lang=lang)


def test_same_data_is_drawn_once_and_other_data_again():
    charts._CACHE.clear()
    first = chart_images(digest(5))
    assert [c.id for c in first] == ["labels", "modules", "contributors"]
    assert len(charts._CACHE) == 3
    again = chart_images(digest(5))
    assert [c.png for c in again] == [c.png for c in first] and len(charts._CACHE) == 3
    assert all(a.png is b.png for a, b in zip(again, first))  # the cached bytes, not a second drawing
    assert main_chart(digest(5)).png is first[0].png  # the chat chart is the report's labels chart
    other = chart_images(digest(7))
    assert len(charts._CACHE) == 6 and all(a.png != b.png for a, b in zip(other, first))
    zh = chart_images(digest(5, "zh"))
    assert len(charts._CACHE) == 9 and zh[0].png != first[0].png  # titles in Chinese


def test_a_new_chart_version_draws_again(monkeypatch):
    charts._CACHE.clear()
    before = chart_images(digest(4))[0].png
    monkeypatch.setattr(charts, "CHART_VERSION", charts.CHART_VERSION + "-next")
    after = chart_images(digest(4))[0].png
    assert after == before and after is not before and len(charts._CACHE) == 6  # drawn again, same drawing


def test_the_cache_is_bounded(monkeypatch):
    charts._CACHE.clear()
    monkeypatch.setattr(charts, "CACHE_SIZE", 4)
    for n in range(2, 6):
        chart_images(digest(n))
    assert len(charts._CACHE) == 4
