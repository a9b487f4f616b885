"""The store's tables as SQLAlchemy 2 typed declarative models.

Current tables (Alembic baseline ``0001_baseline``):

* ``pull_requests``: one row per merged PR, keyed by ``(repo, number)``. ``merged_at`` (UTC),
  ``author_login`` and ``title`` are columns for queries; ``data`` holds the whole domain
  :class:`~chatbot.models.PullRequest` as JSON (``model_dump(mode="json")``) and is the source of
  truth when reading back. ``content_sha256`` (of the canonical JSON) decides whether an upsert
  changes a row; ``revision`` starts at 1 and grows by one per real change.
* ``week_fetches``: one row per stored fetch of a week (history, newest wins).

Revision ``0002_chat_and_deliveries``:

* ``subscriptions``: one row per (platform, workspace, subscriber kind, subscriber id, repo,
  module), enforced by a unique constraint (inserts are insert-on-conflict-do-nothing).
* ``processed_events``: inbound chat events already accepted, keyed by (platform, event key):
  Slack ``team:channel:ts`` (``event_id`` as fallback), Feishu ``message_id`` (``event_id`` when
  absent); ``received_at`` lets old rows be purged after the retention (>= 8 h).
* ``deliveries``: the delivery log, one row per (repo, week, platform, destination, kind, part);
  ``status`` is ``sending`` before the platform call, ``sent`` (with the platform message id)
  after, or ``failed`` with a reason. The unique key makes two replicas post once.

Revision ``0007_event_answered``:

* ``processed_events.owner`` (the claiming process, ``host:pid:start`` as ``deliveries.owner``) and
  ``answered_at`` (set once the reply is posted; rows from before the revision count as answered),
  so a retry of an event whose claimant died before answering is answered once (issue 9).

Revision ``0004_import_source_hash``:

* ``pull_requests.source_sha256``: SHA-256 of the raw export record the row was imported from
  (:func:`adapters.export.ghjson.record_sha256`), NULL for rows from GitHub; a re-import skips a
  record whose hash equals it before validating or encoding anything.

Revision ``0005_summary_cache``:

* ``summaries``: the LLM writer's cache, one row per (subject, content hash, model), so that a
  re-run of the same week with the same model costs 0 tokens.

Revision ``0006_approvals``:

* ``approvals``: the optional approval of a repository's weekly post, one row per (repo, week):
  ``state`` ``pending`` (preview sent to the admins) until an admin approves or skips it or the
  deadline passes; the one ``UPDATE ... WHERE state = 'pending'`` that changes it wins, so two
  clicks or two replicas decide once.

Later issues add their tables (deliveries, subscriptions, event dedup) here *and* in a new Alembic
revision under ``migrations/versions/``; the baseline is never edited.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, cast

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Dialect,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC instant on every backend.

    PostgreSQL stores ``timestamp with time zone``; SQLite stores naive UTC text (fixed width, so it
    sorts and compares as time). Values read back are aware UTC datetimes.

    Raises:
        ValueError: binding a naive datetime (the store only takes aware instants).
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value.isoformat()}: the store takes aware UTC instants")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of every store table; its ``metadata`` is Alembic's target."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON()}


class PullRequestRow(Base):
    """A stored merged PR of ``repo`` (``owner/name``); ``data`` is the full domain PR as JSON."""

    __tablename__ = "pull_requests"

    repo: Mapped[str] = mapped_column(String(255), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    merged_at: Mapped[datetime]
    author_login: Mapped[str | None] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(Text)
    data: Mapped[dict[str, Any]]
    content_sha256: Mapped[str] = mapped_column(String(64))
    revision: Mapped[int] = mapped_column(Integer, default=1)
    source_sha256: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        Index("ix_pull_requests_repo_merged_at", "repo", "merged_at"),
        Index("ix_pull_requests_repo_author_login", "repo", "author_login"),
    )


class WeekFetchRow(Base):
    """One stored fetch of ``week`` (``2026-W20``) of ``repo`` in zone ``tz``; instants in UTC."""

    __tablename__ = "week_fetches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    repo: Mapped[str] = mapped_column(String(255))
    week: Mapped[str] = mapped_column(String(16))
    tz: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime]
    prs: Mapped[int] = mapped_column(Integer)
    requests: Mapped[int] = mapped_column(Integer)

    __table_args__ = (
        CheckConstraint("prs >= 0", name="prs_not_negative"),
        CheckConstraint("requests >= 0", name="requests_not_negative"),
        Index("ix_week_fetches_repo_week_tz", "repo", "week", "tz", "started_at"),
    )


class SubscriptionRow(Base):
    """A subscription of a user or channel to one module of one repository (normalised ids)."""

    __tablename__ = "subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform: Mapped[str] = mapped_column(String(16))
    workspace: Mapped[str] = mapped_column(String(128))
    subscriber_kind: Mapped[str] = mapped_column(String(16))
    subscriber_id: Mapped[str] = mapped_column(String(128))
    repo: Mapped[str] = mapped_column(String(255))
    module: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]

    __table_args__ = (
        UniqueConstraint("platform", "workspace", "subscriber_kind", "subscriber_id", "repo", "module",
                         name="uq_subscriptions_key"),
        Index("ix_subscriptions_repo_module", "repo", "module"),
    )


class FirstMergeRow(Base):
    """The first stored merge of each human author of ``repo`` (one row per author), kept by every
    PR upsert, so "who is new this week" is one indexed read however long the history (issue 20:
    reading every earlier PR of each author cost 59-62x at 50x history). Bots (``is_bot`` or a
    ``[bot]`` login suffix) get no row."""

    __tablename__ = "first_merges"

    repo: Mapped[str] = mapped_column(String(255), primary_key=True)
    author_login: Mapped[str] = mapped_column(String(255), primary_key=True)
    first_merged_at: Mapped[datetime]


class ProcessedEventRow(Base):
    """An inbound chat event accepted for processing (persistent de-duplication)."""

    __tablename__ = "processed_events"

    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    event_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    received_at: Mapped[datetime]
    owner: Mapped[str | None] = mapped_column(String(128))
    answered_at: Mapped[datetime | None]

    __table_args__ = (Index("ix_processed_events_received_at", "received_at"),)


class OutboxRow(Base):
    """A chat reply that failed to send, kept until it is posted (:mod:`chatbot.outbox`)."""

    __tablename__ = "reply_outbox"

    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    event_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    payload: Mapped[dict[str, Any]]
    attempts: Mapped[int]
    next_at: Mapped[datetime]
    created_at: Mapped[datetime]
    last_error: Mapped[str] = mapped_column(String(300))
    done_at: Mapped[datetime | None]
    """When it was posted or given up (``sent`` says which); NULL while pending."""
    sent: Mapped[bool]

    __table_args__ = (Index("ix_reply_outbox_done_at_next_at", "done_at", "next_at"),)


class DeliveryRow(Base):
    """One part of one digest (or subscription slice) delivered to one destination."""

    __tablename__ = "deliveries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    repo: Mapped[str] = mapped_column(String(255))
    week: Mapped[str] = mapped_column(String(16))
    platform: Mapped[str] = mapped_column(String(16))
    destination: Mapped[str] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(64))
    part: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    message_id: Mapped[str | None] = mapped_column(String(128))
    thread_id: Mapped[str | None] = mapped_column(String(128))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    owner: Mapped[str | None] = mapped_column(String(128))

    __table_args__ = (
        UniqueConstraint("repo", "week", "platform", "destination", "kind", "part", name="uq_deliveries_key"),
        CheckConstraint("status IN ('sending', 'sent', 'failed')", name="status_known"),
        Index("ix_deliveries_status", "status"),
    )


class SummaryRow(Base):
    """Model-written text of the LLM writer, keyed by subject (``digest:<repo>:<week>:<lang>``),
    the SHA-256 of the facts it was written from, and the model; tokens as the server reported."""

    __tablename__ = "summaries"

    subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    content_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    model: Mapped[str] = mapped_column(String(255), primary_key=True)
    payload: Mapped[dict[str, Any]]
    prompt_tokens: Mapped[int] = mapped_column(Integer)
    completion_tokens: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime]


class ApprovalRow(Base):
    """The approval state of one weekly post (``approval: true`` repositories)."""

    __tablename__ = "approvals"

    repo: Mapped[str] = mapped_column(String(255), primary_key=True)
    week: Mapped[str] = mapped_column(String(16), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))
    deadline: Mapped[datetime | None]
    decided_by: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime]
    decided_at: Mapped[datetime | None]

    __table_args__ = (
        CheckConstraint("state IN ('pending', 'approved', 'skipped')", name="state_known"),
        Index("ix_approvals_state_deadline", "state", "deadline"),
    )


PULL_REQUESTS = cast(Table, PullRequestRow.__table__)
"""The ``pull_requests`` table (for Core statements)."""
WEEK_FETCHES = cast(Table, WeekFetchRow.__table__)
"""The ``week_fetches`` table (for Core statements)."""
SUBSCRIPTIONS = cast(Table, SubscriptionRow.__table__)
"""The ``subscriptions`` table."""
SUMMARIES = cast(Table, SummaryRow.__table__)
"""The ``summaries`` table (LLM writer cache)."""
FIRST_MERGES = cast(Table, FirstMergeRow.__table__)
"""The ``first_merges`` table."""
PROCESSED_EVENTS = cast(Table, ProcessedEventRow.__table__)
"""The ``processed_events`` table."""
DELIVERIES = cast(Table, DeliveryRow.__table__)
"""The ``deliveries`` table."""
APPROVALS = cast(Table, ApprovalRow.__table__)
"""The ``approvals`` table."""
REPLY_OUTBOX = cast(Table, OutboxRow.__table__)
"""The ``reply_outbox`` table."""
