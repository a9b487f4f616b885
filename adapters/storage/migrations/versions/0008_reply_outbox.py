"""Chat replies that failed to send, kept until posted (``reply_outbox``; issue 20).

Revision ID: 0008_reply_outbox
Revises: 0007_event_answered
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_reply_outbox"
down_revision: str | Sequence[str] | None = "0007_event_answered"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reply_outbox",
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("event_key", sa.String(length=255), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.String(length=300), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("platform", "event_key", name="pk_reply_outbox"),
    )
    op.create_index("ix_reply_outbox_done_at_next_at", "reply_outbox", ["done_at", "next_at"])


def downgrade() -> None:
    op.drop_index("ix_reply_outbox_done_at_next_at", table_name="reply_outbox")
    op.drop_table("reply_outbox")
