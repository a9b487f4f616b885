"""Issue 9, failure 4: a Slack that is unreachable or answers auth.test with 500 does not take
``prhub serve`` down: the scheduler, Feishu and the report pages start, /healthz names the platform
and why (not "token is invalid"), and Slack is retried with backoff until it answers."""

from __future__ import annotations

import json
import time

from tests.e2e.bot_support import free_port, subprocess_env
from tests.e2e.test_bot_processes import REPO, _get, _serve, _stop, _wait_http
from tests.e2e.test_delivery_faults import _missed_config, one_db  # noqa: F401  (fixture)
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.inbound import MovableClock, build_bot
from tests.fakes.slack_server import FakeSlack


def _health(port):
    return json.loads(_get(port, "/healthz")[1])


def test_slack_auth_test_500_at_start_then_up_later(one_db, tmp_path):
    config, week = _missed_config(tmp_path, "{lease_seconds: 600}")
    text = open(config).read().replace("threads: 4}", "threads: 4, platform_retry_seconds: 0.5}")
    open(config, "w").write(text)
    with FakeSlack() as slack, FakeFeishu() as feishu:
        slack.fail("auth.test", 3)  # Slack's side is down for the first three checks
        env = subprocess_env(slack, feishu, one_db) | {"FEISHU_ENCRYPT_KEY": "k"}
        port = free_port()
        proc = _serve(config, env, port)
        try:
            _wait_http(port, proc)
            h = _health(port)
            assert h["scheduler"] == "running" and h["store"] == "ok"
            assert h["platforms"]["feishu"] in ("ok", "starting")
            if h["platforms"]["slack"] != "ok":  # (a slow start may already have passed the three failures)
                assert h["status"] == "degraded" and h["platforms"]["slack"].startswith(("retrying", "starting"))
            assert _get(port, f"/reports/{REPO}/")[0] in (200, 404)  # the report pages are mounted
            end = time.monotonic() + 30
            while time.monotonic() < end and _health(port)["platforms"]["slack"] != "ok":
                time.sleep(0.2)
            h = _health(port)
        finally:
            rc, err = _stop(proc)
    assert h["platforms"]["slack"] == "ok", h
    assert rc == 0, err[-2000:]
    assert "slack: cannot connect (Slack auth.test failed: internal_error): retrying in 0.5 s" in err
    assert "token is invalid" not in err and "slack: connected" in err
    assert sum(1 for c in slack.calls if c[0] == "auth.test") >= 4


def test_unreachable_slack_is_reported_and_feishu_still_answers(tmp_path):
    with FakeFeishu() as feishu:
        dead = f"http://127.0.0.1:{free_port()}/api/"  # nothing listens there
        bot = build_bot(f"sqlite:///{tmp_path / 'b.db'}", clock=MovableClock(None), digest_provider=None, feishu=feishu,
                        slack_bot_token="xoxb-test", slack_signing_secret="s", slack_api_url=dead)
        try:
            bot.app.probe.first = 0.05
            end = time.monotonic() + 10
            while time.monotonic() < end and not bot.app.platforms.get("slack", "").startswith("retrying"):
                time.sleep(0.05)
            assert bot.app.platforms["slack"].startswith("retrying: Slack auth.test failed: URLError (network)")
            end = time.monotonic() + 10
            while time.monotonic() < end and bot.app.platforms.get("feishu") != "ok":
                time.sleep(0.05)
            assert bot.app.platforms["feishu"] == "ok"
        finally:
            bot.app.probe.stop()
            bot.close()


def test_operator_errors_at_start_are_one_line_and_exit_2(tmp_path):
    """Tester: a taken port was "internal error: OSError: [Errno 98]" exit 70; PRHUB_LOG_LEVEL=LOUD
    was accepted silently; a mysql:// PRHUB_DATABASE_URL did not name the variable."""
    import socket
    import subprocess

    from tests.conftest import ROOT
    from tests.e2e.bot_support import PYTHON, example_week_dir
    from tests.e2e.test_bot_processes import _config

    config = _config(tmp_path, example_week_dir(tmp_path, ["2026-W20"]))
    with FakeSlack() as slack, FakeFeishu() as feishu, socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        env = subprocess_env(slack, feishu, f"sqlite:///{tmp_path / 'serve.db'}") | {"PRHUB_SLACK_MODE": "http"}

        def serve(**extra):
            return subprocess.run([PYTHON, "-m", "prhub", "serve", "--config", config, "--port", str(port)],
                                  env=env | extra, cwd=ROOT, capture_output=True, text=True, timeout=60)

        r = serve()
        assert r.returncode == 2, r.stderr[-2000:]
        err = [line for line in r.stderr.splitlines() if line.startswith("prhub:")]
        assert err == [f"prhub: error: cannot listen on 127.0.0.1:{port} (Address already in use): pass another "
                       "--port (or server.port in the config), or stop the process using it"], r.stderr[-2000:]
        assert "Traceback" not in r.stderr
        r = serve(PRHUB_LOG_LEVEL="LOUD")
        assert (r.returncode, r.stderr.strip().splitlines()) == (2, [
            "prhub: error: PRHUB_LOG_LEVEL 'LOUD' is invalid: use one of DEBUG, INFO, WARNING, ERROR, CRITICAL"])
        r = serve(PRHUB_DATABASE_URL="mysql://x")
        assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith(
            "prhub: error: PRHUB_DATABASE_URL is invalid: unsupported database URL 'mysql://x'"), r.stderr[-2000:]
