"""Baseline: pull_requests and week_fetches.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-05-20

Never edit this file once released: later tables (deliveries, subscriptions, event dedup) come in
new revisions whose ``down_revision`` chains back to this one.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_baseline"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pull_requests",
        sa.Column("repo", sa.String(length=255), nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("merged_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("author_login", sa.String(length=255), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("content_sha256", sa.String(length=64), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("repo", "number", name="pk_pull_requests"),
    )
    op.create_index("ix_pull_requests_repo_merged_at", "pull_requests", ["repo", "merged_at"])
    op.create_index("ix_pull_requests_repo_author_login", "pull_requests", ["repo", "author_login"])
    op.create_table(
        "week_fetches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("repo", sa.String(length=255), nullable=False),
        sa.Column("week", sa.String(length=16), nullable=False),
        sa.Column("tz", sa.String(length=64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("prs", sa.Integer(), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.CheckConstraint("prs >= 0", name="ck_week_fetches_prs_not_negative"),
        sa.CheckConstraint("requests >= 0", name="ck_week_fetches_requests_not_negative"),
        sa.PrimaryKeyConstraint("id", name="pk_week_fetches"),
    )
    op.create_index("ix_week_fetches_repo_week_tz", "week_fetches", ["repo", "week", "tz", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_week_fetches_repo_week_tz", table_name="week_fetches")
    op.drop_table("week_fetches")
    op.drop_index("ix_pull_requests_repo_author_login", table_name="pull_requests")
    op.drop_index("ix_pull_requests_repo_merged_at", table_name="pull_requests")
    op.drop_table("pull_requests")
