"""Approvals of the weekly post: one row per (repo, week), pending until approved, skipped or due.

Revision ID: 0006_approvals
Revises: 0005_summary_cache
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_approvals"
down_revision: str | Sequence[str] | None = "0005_summary_cache"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "approvals",
        sa.Column("repo", sa.String(length=255), nullable=False),
        sa.Column("week", sa.String(length=16), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("state IN ('pending', 'approved', 'skipped')", name="ck_approvals_state_known"),
        sa.PrimaryKeyConstraint("repo", "week", name="pk_approvals"),
    )
    op.create_index("ix_approvals_state_deadline", "approvals", ["state", "deadline"])


def downgrade() -> None:
    op.drop_index("ix_approvals_state_deadline", table_name="approvals")
    op.drop_table("approvals")
