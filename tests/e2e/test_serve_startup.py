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
