"""Tests of the SQLAlchemy PR store (SQLite always, PostgreSQL with PRHUB_TEST_DATABASE_URL)."""
