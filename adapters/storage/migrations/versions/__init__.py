"""Alembic revisions, oldest first: ``0001_baseline`` and those later issues add."""
