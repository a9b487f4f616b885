"""Alembic: a fresh database is upgraded to head on open, one at head opens without Alembic; the models
match the migrations."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from adapters.storage import BASELINE_REVISION, SqlStore, StoreError

from prhub.clock import SYSTEM_CLOCK
from adapters.storage.schema import Base
from adapters.storage.store import alembic_config, head_revision, shipped_head


def version(store: SqlStore) -> list[str]:
    with store.engine.connect() as conn:
        return list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def test_baseline_is_the_root_revision():
    script = ScriptDirectory.from_config(alembic_config())
    assert BASELINE_REVISION == "0001_baseline"
    assert script.get_base() == "0001_baseline"
    assert script.get_revision("0001_baseline").down_revision is None


def test_fresh_database_is_upgraded_to_head(db_url):
    with SqlStore.open(db_url, migrate=False, clock=SYSTEM_CLOCK) as raw:
        assert inspect(raw.engine).get_table_names() == []
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        tables = set(inspect(store.engine).get_table_names())
        assert {"alembic_version", "pull_requests", "week_fetches"} <= tables
        assert version(store) == [head_revision()]
        # while the baseline is the only revision, it is what alembic_version holds
        if head_revision() == BASELINE_REVISION:
            assert version(store) == ["0001_baseline"]
        cols = {c["name"] for c in inspect(store.engine).get_columns("pull_requests")}
        assert {"repo", "number", "merged_at", "author_login", "title", "data"} <= cols
        indexes = {i["name"]: i["column_names"] for i in inspect(store.engine).get_indexes("pull_requests")}
        assert indexes["ix_pull_requests_repo_merged_at"] == ["repo", "merged_at"]
        assert inspect(store.engine).get_pk_constraint("pull_requests")["constrained_columns"] == ["repo", "number"]


def test_opening_again_is_a_no_op(db_url):
    SqlStore.open(db_url, clock=SYSTEM_CLOCK).close()
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        assert version(store) == [head_revision()]


def test_models_match_the_migrations(db_url):
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store, store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    assert diff == []


def test_downgrade_to_base_and_upgrade_again(db_url):
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        with store.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "base")
        assert set(inspect(store.engine).get_table_names()) == {"alembic_version"}
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        assert version(store) == [head_revision()]


def test_schema_newer_than_this_prhub_is_a_clear_error(db_url):
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store, store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    with pytest.raises(StoreError) as err:
        SqlStore.open(db_url, clock=SYSTEM_CLOCK)
    msg = err.value.user_message
    assert "cannot upgrade its schema" in msg and "9999_from_the_future" in msg and "upgrade prhub" in msg
    assert "\n" not in msg


def test_env_py_runs_from_a_url_like_the_alembic_command(db_url):
    """No connection passed in: env.py makes its own engine from ``sqlalchemy.url``."""
    command.upgrade(alembic_config(url=db_url), "head")
    with SqlStore.open(db_url, migrate=False, clock=SYSTEM_CLOCK) as store:
        assert version(store) == [head_revision()]


def test_offline_sql_script(tmp_path, capsys):
    command.upgrade(alembic_config(url=f"sqlite:///{tmp_path / 'unused.db'}"), "head", sql=True)
    sql = capsys.readouterr().out
    assert "CREATE TABLE pull_requests" in sql and "CREATE TABLE week_fetches" in sql
    assert "INSERT INTO alembic_version (version_num) VALUES ('0001_baseline')" in sql
    assert not (tmp_path / "unused.db").exists()


def test_shipped_head_is_alembics_head_and_each_id_is_its_file_stem():
    """The open path's version check (:func:`shipped_head`) reads file names, not Alembic: it holds
    only while every revision's id is its file's stem and the newest file is the one head."""
    script = ScriptDirectory.from_config(alembic_config())
    for rev in script.walk_revisions():
        assert rev.path is not None and rev.revision == Path(rev.path).stem
    assert shipped_head() == head_revision() == script.get_current_head()


OPEN_AND_REPORT = """
import sys
from adapters.storage import SqlStore
from prhub.clock import SYSTEM_CLOCK
SqlStore.open(sys.argv[1], clock=SYSTEM_CLOCK).close()
print("alembic" in sys.modules)
"""


def _opened_with_alembic(url: str) -> bool:
    """Open ``url`` in a fresh interpreter: whether Alembic was loaded (i.e. an upgrade ran)."""
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", OPEN_AND_REPORT, url], cwd=root, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(root)})
    return out.stdout.strip().splitlines()[-1] == "True"


def test_a_store_at_head_opens_without_alembic(db_url):
    assert _opened_with_alembic(db_url)  # fresh: migrated
    assert not _opened_with_alembic(db_url)  # at head: one SELECT, no Alembic


def test_a_store_one_revision_behind_is_upgraded(db_url):
    script = ScriptDirectory.from_config(alembic_config())
    previous = script.get_revision(head_revision()).down_revision
    assert isinstance(previous, str)
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
        with store.engine.begin() as conn:
            command.downgrade(alembic_config(conn), previous)
        assert version(store) == [previous]
    assert _opened_with_alembic(db_url)
    with SqlStore.open(db_url, migrate=False, clock=SYSTEM_CLOCK) as store:
        assert version(store) == [head_revision()]
