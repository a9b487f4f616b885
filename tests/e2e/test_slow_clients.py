"""Slow clients do not take ``prhub serve`` down (issue 20, item 2), scaled for CI.

At 12dedfc, 105 connections each sending a header or body byte every 2 s held the bot down while held
(waitress: "total open connections reached the connection limit"; ``/healthz`` 0 of 3). Here 150
connections trickle a byte every 0.5 s into a real ``prhub serve``: ``/healthz`` answers 3 of 3 while
they are held, and each is closed once its request has taken longer than
``server.request_deadline_seconds`` (2 s here) to arrive. ``benchmarks/slow_clients.py`` holds 500.
"""

from __future__ import annotations

import time

from tests.e2e.bot_support import example_config, example_week_dir, free_port, subprocess_env
from tests.e2e.test_bot_processes import _serve, _stop, _wait_http
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.slack_server import FakeSlack
from tests.fakes.slow_clients import SlowClients, healthz

CONNECTIONS = 150
DEADLINE = 2.0


def test_healthz_answers_while_150_slow_clients_are_held_and_they_are_dropped_at_the_deadline(tmp_path):
    edir = example_week_dir(tmp_path, ["2026-W20"])
    config = tmp_path / "prhub.yaml"
    config.write_text(example_config(edir, '{cron: "0 9 * * 1", timezone: UTC}',
                                     rest=f"server: {{host: 127.0.0.1, port: 0, threads: 4, "
                                          f"request_deadline_seconds: {DEADLINE}}}\n"))
    with FakeSlack() as slack, FakeFeishu() as feishu:
        env = subprocess_env(slack, feishu, f"sqlite:///{tmp_path / 'bot.db'}")
        port = free_port()
        proc = _serve(str(config), env, port)
        clients = None
        try:
            _wait_http(port, proc)
            clients = SlowClients(port, CONNECTIONS, interval=0.5).start()
            started = time.monotonic()
            checks = [healthz(port) for _ in range(3)]
            held = clients.open_count()
            assert time.monotonic() - started < DEADLINE  # all three were asked while every client was held
            assert held == CONNECTIONS
            assert [status for status, _ in checks] == [200, 200, 200], checks
            end = started + DEADLINE + 5
            while time.monotonic() < end and clients.open_count():
                time.sleep(0.2)
            dropped_after = time.monotonic() - started
            assert clients.open_count() == 0
            assert DEADLINE <= dropped_after < DEADLINE + 5
            assert healthz(port)[0] == 200
        finally:
            if clients is not None:
                clients.stop()
            rc, err = _stop(proc)
    assert rc == 0, err[-2000:]
    assert "still sending one request after 2 s" in err
    assert "connection limit" not in err
