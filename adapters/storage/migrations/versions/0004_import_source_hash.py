"""Streaming import: the SHA-256 of the raw export record a PR row was imported from
(``pull_requests.source_sha256``), so that re-importing unchanged records skips them before any
validation or encoding (issue 13).

Revision ID: 0004_import_source_hash
Revises: 0003_delivery_owner
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_import_source_hash"
down_revision: str | Sequence[str] | None = "0003_delivery_owner"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("pull_requests") as batch:
        batch.add_column(sa.Column("source_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pull_requests") as batch:
        batch.drop_column("source_sha256")
