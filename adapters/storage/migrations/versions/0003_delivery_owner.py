"""Delivery leases: the process holding a ``sending`` row (``deliveries.owner``).

Revision ID: 0003_delivery_owner
Revises: 0002_chat_and_deliveries
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_delivery_owner"
down_revision: str | Sequence[str] | None = "0002_chat_and_deliveries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("deliveries") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deliveries") as batch:
        batch.drop_column("owner")
