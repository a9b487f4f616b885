"""Issue 9, failure 6, with real processes: ``prhub serve`` on a PostgreSQL cluster this test starts
on its own port (``initdb`` as the postgres user via ``runuser``; ``pg_ctl`` start/stop), stopped
mid-run. While it is down a Slack mention gets a 5xx and the fake Slack retries with
``X-Slack-Retry-Num``, Feishu re-pushes on the non-200, ``/prhub`` answers "temporarily
unavailable"; once the database is back every event is answered exactly once. The fakes' retry
schedules are a fraction of a second (Slack's real ones are 1 and 5 minutes).

Skipped where the PostgreSQL 15 server binaries or ``runuser`` are absent, or not running as root."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.bot_support import FEISHU_VERIFY, SLACK_SECRET, free_port, subprocess_env, vllm_github_config
from tests.e2e.test_bot_processes import _serve, _stop, _wait_http
from tests.fakes.feishu_server import FakeFeishu, message_event
from tests.fakes.inbound import post, slack_event, slack_headers
from tests.fakes.slack_server import FakeSlack

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ENCRYPT_KEY = "feishu-encrypt-key-db-down"
RETRIES = (0.3,) * 40  # 12 s of retries at most; the test ends them by answering


@dataclass
class Cluster:
    """A PostgreSQL cluster in ``data``, listening on 127.0.0.1:``port``."""

    data: Path
    port: int

    def _ctl(self, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w",
                        "-t", "30", *args], check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        self._ctl("-l", str(self.data.parent / "log"), "-o",
                  f"-p {self.port} -k {self.data.parent} -c listen_addresses=127.0.0.1 -c fsync=off "
                  "-c full_page_writes=off -c synchronous_commit=off", "start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "stop")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"


@contextmanager
def pg_cluster() -> Iterator[Cluster]:
    """initdb + start a throw-away cluster (skips the test where that cannot be done)."""
    if os.geteuid() != 0 or not (PG_BIN / "initdb").exists() or shutil.which("runuser") is None:
        pytest.skip("needs root, runuser and the PostgreSQL 15 server binaries in " + str(PG_BIN))
    try:
        pg = pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("no postgres user")
    root = Path(tempfile.mkdtemp(prefix="prhub-pg-"))
    try:
        os.chmod(root, 0o755)
        os.chown(root, pg.pw_uid, pg.pw_gid)
        cluster = Cluster(root / "data", free_port())
        subprocess.run(["runuser", "-u", "postgres", "--", str(PG_BIN / "initdb"), "-D", str(cluster.data), "-A",
                        "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"], check=True, capture_output=True, timeout=120)
        cluster.start()
        try:
            yield cluster
        finally:
            try:
                cluster.stop()
            except subprocess.CalledProcessError:
                pass  # already stopped
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _config(tmp_path: Path) -> str:
    path = tmp_path / "prhub.yaml"
    path.write_text(vllm_github_config("C_DIGEST", threads=4))
    return str(path)


def test_database_stopped_mid_run_every_event_is_retried_and_answered_once(tmp_path):
    with pg_cluster() as cluster, FakeSlack(event_retries=RETRIES) as slack, \
            FakeFeishu(event_retries=RETRIES) as feishu:
        env = {**subprocess_env(slack, feishu, cluster.url), "FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
               "PRHUB_LOG_LEVEL": "WARNING"}
        port = free_port()
        proc = _serve(_config(tmp_path), env, port)
        try:
            _wait_http(port, proc)
            base = f"http://127.0.0.1:{port}"
            cluster.stop()  # mid-run: the server holds pooled connections to it

            mention = {"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": "1718000000.000100",
                       "text": "<@U_BOT> help"}
            slack_sent = threading.Thread(target=slack.send_event, args=(base + "/slack/events",
                                          slack_event(mention, event_id="Ev_DOWN")), kwargs={"secret": SLACK_SECRET})
            ev = message_event(token=FEISHU_VERIFY, event_id="ev_DOWN", message_id="om_DOWN", text="@_user_1 help")
            feishu_sent = threading.Thread(target=feishu.push_event, args=(base + "/feishu/events", ev),
                                           kwargs={"encrypt_key": ENCRYPT_KEY})
            slack_sent.start()
            feishu_sent.start()

            form = urllib.parse.urlencode({"command": "/prhub", "text": "help", "user_id": "U_ALICE",
                                           "channel_id": "C_DIGEST", "team_id": "T_TEST", "trigger_id": "t1",
                                           "response_url": slack.response_url("cmd1")}).encode()
            cmd = post(base + "/slack/commands", form,
                       slack_headers(form, secret=SLACK_SECRET, content_type="application/x-www-form-urlencoded"))
            assert cmd.status == 200 and "temporarily unavailable" in cmd.body.decode()

            # both platforms were refused at least twice (a first try and a retry) while it was down
            assert slack.wait_for(lambda: len(slack.event_attempts) >= 2 and len(feishu.event_attempts) >= 2, timeout=10)
            assert slack.posts == [] and feishu.messages == []
            cluster.start()
            slack_sent.join(15)
            feishu_sent.join(15)
            assert slack.wait_for(lambda: len(slack.posts) >= 1 and len(feishu.messages) >= 1, timeout=10)
        finally:
            rc, err = _stop(proc)
    assert rc == 0, err[-2000:]
    refused = [s for n, s in slack.event_attempts if not 200 <= s < 300]
    assert len(refused) >= 2 and all(500 <= s < 600 for s in refused), slack.event_attempts
    n_ok, ok = slack.event_attempts[-1]
    assert 200 <= ok < 300 and n_ok >= 2  # answered on a retry (X-Slack-Retry-Num >= 2)
    assert all(s != 200 for _, s in feishu.event_attempts[:-1]) and feishu.event_attempts[-1][1] == 200
    assert len(feishu.event_attempts) >= 3
    [answer] = slack.posts  # exactly one answer per event
    assert answer["thread_ts"] == "1718000000.000100" and answer["channel"] == "C_DIGEST"
    [reply] = feishu.messages
    assert reply["reply_to"] == "om_DOWN"
    assert slack.responses == []  # the refused /prhub was not answered later as well
    assert "cannot record it" in err
    # the whole outage in the log: one short line per thing, no traceback (issue 9, failure 2)
    assert "Traceback" not in err and max(len(line) for line in err.splitlines()) < 1024, err[-3000:]
