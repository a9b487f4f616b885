"""Test doubles of the scheduler's ports: a recording :class:`ChatDelivery`, a test clock and sleeper.

``RecordingDelivery`` behaves like a platform: every accepted ``send`` gets a new message id, is
remembered with its ``delivery_key`` (so ``find_sent`` can reconcile), and scripted failures
(``DeliveryError``) can be queued per (target, part number of the card).
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from chatbot.errors import DeliveryError
from chatbot.ports import Destination, SentMessage


@dataclass
class Post:
    """One accepted message."""

    platform: str
    target: str
    card: object
    thread: str | None
    key: str
    message_id: str
    at: datetime


@dataclass
class Call:
    """One ``send`` call (accepted or not)."""

    target: str
    part: int
    key: str
    at: datetime
    error: str | None = None


class TestClock:
    """A settable UTC clock."""

    __test__ = False

    def __init__(self, now: datetime) -> None:
        self._now = now.astimezone(timezone.utc)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)


class SystemClock:
    """``datetime.now(UTC)`` (moved by time-machine in scheduler tests)."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


class ClockSleeper:
    """A sleeper that records waits and advances a :class:`TestClock` instead of sleeping."""

    def __init__(self, clock: TestClock | None = None) -> None:
        self.clock = clock
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.clock is not None:
            self.clock.advance(seconds)


@dataclass
class RecordingDelivery:
    """A :class:`chatbot.ports.ChatDelivery` double that records posts and plays scripted failures."""

    platform: str = "slack"
    clock: object = None
    posts: list[Post] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    script: dict[tuple[str, int], list[DeliveryError]] = field(default_factory=dict)
    crash_after_accept: bool = False
    dedup_by_key: bool = False
    lookups: int = 0

    rate_limit_reasons: frozenset[str] = frozenset({"ratelimited"})

    @property
    def dedup_window_seconds(self) -> float:
        """The policy of the platform the double plays: Feishu's ``uuid`` window, else none."""
        return 3300.0 if self.platform == "feishu" else 0.0

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def fail(self, target: str, part: int, *errors: DeliveryError) -> None:
        """Queue ``errors`` for the next sends of part ``part`` to ``target``."""
        self.script.setdefault((target, part), []).extend(errors)

    def _now(self) -> datetime:
        return self.clock.now() if self.clock is not None else datetime.now(timezone.utc)

    def send(self, destination: Destination, card: object, *, thread: str | None, delivery_key: str) -> SentMessage:
        part = getattr(card, "part", 1)
        with self._lock:
            queued = self.script.get((destination.target, part))
            if queued:
                err = queued.pop(0)
                self.calls.append(Call(destination.target, part, delivery_key, self._now(), err.reason))
                raise err
            self.calls.append(Call(destination.target, part, delivery_key, self._now()))
            if self.dedup_by_key:
                old = next((p for p in self.posts if p.key == delivery_key), None)
                if old is not None:
                    return SentMessage(old.message_id, old.thread or old.message_id)
            mid = f"{1718000100 + next(self._ids)}.000100"
            self.posts.append(Post(self.platform, destination.target, card, thread, delivery_key, mid, self._now()))
            if self.crash_after_accept:
                raise KeyboardInterrupt("killed after the platform accepted")
            return SentMessage(mid, thread or mid)

    def find_sent(self, destination: Destination, delivery_key: str, around: datetime,
                  thread: str | None = None) -> SentMessage | None:
        with self._lock:
            self.lookups += 1
            for p in self.posts:
                if p.key == delivery_key and p.target == destination.target:
                    return SentMessage(p.message_id, p.thread or p.message_id)
        return None

    def to(self, target: str) -> list[Post]:
        return [p for p in self.posts if p.target == target]


def ratelimited(retry_after: float = 2) -> DeliveryError:
    return DeliveryError("Slack rate-limited the bot", reason="ratelimited", retry_after=retry_after)


@dataclass
class UploadingDelivery(RecordingDelivery):
    """A :class:`RecordingDelivery` that also implements :class:`chatbot.ports.ImageUploader`:
    Slack-like (``images_in_cards=False``: the upload goes into a thread) or Feishu-like (True: the
    returned key goes into a card). ``events`` orders sends and uploads; ``upload_errors`` are
    raised by the next uploads."""

    images_in_cards: bool = False
    uploads: list[tuple[str, bytes, str, str | None, str]] = field(default_factory=list)
    upload_errors: list[DeliveryError] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    def send(self, destination: Destination, card: object, *, thread: str | None, delivery_key: str) -> SentMessage:
        sent = super().send(destination, card, thread=thread, delivery_key=delivery_key)
        self.events.append(f"send {getattr(card, 'part', 1)}")
        return sent

    def upload_image(self, destination: Destination, png: bytes, *, title: str, thread: str | None) -> str:
        if self.upload_errors:
            self.events.append("upload failed")
            raise self.upload_errors.pop(0)
        ref = f"img_{len(self.uploads) + 1}"
        self.uploads.append((destination.target, png, title, thread, ref))
        self.events.append("upload")
        return ref
