"""Replicas starting together on a fresh store all come up (issue 20, item 4).

Three processes open the same empty store at one instant (they wait on a start file, then call
``SqlStore.open``): Alembic runs under the store's migration lock (SQLite: one exclusive
transaction; PostgreSQL: an advisory lock), so exactly one of them creates the tables and the
others find the schema at head. Without the lock, two of six SQLite trials had one process fail
with ``table pull_requests already exists``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from adapters.storage import SqlStore
from adapters.storage.store import head_revision
from prhub.clock import SYSTEM_CLOCK

ROOT = Path(__file__).resolve().parents[3]

_CHILD = """
import sys, time
from pathlib import Path
from adapters.storage import SqlStore, StoreError
from prhub.clock import SYSTEM_CLOCK
go = Path(sys.argv[2])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
try:
    SqlStore.open(sys.argv[1], clock=SYSTEM_CLOCK).close()
except StoreError as exc:
    print(exc.user_message)
    sys.exit(2)
"""

REPLICAS = 3
TRIALS = 2


def _start_together(url: str, go: Path) -> list[subprocess.CompletedProcess[str]]:
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, url, str(go)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for _ in range(REPLICAS)]
    for p in procs:  # every child has imported the store and waits for the start file
        assert p.stdout is not None and p.stdout.readline() == "ready\n"
    go.touch()
    out = []
    for p in procs:
        stdout, _ = p.communicate(timeout=120)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, ""))
    return out


def test_three_replicas_on_a_fresh_store_all_come_up(db_url, tmp_path):
    for trial in range(TRIALS if db_url.startswith("sqlite") else 1):
        url = db_url.replace("prhub.db", f"prhub-{trial}.db")
        results = _start_together(url, tmp_path / f"go-{trial}")
        assert [(r.returncode, r.stdout) for r in results] == [(0, "")] * REPLICAS, f"trial {trial}"
        with SqlStore.open(url, migrate=False, clock=SYSTEM_CLOCK) as store, store.engine.connect() as conn:
            assert list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars()) == [head_revision()]


def test_opening_waits_for_a_writer_that_holds_a_fresh_file_before_its_switch_to_wal(tmp_path):
    """The cause of the CI flake on 326e5ed (``opening failed: database is locked`` in one of three
    replicas, 0.6 ms after start): a connection that holds a write lock on a file still in rollback
    mode makes ``PRAGMA journal_mode=WAL`` fail at once, without SQLite's busy handler. Opening now
    retries the switch until the writer is done (here 0.3 s later) instead of exiting 2."""
    import sqlite3
    import threading

    path = tmp_path / "prhub.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE early (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO early VALUES (1)")
    done = threading.Timer(0.3, writer.execute, ("COMMIT",))
    done.start()
    try:
        with SqlStore.open(f"sqlite:///{path}", clock=SYSTEM_CLOCK) as store, store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars()) == [head_revision()]
    finally:
        done.join()
        writer.close()
