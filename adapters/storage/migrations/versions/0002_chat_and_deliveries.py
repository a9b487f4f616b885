"""Chat and delivery tables: subscriptions, processed_events, deliveries.

Revision ID: 0002_chat_and_deliveries
Revises: 0001_baseline
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_chat_and_deliveries"
down_revision: str | Sequence[str] | None = "0001_baseline"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("workspace", sa.String(length=128), nullable=False),
        sa.Column("subscriber_kind", sa.String(length=16), nullable=False),
        sa.Column("subscriber_id", sa.String(length=128), nullable=False),
        sa.Column("repo", sa.String(length=255), nullable=False),
        sa.Column("module", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_subscriptions"),
        sa.UniqueConstraint("platform", "workspace", "subscriber_kind", "subscriber_id", "repo", "module",
                            name="uq_subscriptions_key"),
    )
    op.create_index("ix_subscriptions_repo_module", "subscriptions", ["repo", "module"])
    op.create_table(
        "processed_events",
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("event_key", sa.String(length=255), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("platform", "event_key", name="pk_processed_events"),
    )
    op.create_index("ix_processed_events_received_at", "processed_events", ["received_at"])
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("repo", sa.String(length=255), nullable=False),
        sa.Column("week", sa.String(length=16), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("destination", sa.String(length=128), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message_id", sa.String(length=128), nullable=True),
        sa.Column("thread_id", sa.String(length=128), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('sending', 'sent', 'failed')", name="ck_deliveries_status_known"),
        sa.PrimaryKeyConstraint("id", name="pk_deliveries"),
        sa.UniqueConstraint("repo", "week", "platform", "destination", "kind", "part", name="uq_deliveries_key"),
    )
    op.create_index("ix_deliveries_status", "deliveries", ["status"])


def downgrade() -> None:
    op.drop_index("ix_deliveries_status", table_name="deliveries")
    op.drop_table("deliveries")
    op.drop_index("ix_processed_events_received_at", table_name="processed_events")
    op.drop_table("processed_events")
    op.drop_index("ix_subscriptions_repo_module", table_name="subscriptions")
    op.drop_table("subscriptions")
