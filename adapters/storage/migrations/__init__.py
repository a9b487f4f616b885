"""Alembic migrations of the PR store (``script_location`` is this directory; see ``env.py``)."""
