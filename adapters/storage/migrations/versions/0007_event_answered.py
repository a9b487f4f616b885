"""Inbound events: who claimed one (``processed_events.owner``) and when it was answered (``answered_at``).

A claim whose owner died before the reply was posted is taken over by the platform's retry (issue 9:
a question is never lost between the ack and the reply). Rows from before this revision are marked
answered (their ``received_at``), so no old event is answered again.

Revision ID: 0007_event_answered
Revises: 0006_approvals
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_event_answered"
down_revision: str | Sequence[str] | None = "0006_approvals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("processed_events") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=128), nullable=True))
        batch.add_column(sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE processed_events SET answered_at = received_at")


def downgrade() -> None:
    with op.batch_alter_table("processed_events") as batch:
        batch.drop_column("answered_at")
        batch.drop_column("owner")
