"""The store's history aggregates (issue 13) against SQLite and PostgreSQL: the same answers as the
in-memory :class:`prhub.report.PrList`, from indexed columns, and history/trends/archive built from
them equal to what whole-PR loading gave."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import event

from tests.digests import written_digest
from chatbot.models import Author, PullRequest
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from prhub.report import PrList, StoreReports, build_report, history_for, trend_weeks, trends_for, week_digest
from tests.adapters.storage.test_sql_store import REPO, WEEKS, six_weeks, utc_window

UTC = timezone.utc
T0 = datetime(2026, 5, 12, 8, 0, tzinfo=UTC)


def pr(number: int, login: str | None, when: datetime, *, is_bot: bool = False) -> PullRequest:
    author = Author(login=login, is_bot=is_bot) if login is not None else None
    return PullRequest(number=number, title=f"t{number}", merged_at=when, author=author, body="x" * 50)


SMALL = [pr(1, "alice", T0 - timedelta(days=30)), pr(2, "renovate", T0 - timedelta(days=20), is_bot=True),
         pr(3, "dependabot[bot]", T0 - timedelta(days=10)), pr(4, None, T0 - timedelta(days=5)),
         pr(5, "bob", T0), pr(6, "alice", T0 + timedelta(hours=1))]


@pytest.mark.parametrize("lookup", ["store", "list"])
def test_aggregates_answer_like_the_prs_say(store, lookup):
    store.upsert_prs(REPO, SMALL)
    src = store if lookup == "store" else PrList(SMALL)
    logins = ["alice", "bob", "renovate", "dependabot[bot]", "nobody"]
    assert src.authors_before(REPO, T0, logins) == {"alice"}  # bots (flag or [bot] suffix) never count
    assert src.authors_before(REPO, T0 + timedelta(hours=1), logins) == {"alice", "bob"}
    assert src.authors_before(REPO, T0 - timedelta(days=30), logins) == set()  # half-open: strictly before
    assert src.oldest_merged_at(REPO) == T0 - timedelta(days=30)
    assert src.newest_merged_at(REPO) == T0 + timedelta(hours=1)
    assert src.newest_merged_at(REPO, before=T0) == T0 - timedelta(days=5)
    assert src.newest_merged_at(REPO, before=T0 - timedelta(days=30)) is None
    assert src.any_merged_between(REPO, T0, T0 + timedelta(seconds=1))
    assert not src.any_merged_between(REPO, T0 + timedelta(seconds=1), T0 + timedelta(hours=1))
    assert src.any_merged_between(REPO, None, T0 - timedelta(days=29))
    assert not src.any_merged_between(REPO, None, T0 - timedelta(days=30))
    assert src.merged_times(REPO, T0 - timedelta(days=10), T0 + timedelta(hours=1)) == [
        T0 - timedelta(days=10), T0 - timedelta(days=5), T0]
    assert src.merged_times(REPO, T0, None) == [T0, T0 + timedelta(hours=1)]


def test_the_stored_span_is_the_oldest_and_newest_merge_in_one_query(store):
    from chatbot.pr_history import ListHistory, StoreHistory

    store.upsert_prs(REPO, SMALL)
    statements: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    span = (T0 - timedelta(days=30), T0 + timedelta(hours=1))
    assert StoreHistory(store, REPO).merged_span() == span
    assert len(statements) == 1
    assert ListHistory(SMALL).merged_span() == span
    assert StoreHistory(store, "o/other").merged_span() is None and ListHistory([]).merged_span() is None


def test_other_repositories_do_not_leak(store):
    store.upsert_prs(REPO, SMALL)
    assert store.oldest_merged_at("o/other") is None and store.newest_merged_at("o/other") is None
    assert store.authors_before("o/other", T0 + timedelta(days=1), ["alice"]) == set()
    assert not store.any_merged_between("o/other", None, T0 + timedelta(days=1))
    assert store.merged_times("o/other", None) == []


def _statements(store):
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    return seen


def test_report_history_reads_no_pr_body_outside_its_window(store):
    """The W20 report over six stored weeks equals the one from PRs in memory, and the only
    statements reading whole PRs (``data``) are bounded by ``merged_at >=`` and ``<``."""
    prs = six_weeks()
    store.upsert_prs(REPO, prs)
    rules = shipped_rules("vllm")
    d = week_digest(store, REPO, IsoWeek.parse("2026-W20"), "UTC", rules, "en")
    seen = _statements(store)
    from_store = build_report(d, store, rules, charts=False)
    from_list = build_report(d, PrList(prs), rules, charts=False)
    assert from_store.history == from_list.history and from_store.trends == from_list.trends
    h = from_store.history
    assert h.previous is not None and h.previous.week == "2026-W19" and h.history_start == "2026-W15"
    assert h.history_weeks == 5 and h.new_contributors  # real new authors of W20 after five weeks
    whole = [s for s in seen if s.startswith("SELECT pull_requests.data")]
    assert whole and all(">=" in s and "<" in s for s in whole)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_reports_trend_reads_its_own_week_from_its_digest(lang, monkeypatch):
    """``trends_for(..., digest=d)`` equals the trend that analyses every week, and analyses d's week no more."""
    prs = six_weeks()
    rules = shipped_rules("vllm")
    week = IsoWeek.parse("2026-W20")
    d = week_digest(PrList(prs), REPO, week, "UTC", rules, lang)
    full = trends_for(PrList(prs), REPO, trend_weeks(week, 8), "UTC", rules, lang)
    import chatbot.digest_service as ds

    analysed: list[str] = []
    real = ds.DigestService.analysis
    monkeypatch.setattr(ds.DigestService, "analysis", lambda self, r, w: analysed.append(str(w)) or real(self, r, w))
    assert trends_for(PrList(prs), REPO, trend_weeks(week, 8), "UTC", rules, lang, digest=d) == full
    assert len(analysed) == 7 and "2026-W20" not in analysed


def test_history_equals_the_whole_history_definition(store):
    """Against the pre-aggregate definition (every earlier PR loaded): new contributors of W20."""
    prs = six_weeks()
    store.upsert_prs(REPO, prs)
    rules = shipped_rules("vllm")
    week = IsoWeek.parse("2026-W20")
    start, _ = utc_window("2026-W20")
    d = written_digest(store.merged_between(REPO, start - timedelta(days=7), start + timedelta(days=7)), repo=REPO,
                     week=week, rules=rules)
    earlier = [p for p in prs if p.merged_at < start]
    humans = {p.author.login for p in earlier if p.author and not p.author.is_bot and not p.author.login.endswith("[bot]")}
    expected = [c.login for c in d.contributors if c.login not in humans]
    assert [n.login for n in history_for(store, d, rules).new_contributors] == expected and expected


def test_archive_pages_hold_104_weeks_and_link_older(store):
    weeks = 110
    base = datetime(2024, 1, 3, 12, tzinfo=UTC)  # a Wednesday of 2024-W01
    store.upsert_prs(REPO, [pr(i + 1, "alice", base + timedelta(weeks=i)) for i in range(weeks)])
    reports = StoreReports(store)
    rows, older = reports.weeks(REPO)
    assert len(rows) == 104 and rows[0].week == str(IsoWeek.containing(base + timedelta(weeks=109), UTC))
    assert older == rows[-1].week == "2024-W07"
    rest, none = reports.weeks(REPO, before=older)
    assert [r.week for r in rest] == [f"2024-W0{n}" for n in range(6, 0, -1)] and none is None
    page = reports.archive(REPO, "en").decode()
    assert 'href="./?lang=en&amp;before=2024-W07">Older weeks</a>' in page
    assert "Older weeks" not in reports.archive(REPO, "en", before=older).decode()
    assert reports.weeks(REPO, before="2024-W01") == ([], None)


def test_window_version_changes_with_every_insert_and_content_change_of_that_window_only(store):
    store.upsert_prs(REPO, SMALL)
    start, end = T0 - timedelta(days=1), T0 + timedelta(days=1)
    v0 = store.window_version(REPO, start, end)
    assert v0 == "2:2"  # PRs 5 and 6, revision 1 each
    store.upsert_prs(REPO, [SMALL[4]])  # unchanged: same token
    assert store.window_version(REPO, start, end) == v0
    store.upsert_prs(REPO, [SMALL[4].model_copy(update={"title": "retitled"})])
    assert store.window_version(REPO, start, end) == "2:3"
    store.upsert_prs(REPO, [pr(7, "carol", end - timedelta(microseconds=1)), pr(8, "dave", end)])  # 8: outside
    assert store.window_version(REPO, start, end) == "3:4"
    assert store.window_version("other/repo", start, end) == "0:0"
    assert store.pr_by_number(REPO, 5).title == "retitled" and store.pr_by_number(REPO, 99) is None


def test_report_pages_show_a_recent_pr_the_sync_completed_without_a_newer_merge(store):
    # the webhook stored #6 thin (no files); the sync replaces it with the full record: same merged_at
    from chatbot.models import FileChange

    store.upsert_prs(REPO, SMALL)
    reports = StoreReports(store)
    week = str(IsoWeek.containing(T0, UTC))
    assert "vllm/v1/worker/gpu_runner.py" not in reports.render(REPO, week, "en", "json").decode()
    full = SMALL[5].model_copy(update={"files": (FileChange(path="vllm/v1/worker/gpu_runner.py", additions=5),),
                                       "additions": 5, "changed_files": 1})
    store.upsert_prs(REPO, [full])
    assert "vllm/v1/worker/gpu_runner.py" in reports.render(REPO, week, "en", "json").decode()


def test_titles_between_are_the_window_prs_number_title_and_merge(store):
    """The PR lookup's revert search reads titles only (issue 20: it validated 588 whole PRs on every
    ask): the same numbers, titles and instants as the whole PRs, half-open, number order, on both stores."""
    from chatbot.pr_history import ListHistory, PRTitle, StoreHistory

    prs = six_weeks()
    store.upsert_prs(REPO, prs)
    start, end = utc_window("2026-W18")
    got = StoreHistory(store, REPO).titles_between(start, end)
    assert got == [PRTitle(p.number, p.title, p.merged_at) for p in store.merged_between(REPO, start, end)]
    assert got == ListHistory(prs).titles_between(start, end)
    assert len(got) == sum(start <= p.merged_at < end for p in prs) > 100
    assert [t.number for t in got] == sorted(t.number for t in got)
    first = min(p.merged_at for p in prs)
    at_first = sorted(p.number for p in prs if p.merged_at == first)
    assert [n for n, _, _ in store.titles_between(REPO, first, first + timedelta(seconds=1))] == at_first
    assert store.titles_between(REPO, first - timedelta(days=1), first) == []  # end excluded
    assert store.titles_between("o/other", start, end) == []


def first_merges(store) -> dict[str, datetime]:
    from sqlalchemy import select

    from adapters.storage.schema import FIRST_MERGES as t

    with store.engine.connect() as conn:
        return {login: when for _repo, login, when in conn.execute(select(t).where(t.c.repo == REPO))}


def test_first_merges_hold_each_human_authors_earliest_merge(store):
    """Issue 20: new contributors from a table with one row per author, kept by every upsert."""
    store.upsert_prs(REPO, SMALL)
    assert first_merges(store) == {"alice": T0 - timedelta(days=30), "bob": T0}  # bots and no author: none
    store.upsert_prs(REPO, [pr(7, "bob", T0 - timedelta(days=40)), pr(8, "alice", T0 + timedelta(days=3))])
    assert first_merges(store) == {"alice": T0 - timedelta(days=30), "bob": T0 - timedelta(days=40)}  # only earlier lowers
    store.upsert_prs(REPO, [pr(9, "carol", T0 + timedelta(days=1))])
    assert first_merges(store)["carol"] == T0 + timedelta(days=1)
    assert store.authors_before(REPO, T0 + timedelta(days=1), ["carol"]) == set()  # strictly before
    assert store.authors_before(REPO, T0 + timedelta(days=1, seconds=1), ["carol"]) == {"carol"}
    assert store.authors_before("o/other", T0 + timedelta(days=9), ["alice", "bob", "carol"]) == set()


def test_first_merges_of_real_weeks_match_the_prs(store):
    prs = six_weeks()
    store.upsert_prs(REPO, prs)
    humans: dict[str, datetime] = {}
    for p in prs:
        if p.author and not p.author.is_bot and not p.author.login.endswith("[bot]"):
            humans[p.author.login] = min(humans.get(p.author.login, p.merged_at), p.merged_at)
    assert first_merges(store) == humans and len(humans) > 300
    start = utc_window("2026-W20")[0]
    w20 = sorted({p.author.login for p in prs if p.author and utc_window("2026-W20")[0] <= p.merged_at})
    assert store.authors_before(REPO, start, w20) == PrList(prs).authors_before(REPO, start, w20)


def test_migration_0009_fills_first_merges_from_the_stored_prs(db_url):
    from alembic import command

    from adapters.storage import SqlStore
    from adapters.storage.store import alembic_config
    from prhub.clock import SYSTEM_CLOCK

    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        store.upsert_prs(REPO, SMALL + [pr(7, "bob", T0 - timedelta(days=40))])
        with store.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0008_reply_outbox")
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:  # upgraded on open
        assert first_merges(store) == {"alice": T0 - timedelta(days=30), "bob": T0 - timedelta(days=40)}
