"""The optional approval of a repository's weekly post, as the core sees it: its record and its port.

With ``approval: true`` (per repository in the configuration) the weekly job sends the digest to
the admins first, as a preview with Approve / Skip buttons, and records the week as ``pending``.
The first decision wins, exactly once across clicks, replicas and restarts (the store changes a
row only while it is ``pending``): an admin's Approve, or the deadline, makes it ``approved`` and
the post goes out; Skip makes it ``skipped`` and nothing is posted. The SQL implementation lives in
``adapters/storage``; the flow (previews, buttons, deadline) in ``scheduler/approval.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

State = Literal["pending", "approved", "skipped"]

PENDING: State = "pending"
APPROVED: State = "approved"
SKIPPED: State = "skipped"


class ApprovalRecord(BaseModel):
    """The approval state of one weekly post.

    Attributes:
        repo: ``owner/name``; week: ISO week ``2026-W20``.
        state: ``pending``, ``approved`` or ``skipped``.
        deadline: when a pending post goes out by itself (aware UTC; None: only on approval).
        decided_by: ``platform:workspace:user`` of the admin, or ``deadline`` (None while pending).
        created_at, decided_at: aware UTC.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    repo: str
    week: str
    state: State
    deadline: datetime | None = None
    decided_by: str | None = None
    created_at: datetime
    decided_at: datetime | None = None


class ApprovalBook(Protocol):
    """Port: persistent approvals (implemented by the store)."""

    def open_approval(self, repo: str, week: str, deadline: datetime | None, now: datetime) -> tuple[ApprovalRecord, bool]:
        """The record of (repo, week), created ``pending`` when absent; True when this call created it."""
        ...

    def approval(self, repo: str, week: str) -> ApprovalRecord | None:
        """The record of (repo, week), None when there is none."""
        ...

    def decide_approval(self, repo: str, week: str, state: State, by: str, now: datetime) -> bool:
        """Move a ``pending`` record to ``state``; True for the one caller that changed it."""
        ...

    def due_approvals(self, now: datetime) -> list[ApprovalRecord]:
        """Pending records whose deadline is at or before ``now``, oldest deadline first."""
        ...
