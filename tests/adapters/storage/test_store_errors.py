"""Errors opening a store: one line, what/where/how to fix, and never the password."""

from __future__ import annotations

import os

import pytest

from adapters.storage import SqlStore, StoreError, mask_url

from prhub.clock import SYSTEM_CLOCK
from tests.adapters.storage.conftest import PG_ENV

SECRET = "s3cr3t-Pa55"


@pytest.mark.parametrize(
    "url,expected",
    [
        (f"postgresql+psycopg://bob:{SECRET}@127.0.0.1:1/prhub",
         "database postgresql+psycopg://bob:***@127.0.0.1:1/prhub: opening failed: OperationalError: connection failed"),
        (f"postgresql://bob:{SECRET}@127.0.0.1:1/prhub", "postgresql+psycopg://bob:***@127.0.0.1:1/prhub: opening failed"),
        (f"mysql+pymysql://bob:{SECRET}@db.example/prhub",
         "unsupported database URL 'mysql+pymysql://bob:***@db.example/prhub': use sqlite:///PATH or postgresql+psycopg://"),
        (f"postgresql+psycopg://bob:{SECRET}@db.example:notaport/prhub",
         "invalid database URL 'postgresql+psycopg://bob:***@db.example:notaport/prhub'"),
        (f"postgresql+psycopg://bob@127.0.0.1:1/prhub?password={SECRET}", "postgresql+psycopg://bob@127.0.0.1:1/prhub?password=***"),
        ("sqlite:////nonexistent/dir/prhub.db",
         "database sqlite:////nonexistent/dir/prhub.db: directory /nonexistent/dir does not exist: create it or pass another --db"),
        ("nonsense", "invalid database URL 'nonsense'"),
    ],
)
def test_bad_urls_are_one_line_without_password(url, expected):
    with pytest.raises(StoreError) as err:
        SqlStore.open(url, clock=SYSTEM_CLOCK)
    msg = err.value.user_message
    assert expected in msg
    assert SECRET not in msg and SECRET not in str(err.value)
    assert "\n" not in msg
    assert err.value.exit_code == 2


def test_postgres_error_with_password_is_masked():
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL: set {PG_ENV}")
    from sqlalchemy.engine import make_url

    url = make_url(base).set(password=SECRET, database="prhub_no_such_database").render_as_string(hide_password=False)
    with pytest.raises(StoreError) as err:
        SqlStore.open(url, clock=SYSTEM_CLOCK)
    msg = err.value.user_message
    assert 'database "prhub_no_such_database" does not exist' in msg
    assert ":***@" in msg and SECRET not in msg and "\n" not in msg


def test_mask_url():
    assert mask_url(f"postgresql+psycopg://u:{SECRET}@h:5432/d") == "postgresql+psycopg://u:***@h:5432/d"
    assert mask_url("postgresql+psycopg://u:p@ss@h/d") == "postgresql+psycopg://u:***@h/d"
    assert mask_url("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"
    assert mask_url("postgresql://h/d?sslmode=require&password=x") == "postgresql://h/d?sslmode=require&password=***"
