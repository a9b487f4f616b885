"""Ports: the interfaces the core owns and the adapters implement (cosmicpython style).

The core and the scheduler depend on these Protocols only; ``prhub/bootstrap.py`` injects the
concrete adapters (file source, GitHub source, SQLAlchemy store, one delivery per chat platform).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from chatbot.models import PullRequest


class Clock(Protocol):
    """Source of the current time (aware, UTC). Tests pass a fixed clock."""

    def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


@dataclass(frozen=True)
class FetchResult:
    """What one fetch of merged PRs brought: the PRs and how many HTTP requests and points it cost."""

    prs: list[PullRequest]
    requests: int = 0
    complete: bool = True
    matched: int | None = None
    """How many PRs the source said matched (differs from ``len(prs)`` only when incomplete)."""
    points: int = 0
    """GraphQL points the fetch cost (GitHub's ``rateLimit.cost`` summed; 0 for other sources)."""


class PullRequestSource(Protocol):
    """Where merged PRs come from (a gh-JSON export, the GitHub API, the store)."""

    def merged_between(self, repo: str, start: datetime, end: datetime) -> FetchResult:
        """PRs of ``repo`` merged in the half-open window ``[start, end)`` (aware datetimes).

        Raises:
            chatbot.errors.PrhubError: the source cannot answer (rate limit, permission, bad input).
        """
        ...


@dataclass(frozen=True)
class WeekFetch:
    """The record of one stored fetch of a week: when it began and ended (UTC), PRs and requests."""

    repo: str
    week: str
    tz: str
    started_at: datetime
    finished_at: datetime
    prs: int
    requests: int


class PullRequestStore(Protocol):
    """Persistent PRs, upserted by (repo, number); history for trends and new contributors."""

    def upsert_prs(self, repo: str, prs: Sequence[PullRequest]) -> tuple[int, int]:
        """Insert or update PRs in one transaction; returns ``(inserted, updated)`` (unchanged rows count in neither).

        Raises:
            chatbot.errors.PrhubError: the store cannot write (nothing was written).
        """
        ...

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """Stored PRs of ``repo`` merged in ``[start, end)`` (aware datetimes), in number order.

        Raises:
            chatbot.errors.PrhubError: the store cannot answer.
        """
        ...

    def store_week(self, repo: str, prs: Sequence[PullRequest], fetch: WeekFetch) -> tuple[int, int]:
        """Upsert a week's PRs and record its fetch, in one transaction (whole or not at all).

        Returns ``(inserted, updated)`` as :meth:`upsert_prs` (callers may ignore it).

        Raises:
            chatbot.errors.PrhubError: the store cannot write (nothing was written).
        """
        ...

    def week_fetch(self, repo: str, week: str, tz: str) -> WeekFetch | None:
        """The latest recorded fetch of that week (``2026-W20``, IANA ``tz``), if any."""
        ...

    def newest_merged_at(self, repo: str) -> datetime | None:
        """The newest stored ``merged_at`` of ``repo`` (aware UTC); None when the store has none."""
        ...


@dataclass(frozen=True)
class Destination:
    """Where a message goes: a channel, group or user on one chat platform, with its language.

    ``platform`` is the platform's registry name (checked against ``prhub/platforms.py`` when the
    configuration loads); ``target`` the channel, chat or user id there (e.g. a Slack channel
    ``C_DIGEST`` or user ``U_ALICE``, a Feishu ``chat_id``/``open_id``); ``workspace`` the
    workspace or tenant id when known.
    """

    platform: str
    target: str
    lang: str = "en"
    workspace: str = ""


@dataclass(frozen=True)
class SentMessage:
    """A message the platform accepted: its id (Slack ``ts``, Feishu ``message_id``) and the thread
    the following parts go to (the first part's id)."""

    message_id: str
    thread_id: str | None = None


class ChatDelivery(Protocol):
    """Port: posting cards to one chat platform (``SlackDelivery``, ``FeishuDelivery``).

    Implementations translate a :class:`chatbot.cards.Card` with their converter and call the
    platform once per ``send``; they never retry (the scheduler owns retries and the delivery log).
    Each states its platform's policy, which the scheduler follows without knowing the platform:
    """

    platform: str
    """The platform's registry name (``prhub/platforms.py``)."""

    dedup_window_seconds: float
    """How long (seconds, with a safety margin) the platform drops a second send carrying the same
    ``delivery_key``; 0 when it does not (the scheduler then re-sends only after ``find_sent``)."""

    rate_limit_reasons: frozenset[str]
    """The :attr:`DeliveryError.reason` values that mean "rate-limited": such a failure posted
    nothing, so it is retried without asking ``find_sent`` first."""

    def send(self, destination: Destination, card: object, *, thread: str | None, delivery_key: str) -> SentMessage:
        """Post one card (one part), in ``thread`` when given; ``delivery_key`` is stable per
        (repo, week, destination, kind, part) and travels with the message (Slack ``metadata``,
        Feishu ``uuid``) for reconciliation.

        Raises:
            chatbot.errors.DeliveryError: the platform refused or failed (``retry_after`` seconds
                when it said so, ``permanent`` when retrying cannot help).
        """
        ...

    def find_sent(self, destination: Destination, delivery_key: str, around: datetime,
                  thread: str | None = None) -> SentMessage | None:
        """Reconciliation after a crash: the message carrying ``delivery_key`` posted near
        ``around`` (UTC) — at the top level, or in ``thread`` (the first part's message id) when
        given — or None when none was posted. Feishu may return None and rely on the platform's
        1-hour ``uuid`` de-duplication.

        Raises:
            chatbot.errors.DeliveryError: the lookup itself failed.
        """
        ...


class ImageUploader(Protocol):
    """Optional capability of a :class:`ChatDelivery`: uploading an image (the weekly chart).

    ``images_in_cards`` says where an uploaded image shows: True (Feishu) — the returned reference
    is an image key to put in a card (:class:`chatbot.cards.Image`), so the upload comes *before*
    the card that shows it and ``thread`` is ignored; False (Slack) — the upload itself shares the
    image into ``thread`` (part 1's message id), so it comes *after* part 1.
    """

    images_in_cards: bool

    def upload_image(self, destination: Destination, png: bytes, *, title: str, thread: str | None) -> str:
        """Upload ``png`` (PNG bytes) for ``destination`` with the plain-text ``title``.

        Called at most once per (repo, week, destination) by the scheduler, which records it in
        the delivery log (implementations never retry: a retried share could show twice).

        Returns:
            The platform's reference of the image (Feishu ``image_key``, Slack file id).

        Raises:
            chatbot.errors.DeliveryError: the platform refused or failed.
        """
        ...


@dataclass(frozen=True)
class FileUpload:
    """A file to post into a conversation (the full report when no public URL can link to it).

    Attributes:
        data: the file's bytes.
        filename: the name readers see and save it as (``vllm-project-vllm-2026-W20.pdf``).
        title: a plain-text title (Slack shows it above the file).
        kind: what the file is, by its suffix (``pdf``); platforms map it to their own file types.
    """

    data: bytes
    filename: str
    title: str
    kind: str = "pdf"


class FileUploader(Protocol):
    """Optional capability of a :class:`ChatDelivery`: posting a file into a conversation (Slack
    ``files_upload_v2``, Feishu ``im/v1/files`` then a ``file`` message). A platform adds it by
    implementing :meth:`upload_file` and :attr:`max_file_bytes`; the core and the scheduler only ask
    for "attach this file" and never know how.
    """

    max_file_bytes: int
    """The largest file the platform takes (bytes); a larger one is not sent."""

    def upload_file(self, destination: Destination, file: FileUpload, *, thread: str | None,
                    delivery_key: str) -> str:
        """Post ``file`` to ``destination``, in ``thread`` (a message id) when given.

        Called at most once per delivery key by its callers (a retried upload could show twice;
        ``delivery_key`` also goes to platforms that de-duplicate by key).

        Returns:
            The platform's reference of the posted file (Slack file id, Feishu message id).

        Raises:
            chatbot.errors.DeliveryError: the platform refused or failed.
        """
        ...


def file_uploader(delivery: object) -> FileUploader | None:
    """``delivery`` as a :class:`FileUploader` when it implements ``upload_file`` and states
    ``max_file_bytes``, else None (a wrapper or test double without it attaches nothing)."""
    if callable(getattr(delivery, "upload_file", None)) and isinstance(getattr(delivery, "max_file_bytes", None), int):
        return delivery  # type: ignore[return-value]
    return None


def dedup_window_seconds(delivery: object) -> float:
    """``delivery.dedup_window_seconds`` (0.0 when a wrapper or double does not state it)."""
    value: object = getattr(delivery, "dedup_window_seconds", 0.0)
    return float(value) if isinstance(value, (int, float)) else 0.0


def rate_limit_reasons(delivery: object) -> frozenset[str]:
    """``delivery.rate_limit_reasons`` (empty when a wrapper or double does not state it)."""
    value: object = getattr(delivery, "rate_limit_reasons", frozenset())
    return frozenset(value) if isinstance(value, (set, frozenset, tuple, list)) else frozenset()


def image_uploader(delivery: object) -> ImageUploader | None:
    """``delivery`` as an :class:`ImageUploader` when it implements ``upload_image``, else None
    (a wrapper or test double without it simply posts no chart)."""
    if callable(getattr(delivery, "upload_image", None)) and isinstance(getattr(delivery, "images_in_cards", None), bool):
        return delivery  # type: ignore[return-value]
    return None


@dataclass(frozen=True)
class ModelAnswer:
    """One chat-completion answer: its text and the tokens it cost (as the server reports them)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelClient(Protocol):
    """A language model behind an OpenAI-compatible chat-completions API (the LLM writer's port)."""

    @property
    def model(self) -> str:
        """The model name answers come from (part of the summary cache key)."""
        ...

    def complete(self, system: str, user: str, schema: dict[str, Any] | None = None, *,
                 timeout_s: float | None = None) -> ModelAnswer:
        """One chat completion asking for a JSON object; with ``schema`` (the ``json_schema`` member of
        ``response_format``: ``{"name", "strict", "schema"}``) for one of that shape, where the server
        supports structured output (else a plain JSON object); within ``timeout_s`` wall-clock seconds
        (None: the client's own per-request limit; a given one never raises that limit).

        Raises:
            chatbot.errors.ModelError: timeout, rate limit beyond the retry, server or connection error,
                an answer too large or not a chat completion.
        """
        ...


@dataclass(frozen=True)
class TokenCount:
    """A text's length in the model's own tokens, and the model's context length (None: not said)."""

    tokens: int
    context: int | None = None


class SummaryCache(Protocol):
    """Model-written text kept by (subject, content hash, model), so that a re-run costs 0 tokens."""

    def get_summary(self, subject: str, content_hash: str, model: str) -> dict[str, object] | None:
        """The cached payload, or None."""
        ...

    def put_summary(self, subject: str, content_hash: str, model: str, payload: dict[str, object],
                    prompt_tokens: int, completion_tokens: int) -> None:
        """Store (or replace) a payload."""
        ...
