"""Store fixtures: every test runs on a fresh SQLite file, and on a fresh PostgreSQL schema when
``PRHUB_TEST_DATABASE_URL`` is set (e.g. ``postgresql+psycopg://postgres@127.0.0.1:5432/test``)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

PG_ENV = "PRHUB_TEST_DATABASE_URL"


def _pg_schema_url(base: str, schema: str) -> str:
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A URL of an empty database: a new SQLite file, or a new PostgreSQL schema (dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'prhub.db'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL: set {PG_ENV}=postgresql+psycopg://USER@HOST:PORT/DB to run")
    with pg_schema(base) as url:
        yield url


@contextmanager
def pg_schema(base: str) -> Iterator[str]:
    """A fresh schema on the PostgreSQL server of ``base``, as a URL whose search_path is it (dropped after)."""
    schema = f"prhub_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, poolclass=NullPool)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield _pg_schema_url(base, schema)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def store(db_url):
    """An opened (migrated) :class:`SqlStore` on ``db_url``."""
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    s = SqlStore.open(db_url, clock=SYSTEM_CLOCK)
    yield s
    s.close()
