"""SqlStore against real databases (SQLite always, PostgreSQL with PRHUB_TEST_DATABASE_URL)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import event

from adapters.storage import SqlStore, StoreError

from prhub.clock import SYSTEM_CLOCK
from chatbot.errors import InputError
from chatbot.models import Author, Comment, FileChange, PullRequest, Review, ReviewThread
from chatbot.ports import PullRequestStore, WeekFetch
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs

REPO = "vllm-project/vllm"
WEEKS = [f"2026-W{n}" for n in range(15, 21)]
UTC = timezone.utc


def utc_window(week: str) -> tuple[datetime, datetime]:
    return IsoWeek.parse(week).utc_window(ZoneInfo("UTC"))


def full_pr(number: int = 7, **changes) -> PullRequest:
    """A PR with every field set, as the live GitHub source fills it."""
    pr = PullRequest(
        number=number,
        title="[Core] Fix “KV cache” leak — 修复 \x00 nul",
        url=f"https://github.com/{REPO}/pull/{number}",
        body="Body with\nlines, emoji 🚀 and a NUL \x00 byte",
        author=Author(login="alice", name="Alice A.", is_bot=False),
        merged_at=datetime(2026, 5, 12, 8, 30, 15, 123456, tzinfo=UTC),
        labels=("bug", "ready"),
        files=(FileChange(path="vllm/core/a.py", additions=10, deletions=2),
               FileChange(path="tests/test_a.py", additions=5, deletions=0),
               FileChange(path="docs/x.bin")),
        additions=15,
        deletions=2,
        changed_files=4,
        co_authors=("Bob <bob>", "claude"),
        merge_commit="0123456789abcdef0123456789abcdef01234567",
        reviews=(Review(reviewer="carol", state="APPROVED",
                        submitted_at=datetime(2026, 5, 12, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai")), body="LGTM"),
                 Review(reviewer="gemini-code-assist[bot]", is_bot=True, state="COMMENTED", body="![high] race")),
        review_threads=(ReviewThread(path="vllm/core/a.py", is_resolved=False, is_outdated=True, author="dave",
                                     author_is_bot=False, first_comment="why?",
                                     created_at=datetime(2026, 5, 11, 23, 59, 59, tzinfo=UTC)),
                        ReviewThread(path="vllm/core/b.py", line=7,
                                     comments=(Comment(author="gemini-code-assist[bot]", is_bot=True, body="![high] x"),))),
        comments=(Comment(author="erin", body="ping", created_at=datetime(2026, 5, 12, 1, 0, tzinfo=UTC)),),
        closing_issues=(101, 202),
        added_asserts=("vllm/core/a.py",),
    )
    return pr.model_copy(update=changes) if changes else pr


def six_weeks() -> list[PullRequest]:
    return [pr for w in WEEKS for pr in week_prs(w)]


def test_sqlstore_is_a_pull_request_store(store):
    port: PullRequestStore = store  # structural: mypy checks it; at runtime, the methods exist
    for name in ("upsert_prs", "merged_between", "store_week", "week_fetch", "newest_merged_at"):
        assert callable(getattr(port, name))


def test_full_pr_round_trips_exactly(store):
    pr = full_pr()
    assert store.upsert_prs(REPO, [pr]) == (1, 0)
    (back,) = store.merged_between(REPO, *utc_window("2026-W20"))
    assert back == pr
    assert back.model_dump(mode="json") == pr.model_dump(mode="json")
    assert back.model_dump_json() == pr.model_dump_json()
    assert back.merged_at.utcoffset() == timedelta(0)
    assert back.reviews[0].submitted_at == datetime(2026, 5, 12, 1, 0, tzinfo=UTC)
    assert store.upsert_prs(REPO, [pr]) == (0, 0)


def test_six_real_weeks_stored_and_import_twice_changes_nothing(store):
    prs = six_weeks()
    assert len(prs) == 1159
    assert store.upsert_prs(REPO, prs) == (1159, 0)
    assert store.count_prs(REPO) == 1159 and store.count_prs() == 1159
    assert store.upsert_prs(REPO, prs) == (0, 0)
    assert store.count_prs() == 1159
    assert store.repos() == [REPO]
    # each week comes back whole, in number order, equal to the file's PRs
    for week, size in zip(WEEKS, (180, 186, 200, 177, 199, 217)):
        got = store.merged_between(REPO, *utc_window(week))
        assert len(got) == size
        assert got == sorted(week_prs(week), key=lambda p: p.number)
    assert store.newest_merged_at(REPO) == datetime(2026, 5, 17, 19, 49, 16, tzinfo=UTC)


def test_changed_pr_counts_as_updated_and_replaces_the_row(store):
    prs = week_prs("2026-W19")
    store.upsert_prs(REPO, prs)
    changed = prs[5].model_copy(update={"title": "renamed", "labels": ("bug",)})
    new = full_pr(number=999_999, merged_at=datetime(2026, 5, 6, tzinfo=UTC))
    assert store.upsert_prs(REPO, [*prs[:5], changed, new]) == (1, 1)
    got = {p.number: p for p in store.merged_between(REPO, *utc_window("2026-W19"))}
    assert got[changed.number] == changed and got[999_999] == new and len(got) == 200
    assert store.upsert_prs(REPO, [changed]) == (0, 0)


def test_same_number_twice_in_one_call_is_one_pr_the_later_wins(store):
    a, b = full_pr(title="first"), full_pr(title="second")
    assert store.upsert_prs(REPO, [a, b]) == (1, 0)
    assert [p.title for p in store.merged_between(REPO, *utc_window("2026-W20"))] == ["second"]


def test_repos_are_separate(store):
    pr = full_pr()
    assert store.upsert_prs("a/one", [pr]) == (1, 0)
    assert store.upsert_prs("b/two", [pr]) == (1, 0)
    assert store.merged_between(REPO, *utc_window("2026-W20")) == []
    assert store.newest_merged_at(REPO) is None and store.newest_merged_at("a/one") == pr.merged_at
    assert store.repos() == ["a/one", "b/two"]


def test_window_is_half_open_in_utc_and_accepts_other_zones(store):
    start, end = utc_window("2026-W20")
    at_start = full_pr(1, merged_at=start)
    before = full_pr(2, merged_at=start - timedelta(microseconds=1))
    last = full_pr(3, merged_at=end - timedelta(microseconds=1))
    at_end = full_pr(4, merged_at=end)
    store.upsert_prs(REPO, [at_end, last, before, at_start])
    assert [p.number for p in store.merged_between(REPO, start, end)] == [1, 3]
    shanghai = ZoneInfo("Asia/Shanghai")
    assert [p.number for p in store.merged_between(REPO, start.astimezone(shanghai), end.astimezone(shanghai))] == [1, 3]
    with pytest.raises(ValueError, match="naive"):
        store.merged_between(REPO, start.replace(tzinfo=None), end)


def fetch(week: str = "2026-W20", prs: int = 217, requests: int = 14, minute: int = 0, tz: str = "UTC") -> WeekFetch:
    return WeekFetch(repo=REPO, week=week, tz=tz, started_at=datetime(2026, 5, 19, 1, minute, tzinfo=UTC),
                     finished_at=datetime(2026, 5, 19, 1, minute, 40, tzinfo=UTC), prs=prs, requests=requests)


def test_store_week_records_the_fetch_and_latest_wins(store):
    prs = week_prs("2026-W20")
    assert store.week_fetch(REPO, "2026-W20", "UTC") is None
    assert store.store_week(REPO, prs, fetch()) == (217, 0)
    assert store.week_fetch(REPO, "2026-W20", "UTC") == fetch()
    assert store.store_week(REPO, prs, fetch(minute=30, requests=0)) == (0, 0)
    assert store.week_fetch(REPO, "2026-W20", "UTC") == fetch(minute=30, requests=0)
    assert store.week_fetch(REPO, "2026-W20", "Asia/Shanghai") is None
    assert store.week_fetch(REPO, "2026-W19", "UTC") is None
    assert store.count_prs(REPO) == 217


def test_failing_store_week_leaves_nothing(store):
    w19 = week_prs("2026-W19")
    store.upsert_prs(REPO, w19)
    renamed = w19[0].model_copy(update={"title": "must not be stored"})
    # the PRs are upserted first, then the fetch row violates CHECK (prs >= 0): all rolls back
    with pytest.raises(StoreError) as err:
        store.store_week(REPO, [renamed, *week_prs("2026-W20")], fetch(prs=-1))
    assert "nothing was written" in err.value.user_message and "\n" not in err.value.user_message
    assert store.count_prs(REPO) == 199
    assert store.merged_between(REPO, *utc_window("2026-W19")) == sorted(w19, key=lambda p: p.number)
    assert store.merged_between(REPO, *utc_window("2026-W20")) == []
    assert store.week_fetch(REPO, "2026-W20", "UTC") is None


def test_store_week_interrupted_after_the_upsert_leaves_nothing(store):
    """The connection dies just before the fetch row is written (a driver-level failure)."""

    class Interrupted(Exception):
        pass

    def before_execute(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("INSERT INTO WEEK_FETCHES"):
            raise Interrupted("connection lost")

    event.listen(store.engine, "before_cursor_execute", before_execute)
    try:
        with pytest.raises(Interrupted):
            store.store_week(REPO, week_prs("2026-W20"), fetch())
    finally:
        event.remove(store.engine, "before_cursor_execute", before_execute)
    assert store.count_prs() == 0
    assert store.week_fetch(REPO, "2026-W20", "UTC") is None
    assert store.store_week(REPO, week_prs("2026-W20"), fetch()) == (217, 0)


def test_store_week_checks_repo_and_instants(store):
    with pytest.raises(InputError, match="cannot be stored under other/repo"):
        store.store_week("other/repo", [], fetch())
    naive = WeekFetch(REPO, "2026-W20", "UTC", datetime(2026, 5, 19), datetime(2026, 5, 19), 0, 0)
    with pytest.raises(ValueError, match="naive"):
        store.store_week(REPO, [], naive)
    assert store.week_fetch(REPO, "2026-W20", "UTC") is None


def test_data_survives_reopening(db_url):
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as s:
        s.store_week(REPO, [full_pr()], fetch(prs=1))
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as s:
        assert s.merged_between(REPO, *utc_window("2026-W20")) == [full_pr()]
        assert s.week_fetch(REPO, "2026-W20", "UTC") == fetch(prs=1)


def test_summary_cache_by_subject_hash_and_model(store):
    key = ("digest:vllm-project/vllm:2026-W20:en", "a" * 64, "Qwen/Qwen3-8B")
    assert store.get_summary(*key) is None
    store.put_summary(*key, {"answer": "{\"headline\": {}}"}, 1200, 300)
    store.put_summary(*key, {"answer": "other"}, 1, 1)  # same facts, same model: the first stays
    assert store.get_summary(*key) == {"answer": "{\"headline\": {}}"}
    assert store.get_summary(key[0], "b" * 64, key[2]) is None  # facts changed
    assert store.get_summary(key[0], key[1], "gpt-4o") is None  # another model
