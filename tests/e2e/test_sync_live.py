"""Live data end to end: the sync job keeps "this week" current as the clock moves through the real
2026-W20, against the fake GitHub (which only shows PRs merged before its clock) — 100 new PRs in
at most 4 requests, 0 requests when nothing changed — and the signed GitHub webhook stores a merged
PR at once. Chat answers (signed Slack mentions to the HTTP app) say "so far, as of HH:MM (UTC)"."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from datetime import datetime, timedelta, timezone

import pytest
from apscheduler.schedulers.background import BackgroundScheduler

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from prhub.sync import PrSync, create_webhook_app, store_webhook_pr
from prhub.config import parse_config
from scheduler.sync import add_sync_jobs, run_sync
from tests.conftest import shared_file, week_prs
from tests.fakes.github_server import FakeGitHub
from tests.fakes.inbound import MovableClock, Server, build_bot, post, slack_event, slack_headers
from tests.fakes.slack_server import FakeSlack

REPO = "vllm-project/vllm"
SECRET = "webhook-secret-test"


def merged_by(t: datetime) -> list:
    return [p for p in week_prs("2026-W20") if p.merged_at <= t]


def ask(bot, slack, text: str, ts: str) -> str:
    body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_LIVE", "ts": ts,
                        "text": f"<@U_BOT> {text}"}, event_id=f"Ev{ts}")
    assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200
    assert slack.wait_for(lambda: any(p["thread_ts"] == ts for p in slack.posts))
    return json.dumps([p["blocks"] for p in slack.posts if p["thread_ts"] == ts], ensure_ascii=False)


def deliver(url: str, payload, *, event: str = "pull_request"):
    """POST a delivery signed with SECRET, as GitHub sends it."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    sig = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return post(url + "/github/webhook", body, {"Content-Type": "application/json", "X-GitHub-Event": event,
                                                 "X-Hub-Signature-256": sig})


def merged_payload(number: int, merged_at: str, **pr) -> dict:
    return {"action": "closed", "repository": {"full_name": REPO},
            "pull_request": {"merged": True, "number": number, "merged_at": merged_at, **pr}}


@pytest.fixture
def world(tmp_path):
    shared_file("github-schema.graphql")
    shared_file("vllm", "2026-W19.json")
    clock = MovableClock(datetime(2026, 5, 13, 12, 0, tzinfo=timezone.utc))  # Wednesday of 2026-W20
    db = f"sqlite:///{tmp_path / 'live.db'}"
    with FakeGitHub(clock=clock.now) as github, FakeSlack() as slack:
        store = SqlStore.open(db, clock=SYSTEM_CLOCK)
        sync = PrSync(store, token=github.token, base_url=github.base_url, clock=clock)
        bot = build_bot(db, clock=clock, digest_provider=None, slack=slack)
        try:
            yield clock, github, slack, store, sync, bot
        finally:
            bot.close()
            store.close()


def test_sync_keeps_this_week_current_with_a_moving_clock(world):
    clock, github, slack, store, sync, bot = world
    first = sync.sync(REPO)
    assert first.fetched and first.inserted == len(merged_by(clock.now())) + len(week_prs("2026-W19"))
    text = ask(bot, slack, "risks this week", "1747137600.000100")
    assert "2026-W20 so far, as of 12:00 (UTC)." in text
    total = len(merged_by(clock.now()))
    assert re.search(rf"of {total} PRs carry risk tags", text), text

    # nothing merged since: GitHub answers 304 to the conditional probe, no request counted
    again = sync.sync(REPO)
    assert (again.fetched, again.requests) == (False, 0)

    # exactly 100 PRs merge: one probe, two search pages of 50 (plus follow-up pages if any)
    later = sorted(p.merged_at for p in week_prs("2026-W20") if p.merged_at > clock.now())
    clock.t = later[99]
    hundred = sync.sync(REPO)
    assert hundred.fetched and hundred.inserted == 100 and hundred.requests <= 4, hundred
    assert sync.sync(REPO).requests == 0
    local = clock.now()
    text = ask(bot, slack, "risks this week", "1747137600.000200")
    assert f"as of {local:%H:%M} (UTC)" in text
    assert re.search(rf"of {len(merged_by(local))} PRs carry risk tags", text)
    assert len(store.merged_between(REPO, datetime(2026, 5, 11, tzinfo=timezone.utc), local + timedelta(seconds=1))) \
        == len(merged_by(local))


def test_the_webhook_stores_a_merged_pr_at_once_and_the_next_sync_completes_it(world):
    clock, github, slack, store, sync, bot = world
    sync.sync(REPO)
    pr = next(p for p in week_prs("2026-W20") if p.merged_at > clock.now() + timedelta(hours=1))
    clock.t = pr.merged_at + timedelta(minutes=1)
    app = Server(create_webhook_app(SECRET, [REPO], sync.note_webhook_pr))
    try:
        payload = {"action": "closed", "repository": {"full_name": REPO},
                   "pull_request": {"number": pr.number, "title": pr.title, "merged": True,
                                    "merged_at": pr.merged_at.isoformat().replace("+00:00", "Z"),
                                    "html_url": pr.url, "user": {"login": pr.author.login, "type": "User"},
                                    "labels": [{"name": lb} for lb in pr.labels], "additions": pr.additions,
                                    "deletions": pr.deletions, "changed_files": pr.changed_files}}
        body = json.dumps(payload).encode()
        sig = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        headers = {"Content-Type": "application/json", "X-GitHub-Event": "pull_request", "X-Hub-Signature-256": sig}
        bad = post(app.url + "/github/webhook", body, dict(headers, **{"X-Hub-Signature-256": "sha256=" + "0" * 64}))
        assert bad.status == 401 and store.merged_between(REPO, pr.merged_at, clock.now()) == []
        r = post(app.url + "/github/webhook", body, headers)
        assert r.status == 200 and r.json() == {"stored": 1, "number": pr.number}
        stored = store.merged_between(REPO, pr.merged_at, clock.now())
        assert [p.number for p in stored] == [pr.number] and stored[0].files == ()
        other = dict(payload, action="opened")
        ob = json.dumps(other).encode()
        osig = "sha256=" + hmac.new(SECRET.encode(), ob, hashlib.sha256).hexdigest()
        assert post(app.url + "/github/webhook", ob, dict(headers, **{"X-Hub-Signature-256": osig})).status == 202
        assert post(app.url + "/github/webhook", b"x" * (1024 * 1024 + 1), headers).status == 413
    finally:
        app.stop()
    done = sync.sync(REPO)  # the webhook PR has no files yet: the next sync fetches it fully
    assert done.fetched
    full = [p for p in store.merged_between(REPO, pr.merged_at, clock.now()) if p.number == pr.number][0]
    assert len(full.files) == len(pr.files)


def test_a_webhook_pr_is_answered_by_the_next_question_without_a_restart(world):
    # the clock stands still: the chat's digest cache (ttl 300 s) must see the store's new version
    clock, github, slack, store, sync, bot = world
    sync.sync(REPO)
    total = len(merged_by(clock.now()))
    assert re.search(rf"of {total} PRs carry risk tags", ask(bot, slack, "risks this week", "1747137600.000300"))
    assert "PR #99999 is not among the stored PRs" in ask(bot, slack, "PR #99999", "1747137600.000301")
    app = Server(create_webhook_app(SECRET, [REPO], sync.note_webhook_pr))
    try:
        r = deliver(app.url, merged_payload(99999, "2026-05-13T11:00:00Z", title="Live webhook PR",
                                            user={"login": "webhook-author", "type": "User"}, labels=[]))
        assert r.status == 200 and r.json() == {"stored": 1, "number": 99999}
    finally:
        app.stop()
    assert "Live webhook PR" in ask(bot, slack, "PR #99999", "1747137600.000302")
    assert re.search(rf"of {total + 1} PRs carry risk tags", ask(bot, slack, "risks this week", "1747137600.000303"))


@pytest.fixture
def hook_store(tmp_path):
    shared_file("vllm", "2026-W20.json")
    store = SqlStore.open(f"sqlite:///{tmp_path / 'hook.db'}", clock=SYSTEM_CLOCK)
    store.upsert_prs(REPO, week_prs("2026-W20"))
    app = Server(create_webhook_app(SECRET, [REPO], lambda repo, hook: store_webhook_pr(store, repo, hook).number))
    try:
        yield store, app
    finally:
        app.stop()
        store.close()


def test_a_thin_webhook_for_a_stored_pr_keeps_its_files_reviews_and_labels(hook_store):
    store, app = hook_store
    before = store.pr_by_number(REPO, 42052)
    assert (before.changed_files, before.additions, len(before.files), before.author.login) == (2, 23, 2, "汪志鹏")
    r = deliver(app.url, merged_payload(42052, "2026-05-11T05:53:39Z", title="retitled",
                                        user={"login": "someone"}, labels=[]))
    assert r.status == 200
    after = store.pr_by_number(REPO, 42052)
    assert after.title == "retitled" and after.author.login == "someone"
    assert (after.files, after.changed_files, after.additions, after.deletions, after.labels, after.reviews,
            after.review_threads, after.body) == (before.files, 2, 23, before.deletions, before.labels,
                                                  before.reviews, before.review_threads, before.body)
    # sizes the webhook does carry win; a later complete record (sync, import) replaces the row whole
    deliver(app.url, merged_payload(42052, "2026-05-11T05:53:39Z", additions=30, labels=[{"name": "ready"}]))
    sized = store.pr_by_number(REPO, 42052)
    assert (sized.additions, sized.labels, sized.files, sized.title) == (30, ("ready",), before.files, "retitled")
    deliver(app.url, merged_payload(42052, "2026-05-11T05:53:39Z", labels=[]))  # an empty list erases nothing
    assert store.pr_by_number(REPO, 42052).labels == ("ready",)
    store.upsert_prs(REPO, [before])
    assert store.pr_by_number(REPO, 42052) == before


@pytest.mark.parametrize("pr, where", [
    ("x", "repository"),
    ({"merged": True, "number": 5, "merged_at": "2026-05-12T00:00:00Z", "user": "str"}, "pull_request.user"),
    ({"merged": True}, "pull_request.number: Field required"),
    ({"merged": True, "number": 5}, "pull_request.merged_at: required when merged"),
    ({"merged": True, "number": 5, "merged_at": "2026-05-12T00:00:00"}, "pull_request.merged_at"),
])
def test_a_signed_webhook_of_the_wrong_shape_is_one_line_400_logged_by_the_guard(hook_store, caplog, pr, where):
    store, app = hook_store
    payload = {"action": "closed", "repository": pr} if pr == "x" else \
        {"action": "closed", "repository": {"full_name": REPO}, "pull_request": pr}
    if pr == "x":
        payload["pull_request"] = {"merged": True}
    with caplog.at_level("INFO"):
        r = deliver(app.url, payload)
        bad = post(app.url + "/github/webhook", b"{}", {"X-GitHub-Event": "pull_request",
                                                         "X-Hub-Signature-256": "sha256=" + "0" * 64})
    assert r.status == 400, r.body
    error = r.json()["error"]
    assert error.startswith("invalid pull_request webhook: ") and where in error and "\n" not in error
    assert bad.status == 401
    refused = [rec.getMessage() for rec in caplog.records if rec.name == "prhub.guard"]
    assert any(m.startswith("refused POST /github/webhook: 400 invalid pull_request webhook") for m in refused), refused
    assert any(m.startswith("refused POST /github/webhook: 401 bad signature") for m in refused), refused
    assert not any(rec.exc_info or "Traceback" in rec.getMessage() for rec in caplog.records)
    assert store.count_prs(REPO) == len(week_prs("2026-W20"))


def test_the_scheduler_runs_a_sync_per_github_repository_every_interval():
    cfg = parse_config("""
repositories:
  - repo: vllm-project/vllm
    schedule: {weekly: "mon 09:00"}
    sync_every_minutes: 15
    destinations: [{slack: C1}]
  - repo: example-org/example-repo
    source: file
    path: data/{week}.json
    schedule: {weekly: "mon 09:00"}
    destinations: [{slack: C1}]
  - repo: example-org/quiet
    schedule: {weekly: "mon 09:00"}
    sync_every_minutes: 0
    destinations: [{slack: C1}]
""", "test.yaml")
    calls = []
    sched = BackgroundScheduler(timezone=timezone.utc)
    ids = add_sync_jobs(sched, cfg, lambda repo, tz: calls.append((repo, tz)))
    assert ids == ["sync:vllm-project/vllm"]
    job = sched.get_job(ids[0])
    assert job.trigger.interval == timedelta(minutes=15)
    job.func(*job.args)  # what a firing runs
    assert calls == [("vllm-project/vllm", "UTC")]

    def failing(repo, tz):
        from chatbot.errors import RateLimitedError

        raise RateLimitedError("rate-limited until 10:00 UTC")

    assert run_sync(failing, "vllm-project/vllm", "UTC") is None  # logged, the next interval tries again
