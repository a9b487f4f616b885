"""The persistent PR store: SQLAlchemy 2 tables, Alembic migrations, and :class:`SqlStore`.

SQLite (a file) by default, PostgreSQL by URL (``postgresql+psycopg://...``). Opening a store
upgrades its schema to the newest Alembic revision shipped in ``migrations/``.
"""

from adapters.storage.errors import StoreError, mask_url
from adapters.storage.store import BASELINE_REVISION, SqlStore

__all__ = ["BASELINE_REVISION", "SqlStore", "StoreError", "mask_url"]
