"""Subscriptions as the core sees them: the key of one subscription and the port that stores them.

A subscription is unique by (platform, workspace, subscriber kind, subscriber id, repo, module).
Module and repo are normalised (trimmed, case-folded, inner spaces collapsed) before they reach
the store, so ``Spec-Decode `` and ``spec-decode`` are one subscription. The store implements
:class:`SubscriptionBook` with insert-on-conflict (idempotent under repeats and races); the
SQLAlchemy implementation lives in ``adapters/storage``.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

PLATFORM_NAME = r"^[a-z][a-z0-9_-]{0,31}$"
"""A chat platform's registry name: lower-case letters, digits, ``-`` and ``_``."""


def normalise(value: str) -> str:
    """Trimmed, case-folded, inner whitespace collapsed: ``"  Spec  Decode "`` -> ``"spec decode"``."""
    return " ".join(value.split()).casefold()


class Subscription(BaseModel):
    """The unique key of one subscription (also its whole content).

    Attributes:
        platform: the chat platform's registry name (``prhub/platforms.py``).
        workspace: the platform's workspace or tenant id.
        kind: ``user`` (a person, DMed) or ``channel`` (a channel or group chat).
        subscriber: the user or channel id on that platform.
        repo: ``owner/name``, normalised.
        module: module id, normalised.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    platform: str = Field(pattern=PLATFORM_NAME)
    workspace: str
    kind: Literal["user", "channel"]
    subscriber: str
    repo: str
    module: str

    @field_validator("repo", "module")
    @classmethod
    def _normalise(cls, v: str) -> str:
        return normalise(v)


class Requester(BaseModel):
    """Who asks, and where: what a chat handler knows about the sender of a message.

    Attributes:
        platform: the chat platform's registry name (``prhub/platforms.py``).
        workspace: the platform's workspace or tenant id.
        user: sender's user id (``U_ALICE``, ``ou_ALICE``); never taken from the message text.
        channel: the conversation id (``C_DIGEST``, ``oc_GROUP``).
        is_admin: the sender is a platform admin per settings (may subscribe a channel).
        repo: the destination's default repository.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    platform: str = Field(pattern=PLATFORM_NAME)
    workspace: str
    user: str
    channel: str = ""
    is_admin: bool = False
    repo: str


class SubscriptionBook(Protocol):
    """Port: persistent subscriptions (implemented by the store)."""

    def subscribe(self, sub: Subscription) -> bool:
        """Add ``sub``; True if it is new, False if it already existed (never an error)."""
        ...

    def unsubscribe(self, sub: Subscription) -> bool:
        """Remove ``sub``; True if it existed."""
        ...

    def subscriptions_of(self, platform: str, workspace: str, kind: str, subscriber: str, repo: str) -> list[Subscription]:
        """The subscriptions of one subscriber to one repository, ordered by module."""
        ...
