"""The chat's window version and stored span (``prhub.web._reused``, issue 20): the store's
``window_version`` (and ``merged_span``) is reused for ``VERSION_REUSE_S`` (1 s) while this process
stores no PR, and read again at once after a PR write of this process; a write the process did not
make (another process's) shows after 1 s. Real 2026-W20 PRs in a SQLite store.

Wrong changes these fail on: no reuse (back-to-back questions read the store twice), ``<`` -> ``<=``
(a version 1.0 s old is reused), reuse across this process's own write (a stored PR waits a second),
``pr_writes`` not bumped by ``store_week``, the span read on every answer or kept past a PR this
process stores."""

from __future__ import annotations

import types
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

import prhub.web as web
from adapters.storage import SqlStore
from chatbot.ports import WeekFetch
from prhub.clock import SYSTEM_CLOCK
from tests.conftest import week_prs

REPO = "vllm-project/vllm"
START = datetime(2026, 5, 4, tzinfo=timezone.utc)
END = datetime(2026, 5, 25, tzinfo=timezone.utc)


@pytest.fixture
def world(tmp_path, monkeypatch):
    now = [500.0]
    monkeypatch.setattr(web, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    store = SqlStore.open(f"sqlite:///{tmp_path / 'v.db'}", clock=SYSTEM_CLOCK)
    store.upsert_prs(REPO, week_prs("2026-W20"))
    reads: list[str] = []
    real = store.window_version
    monkeypatch.setattr(store, "window_version", lambda *a: reads.append("read") or real(*a))
    yield store, web._store_version(store, REPO), now, reads
    store.close()


@pytest.mark.parametrize(("later", "reads_after"), [(0.0, 1), (0.999, 1), (1.0, 2)],
                         ids=["back-to-back", "0.999s-reused", "1.0s-read-again"])
def test_a_version_is_reused_for_under_a_second(world, later, reads_after):
    _store, version, now, reads = world
    first = version(START, END)
    assert first == f"{len(week_prs('2026-W20'))}:{len(week_prs('2026-W20'))}"
    now[0] += later
    assert version(START, END) == first
    assert len(reads) == reads_after


def test_a_pr_this_process_stores_is_seen_by_the_next_question(world):
    store, version, _now, _reads = world
    before = version(START, END)
    pr = week_prs("2026-W20")[0]
    store.upsert_prs(REPO, [pr.model_copy(update={"title": pr.title + " (edited)"})])
    assert version(START, END) != before
    fetched = version(START, END)
    store.store_week(REPO, [pr], WeekFetch(repo=REPO, week="2026-W20", tz="UTC", started_at=START, finished_at=END,
                                           prs=1, requests=1))
    assert version(START, END) != fetched


def test_a_write_of_another_process_shows_after_a_second(world):
    store, version, now, _reads = world
    before = version(START, END)
    with store.engine.begin() as conn:  # what another process's write looks like: no pr_writes bump
        conn.execute(text("UPDATE pull_requests SET revision = revision + 1 WHERE number = :n"),
                     {"n": week_prs("2026-W20")[0].number})
    now[0] += 0.5
    assert version(START, END) == before
    now[0] += 0.5
    assert version(START, END) != before


def test_the_stored_span_is_reused_until_this_process_stores_a_pr(world, monkeypatch):
    store, _version, now, _reads = world
    spans: list[int] = []
    real = store.merged_span
    monkeypatch.setattr(store, "merged_span", lambda repo: spans.append(1) or real(repo))
    history = web._ReusedSpanHistory(store, REPO)
    first = history.merged_span()
    assert first == (min(p.merged_at for p in week_prs("2026-W20")), max(p.merged_at for p in week_prs("2026-W20")))
    now[0] += 0.999
    assert history.merged_span() == first and len(spans) == 1
    later = week_prs("2026-W20")[0].model_copy(update={"number": 99999, "merged_at": first[1] + timedelta(hours=1)})
    store.upsert_prs(REPO, [later])
    assert history.merged_span() == (first[0], first[1] + timedelta(hours=1)) and len(spans) == 2
