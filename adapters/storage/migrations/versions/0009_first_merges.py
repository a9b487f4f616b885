"""The first stored merge of each human author per repository (``first_merges``; issue 20).

One row per ``(repo, author_login)``, filled here from the stored PRs (authors whose PR data says
``is_bot`` or whose login ends in ``[bot]`` get none) and kept by every PR upsert afterwards, so
"new contributors" reads one row per author instead of every earlier PR.

Revision ID: 0009_first_merges
Revises: 0008_reply_outbox
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_first_merges"
down_revision: str | Sequence[str] | None = "0008_reply_outbox"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "first_merges",
        sa.Column("repo", sa.String(length=255), nullable=False),
        sa.Column("author_login", sa.String(length=255), nullable=False),
        sa.Column("first_merged_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("repo", "author_login", name="pk_first_merges"),
    )
    prs = sa.table("pull_requests", sa.column("repo", sa.String()), sa.column("author_login", sa.String()),
                   sa.column("merged_at", sa.DateTime(timezone=True)), sa.column("data", sa.JSON()))
    is_bot = prs.c.data["author"]["is_bot"].as_boolean()
    first = (sa.select(prs.c.repo, prs.c.author_login, sa.func.min(prs.c.merged_at))
             .where(prs.c.author_login.is_not(None), sa.not_(prs.c.author_login.like("%[bot]")),
                    is_bot.is_(None) | is_bot.is_(False))
             .group_by(prs.c.repo, prs.c.author_login))
    target = sa.table("first_merges", sa.column("repo"), sa.column("author_login"), sa.column("first_merged_at"))
    op.execute(target.insert().from_select(["repo", "author_login", "first_merged_at"], first))


def downgrade() -> None:
    op.drop_table("first_merges")
