"""Two ``prhub serve`` replicas with no public URL: Slack over Socket Mode and Feishu over the long
connection, both on one store. Each platform fake delivers an event to one replica's connection;
that replica's ack is lost, so the platform redelivers to the other replica — and the chat still
gets exactly one answer. SIGTERM closes the connections and exits 0."""

from __future__ import annotations

import os
import subprocess
import time

from tests.conftest import ROOT, week_prs
from tests.e2e.bot_support import PYTHON, free_port
from tests.e2e.test_bot_processes import _stop_all
from tests.fakes.feishu_server import message_event
from tests.fakes.feishu_ws import FakeFeishuWs
from tests.fakes.slack_socket import FakeSlackSocket
from tests.scheduler.conftest import db_url, store  # noqa: F401  (fixtures)


def _config(tmp_path) -> str:
    path = tmp_path / "prhub.yaml"
    path.write_text("""
repositories:
  - repo: vllm-project/vllm
    schedule: {cron: "0 9 1 1 *", timezone: UTC, catch_up_grace_seconds: 0}
    destinations:
      - {slack: C_DIGEST}
      - {feishu: oc_GROUP}
server: {host: 127.0.0.1, threads: 2}
""")
    return str(path)


def _env(slack, feishu, db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_", "GITHUB_"))}
    env.update({
        "PYTHONPATH": str(ROOT), "PRHUB_DATABASE_URL": db, "PRHUB_LOG_LEVEL": "INFO",
        "SLACK_BOT_TOKEN": slack.token, "SLACK_APP_TOKEN": slack.app_token, "SLACK_API_URL": slack.base_url,
        "FEISHU_APP_ID": feishu.app_id, "FEISHU_APP_SECRET": feishu.app_secret, "FEISHU_API_URL": feishu.url,
        "FEISHU_BOT_OPEN_ID": feishu.bot_open_id,
    })
    return env


def test_two_replicas_over_socket_mode_and_the_long_connection_answer_once(store, db_url, tmp_path):
    store.upsert_prs("vllm-project/vllm", week_prs("2026-W20"))
    config = _config(tmp_path)
    fast = {"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 30}
    with FakeSlackSocket(ack_timeout=1.0) as slack, FakeFeishuWs(ack_timeout=1.0, client_config=fast) as feishu:
        env = _env(slack, feishu, db_url)
        procs = [subprocess.Popen([PYTHON, "-m", "prhub", "serve", "--config", config, "--port", str(free_port())],
                                  env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        try:
            s1, s2 = slack.wait_connections(2, timeout=90)
            f1, f2 = feishu.wait_connections(2, timeout=90)
            slack.lose_acks(s1)
            feishu.lose_acks(f1)
            eid = slack.deliver({"token": "x", "team_id": "T_TEST", "api_app_id": "A_APP", "type": "event_callback",
                                 "event_id": "EvS1", "event_time": 1718000000,
                                 "event": {"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST",
                                           "ts": "1718000000.000100", "text": "<@U_BOT> risks 2026-W20"}}, to=s1)
            mid = feishu.deliver(message_event(token="", event_id="ev_F1", message_id="om_F1",
                                               text="@_user_1 风险 2026-W20"), to=f1)
            assert slack.wait_for(lambda: slack.acked(eid), timeout=20)
            assert feishu.wait_for(lambda: any(a["code"] == 200 for a in feishu.acks_of(mid)), timeout=20)
            assert slack.wait_for(lambda: len(slack.posts_to("C_DIGEST")) >= 1, timeout=20)
            assert feishu.wait_for(lambda: len(feishu.replies_to("om_F1")) >= 1, timeout=20)
            time.sleep(1.5)  # give a wrong second answer the time to arrive
            slack_conns = {e["conn"] for e in slack.envelopes if e["envelope_id"] == eid}
            feishu_conns = {f["conn"] for f in feishu.frames_sent if f["message_id"] == mid}
        finally:
            results = _stop_all(procs)
    assert [r[0] for r in results] == [0, 0], [r[1][-2000:] for r in results]
    assert slack_conns == {s1, s2} and feishu_conns == {f1, f2}  # both replicas got the event
    posts = slack.posts_to("C_DIGEST")
    assert len(posts) == 1 and posts[0]["thread_ts"] == "1718000000.000100" and "2026-W20" in posts[0]["text"]
    replies = feishu.replies_to("om_F1")
    reply_calls = [c for c in feishu.calls if c[1] == "/open-apis/im/v1/messages/om_F1/reply"]
    assert len(replies) >= 1 and len(reply_calls) == len(replies)  # one answer (its parts), sent once
    assert "2026-W20" in str(replies[0]["card"])
