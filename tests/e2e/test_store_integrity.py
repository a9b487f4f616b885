"""Health that tells the truth about the store (issue 20, item 5).

At 12dedfc a SQLite file with a damaged table page let ``prhub serve`` start and ``/healthz`` say
``"store": "ok"`` (it ran ``SELECT 1``) while ``prhub digest`` and ``import`` on the same file said
``database disk image is malformed``. Now ``serve`` runs ``PRAGMA quick_check`` at start and refuses
the file in one line (exit 2); ``/healthz`` reads a row of every table and says ``"store": "corrupt:
…"`` with 503 once any query found the file damaged. ``/healthz`` and ``/metrics`` carry nosniff.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest
from werkzeug.test import Client

from adapters.storage import SqlStore
from prhub.clock import SYSTEM_CLOCK
from tests.e2e.bot_support import PYTHON, subprocess_env
from tests.e2e.test_bot_processes import _config
from tests.fakes.feishu_server import FakeFeishu
from tests.fakes.slack_server import FakeSlack

ROOT = Path(__file__).resolve().parents[2]
WEEK = ROOT / "prhub" / "data" / "2026-W20.json"


def _imported(path: Path) -> str:
    url = f"sqlite:///{path}"
    run = subprocess.run([PYTHON, "-m", "prhub", "import", "--db", url, str(WEEK)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return url


def _damage_pull_requests(path: Path) -> None:
    """Overwrite the root page of ``pull_requests`` with 0xFF bytes (the WAL checkpointed first), as a
    disk or copy error would; ``alembic_version`` and the other tables stay readable."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'pull_requests'").fetchone()[0]
    conn.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * size)
        f.write(b"\xff" * size)


@pytest.fixture
def damaged(tmp_path):
    path = tmp_path / "prhub.db"
    url = _imported(path)
    _damage_pull_requests(path)
    return url


def test_serve_refuses_a_file_digest_refuses(damaged, tmp_path):
    digest = subprocess.run([PYTHON, "-m", "prhub", "digest", "--db", damaged, "--repo", "vllm-project/vllm",
                             "--week", "2026-W20"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert digest.returncode == 2 and "database disk image is malformed" in digest.stderr
    from tests.e2e.bot_support import example_week_dir

    config = _config(tmp_path, example_week_dir(tmp_path, ["2026-W20"]), tz="UTC")
    with FakeSlack() as slack, FakeFeishu() as feishu:
        serve = subprocess.run([PYTHON, "-m", "prhub", "serve", "--config", config, "--port", "0"], cwd=ROOT,
                               env=subprocess_env(slack, feishu, damaged), capture_output=True, text=True, timeout=120)
    assert serve.returncode == 2
    error = [ln for ln in serve.stderr.splitlines() if ln.startswith("prhub: error:")]
    assert len(error) == 1 and "Traceback" not in serve.stderr
    assert error[0].startswith(f"prhub: error: database {damaged}: the file is corrupt (quick_check: ")
    assert error[0].endswith("restore it from a backup, or move it away to start with an empty store")


def _bot(url: str):
    from pathlib import Path as P

    from prhub.bot import create_bot
    from prhub.config import parse_config
    from scheduler.config import LoadedConfig
    from tests.scheduler.harness import BR10

    store = SqlStore.open(url, clock=SYSTEM_CLOCK)
    bot = create_bot(LoadedConfig(config=parse_config(BR10, "t.yaml"), base_dir=P(".")), store, {}, chart=None)
    bot.scheduler.start()
    return bot


def _get(bot, path: str):
    from prhub.bot import create_web_app

    return Client(create_web_app(bot)).get(path)


def test_healthz_says_corrupt_with_503_once_a_query_found_the_file_damaged(damaged):
    bot = _bot(damaged)  # opened as a running server would have, before the damage was noticed
    try:
        r = _get(bot, "/healthz")
        assert r.status_code == 503, r.get_json()
        store = r.get_json()["store"]
        assert store == "corrupt: database disk image is malformed", store
        assert r.get_json()["status"] == "unhealthy"
        assert r.headers["X-Content-Type-Options"] == "nosniff"
    finally:
        bot.scheduler.shutdown(wait=True)
        bot.store.close()


def test_healthz_and_metrics_of_a_sound_store_are_ok_with_nosniff(tmp_path):
    bot = _bot(_imported(tmp_path / "ok.db"))
    try:
        bot.store.check_integrity()
        r = _get(bot, "/healthz")
        assert (r.status_code, r.get_json()["store"]) == (200, "ok")
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        m = _get(bot, "/metrics")
        assert m.status_code == 200 and m.headers["X-Content-Type-Options"] == "nosniff"
        assert m.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        assert _get(bot, "/nothing").get_json() == {"error": "NOT FOUND"}  # Flask's 404 page, as JSON
    finally:
        bot.scheduler.shutdown(wait=True)
        bot.store.close()
