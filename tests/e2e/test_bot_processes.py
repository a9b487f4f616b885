"""The bot as separate processes: killed after the platform accepted a post then restarted; two
``prhub serve`` on one PostgreSQL database; ``prhub jobs --now``; /healthz, /metrics and SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from datetime import datetime, timezone

import pytest

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from scheduler.config import cron_trigger
from scheduler.jobs import week_for
from scheduler.service import previous_fire_time
from tests.conftest import ROOT
from tests.e2e.bot_support import (EXAMPLE_REPO, PYTHON, REPORT_LINK, example_config, example_week_dir, free_port,
                                   subprocess_env)
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.slack_server import FakeSlack
from tests.scheduler.conftest import db_url, store  # noqa: F401  (fixtures)
from tests.scheduler.harness import posted_before

REPO = EXAMPLE_REPO


def _config(tmp_path, example_dir, cron="0 9 * * 1", tz="Asia/Shanghai", port=0) -> str:
    path = tmp_path / "prhub.yaml"
    path.write_text(example_config(example_dir, f'{{cron: "{cron}", timezone: {tz}}}',
                                   rest=f"server: {{host: 127.0.0.1, port: {port}, threads: 4}}\n"))
    return str(path)


def _prhub(args, env, timeout=120):
    return subprocess.run([PYTHON, "-m", "prhub", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)


def _check_once(slack, feishu, rows):
    keys = [p["metadata"]["event_payload"]["key"] for p in slack.posts_to("C_EX")]
    assert keys and len(keys) == len(set(keys))
    uuids = [m["uuid"] for m in feishu.messages if m["target"] == "oc_ex"]
    assert uuids and len(uuids) == len(set(uuids))
    assert rows and all(r.status == "sent" for r in rows)
    by_dest = {}
    for r in rows:
        by_dest.setdefault(r.key.platform, []).append(r.key.part)
    assert sorted(by_dest) == ["feishu", "slack"]
    assert by_dest["slack"] == list(range(1, len(by_dest["slack"]) + 1)) == by_dest["feishu"]
    return len(by_dest["slack"])


@pytest.mark.parametrize("platform", ["slack", "feishu"])
def test_killed_after_accept_then_restarted_posts_once(store, db_url, tmp_path, platform):
    edir = example_week_dir(tmp_path, ["2026-W20"])
    config = _config(tmp_path, edir)
    with FakeSlack() as slack, FakeFeishu() as feishu:
        env = subprocess_env(slack, feishu, db_url, REPORT_LINK)
        crash = subprocess.run([PYTHON, "-m", "tests.e2e.crash_bot", config, REPO, "2026-W20", platform],
                               capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
        assert crash.returncode == 137, crash.stderr[-2000:]
        pending = [r for r in store.deliveries_of(REPO, "2026-W20", "digest") if r.status == "sending"]
        assert [(r.key.platform, r.key.part) for r in pending] == [(platform, 1)]
        restart = _prhub(["run-job", "weekly", "--repo", REPO, "--config", config, "--week", "2026-W20"], env)
        assert restart.returncode == 0, restart.stdout + restart.stderr[-2000:]
        assert "(already)" in restart.stdout
        parts = _check_once(slack, feishu, store.deliveries_of(REPO, "2026-W20", "digest"))
        assert parts >= 2
        if platform == "slack":
            assert "reconciled" in restart.stderr


def test_slack_killed_after_accepting_a_threaded_part_then_restarted_posts_once(store, db_url, tmp_path):
    """Part 2 lives only in part 1's thread: reconciliation must look in the thread (conversations.replies)."""
    edir = example_week_dir(tmp_path, ["2026-W20"])
    config = _config(tmp_path, edir)
    with FakeSlack() as slack, FakeFeishu() as feishu:
        env = subprocess_env(slack, feishu, db_url, REPORT_LINK)
        crash = subprocess.run([PYTHON, "-m", "tests.e2e.crash_bot", config, REPO, "2026-W20", "slack", "2"],
                               capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
        assert crash.returncode == 137, crash.stderr[-2000:]
        pending = [r for r in store.deliveries_of(REPO, "2026-W20", "digest") if r.status == "sending"]
        assert [(r.key.platform, r.key.part) for r in pending] == [("slack", 2)]
        restart = _prhub(["run-job", "weekly", "--repo", REPO, "--config", config, "--week", "2026-W20"], env)
        assert restart.returncode == 0, restart.stdout + restart.stderr[-2000:]
        assert "reconciled" in restart.stderr
        parts = _check_once(slack, feishu, store.deliveries_of(REPO, "2026-W20", "digest"))
        assert parts >= 2


def _get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _wait_http(port, proc, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"prhub serve exited {proc.returncode}: {proc.stderr.read()[-3000:]}")
        try:
            return _get(port, "/healthz")
        except OSError:
            time.sleep(0.2)
    raise AssertionError("prhub serve did not answer")


def _serve(config, env, port):
    return subprocess.Popen([PYTHON, "-m", "prhub", "serve", "--config", config, "--port", str(port)],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _stop(proc):
    return _stop_all([proc])[0]


def _stop_all(procs):
    """SIGTERM to every process first, then each one's (exit code, stderr): replicas stop side by
    side (each SIGTERM'd serve took about 3 s to exit; stopping them in turn added those up)."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    results = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        results.append((proc.returncode, err))
    return results


def _serve_pair_setup(tmp_path):
    """A config whose last firing (Monday 09:00 UTC) was missed: every started server catches it up
    (the store must hold an older post of the repository: see :func:`posted_before`)."""
    now = datetime.now(timezone.utc)
    last = previous_fire_time(cron_trigger("0 9 * * 1", "UTC"), now)
    week = str(week_for(last, "UTC"))
    edir = example_week_dir(tmp_path, [week])
    return _config(tmp_path, edir, cron="0 9 * * 1", tz="UTC"), week


def test_two_serve_processes_on_one_postgresql_database_post_once(db_url, tmp_path):
    if not db_url.startswith("postgresql"):
        pytest.skip("two servers share one PostgreSQL database (PRHUB_TEST_DATABASE_URL)")
    config, week = _serve_pair_setup(tmp_path)
    with FakeSlack() as slack, FakeFeishu() as feishu, SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        posted_before(store, REPO)
        env = subprocess_env(slack, feishu, db_url, REPORT_LINK)
        ports = [free_port(), free_port()]
        procs = [_serve(config, env, p) for p in ports]
        try:
            for port, proc in zip(ports, procs):
                code, body = _wait_http(port, proc)
            ok = slack.wait_for(lambda: (rows := store.deliveries_of(REPO, week, "digest")) != []
                                and all(r.status == "sent" for r in rows) and len(rows) >= 4, timeout=90)
            assert ok, store.deliveries_of(REPO, week, "digest")
            time.sleep(1.0)  # let the second server finish its (skipping) run
            health = [json.loads(_get(p, "/healthz")[1]) for p in ports]
            metrics = [_get(p, "/metrics")[1] for p in ports]
        finally:
            results = _stop_all(procs)
        parts = _check_once(slack, feishu, store.deliveries_of(REPO, week, "digest"))
    assert [r[0] for r in results] == [0, 0], [r[1][-2000:] for r in results]
    assert all(h["status"] == "ok" and h["scheduler"] == "running" and h["jobs"][0]["next_run"] for h in health)
    sent = sum(float(line.split()[-1]) for m in metrics for line in m.splitlines()
               if line.startswith("prhub_deliveries_sent_total{"))
    assert sent == 2 * parts  # every part sent once, by one of the two servers
    assert all("prhub_query_latency_seconds_bucket" in m for m in metrics)
    assert any("missed run" in r[1] for r in results)
    # the other server either found nothing left to catch up, or lost the race and logged it
    assert all("missed run" not in r[1] or "sent (message" in r[1] or "already" in r[1] or "another process" in r[1]
               for r in results)


def test_serve_health_metrics_and_sigterm(db_url, tmp_path):
    config, week = _serve_pair_setup(tmp_path)
    with FakeSlack() as slack, FakeFeishu() as feishu, SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        posted_before(store, REPO)
        env = subprocess_env(slack, feishu, db_url, REPORT_LINK)
        port = free_port()
        proc = _serve(config, env, port)
        try:
            code, body = _wait_http(port, proc)
            assert slack.wait_for(lambda: any(r.status == "sent" for r in store.deliveries_of(REPO, week, "digest")), timeout=60)
            assert code == 200
            h = json.loads(_get(port, "/healthz")[1])
            assert h["store"] == "ok" and h["scheduler"] == "running"
            assert h["jobs"][0]["id"] == f"digest:{REPO}" and h["jobs"][0]["next_run"].endswith("+00:00")
            status, metrics = _get(port, "/metrics")
            assert status == 200 and "# TYPE prhub_deliveries_sent_total counter" in metrics
            assert _get(port, "/slack/events")[0] in (400, 401, 403, 404, 405)  # the chat endpoints are mounted
            status, archive = _get(port, f"/reports/{REPO}/")  # the report pages are mounted
            assert status == 200 and REPO in archive
        finally:
            rc, err = _stop(proc)
    assert rc == 0, err[-2000:]
    assert "shutting down" in err


def test_jobs_now_shanghai_and_los_angeles_across_dst(tmp_path):
    path = tmp_path / "jobs.yaml"
    path.write_text("""
repositories:
  - repo: example-org/example-repo
    source: github
    schedule: {cron: "0 9 * * 1", timezone: Asia/Shanghai}
    destinations: [{slack: C1}]
  - repo: vllm-project/vllm
    source: github
    schedule: {weekly: "mon 09:00", timezone: America/Los_Angeles}
    destinations: [{feishu: oc_1}]
""")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRHUB_")} | {"PYTHONPATH": str(ROOT)}
    r = _prhub(["jobs", "--config", str(path), "--now", "2026-03-02T18:00:00Z", "--count", "2", "--json"], env)
    assert r.returncode == 0, r.stderr
    rows = {x["repo"]: x for x in json.loads(r.stdout)}
    assert rows["example-org/example-repo"]["next_runs"] == ["2026-03-09T09:00:00+08:00", "2026-03-16T09:00:00+08:00"]
    la = rows["vllm-project/vllm"]
    assert la["next_runs"] == ["2026-03-09T09:00:00-07:00", "2026-03-16T09:00:00-07:00"]  # PDT after 2026-03-08
    assert la["next_runs_utc"] == ["2026-03-09T16:00:00Z", "2026-03-16T16:00:00Z"]
    r = _prhub(["jobs", "--config", str(path), "--now", "2026-03-01T12:00:00-08:00"], env)
    assert "digest:vllm-project/vllm" in r.stdout and "2026-03-02T09:00:00-08:00" in r.stdout  # still PST
    bad = _prhub(["jobs", "--config", str(path), "--now", "yesterday"], env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_a_question_whose_server_died_before_the_reply_is_answered_once_on_slack_s_retry(db_url, tmp_path):
    """Issue 9 / tester: kill -9 between the ack and the reply lost the question, and Slack's
    retries were "duplicate, ignored". Now the claim records its owner and is marked answered after
    the post: a retry while the owner lives is ignored, one after its death is answered once, and
    a retry of the answered event is ignored again."""
    from tests.e2e.bot_support import SLACK_SECRET
    from tests.fakes.inbound import post, slack_event, slack_headers

    edir = example_week_dir(tmp_path, ["2026-W20"])
    path = tmp_path / "prhub.yaml"
    path.write_text(example_config(edir, '{cron: "0 9 * * 1", timezone: UTC}', " [{feishu: oc_ex}]",
                                   rest="server: {host: 127.0.0.1, port: 0, threads: 4}\n"))
    mention = {"type": "app_mention", "user": "U_ALICE", "channel": "C_Q", "ts": "1718000000.000100",
               "text": "<@U_BOT> summary 2026-W20"}
    body = slack_event(mention, event_id="Ev_KILL1")

    def send(port, retry=None):
        r = post(f"http://127.0.0.1:{port}/slack/events", body, slack_headers(body, secret=SLACK_SECRET, retry=retry))
        assert r.status == 200, r

    with FakeSlack() as slack, FakeFeishu() as feishu:
        env = subprocess_env(slack, feishu, db_url) | {"PRHUB_SLACK_MODE": "http"}
        slack.hold("chat.postMessage")  # the reply is on its way when the server dies
        port = free_port()
        first = _serve(str(path), env, port)
        try:
            _wait_http(port, first)
            send(port)
            assert slack.wait_for(lambda: "chat.postMessage" in slack.held, timeout=30)
            send(port, retry=1)  # the owner lives: ignored
            first.kill()
            first.wait(timeout=10)
        finally:
            if first.poll() is None:
                first.kill()
            _, err1 = first.communicate()
        slack.release("chat.postMessage")
        assert slack.posts_to("C_Q") == [] and slack.held == ["chat.postMessage"], err1[-2000:]
        assert "duplicate, ignored" in err1
        port = free_port()
        second = _serve(str(path), env, port)
        try:
            _wait_http(port, second)
            send(port, retry=2)  # the owner is dead: answered
            assert slack.wait_for(lambda: len(slack.posts_to("C_Q")) == 1, timeout=30)
            send(port, retry=3)  # answered: ignored
        finally:
            rc, err2 = _stop(second)
    posts = slack.posts_to("C_Q")
    assert len(posts) == 1 and posts[0]["thread_ts"] == "1718000000.000100" and "2026-W20" in posts[0]["text"]
    assert err2.count("duplicate, ignored") == 1, err2[-3000:]
