"""Scheduler fixtures: the store on SQLite (always) and PostgreSQL (with PRHUB_TEST_DATABASE_URL)."""

from tests.adapters.storage.conftest import db_url, store  # noqa: F401  (fixtures)
