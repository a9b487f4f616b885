"""An in-memory SubscriptionBook for tests and benchmarks (the store implements the real one)."""

from __future__ import annotations

from chatbot.subscriptions import Subscription


class MemoryBook:
    """In-memory SubscriptionBook for tests (a set: insert-if-absent)."""

    def __init__(self) -> None:
        self.subs: set[Subscription] = set()

    def subscribe(self, sub: Subscription) -> bool:
        new = sub not in self.subs
        self.subs.add(sub)
        return new

    def unsubscribe(self, sub: Subscription) -> bool:
        had = sub in self.subs
        self.subs.discard(sub)
        return had

    def subscriptions_of(self, platform, workspace, kind, subscriber, repo):
        return sorted((s for s in self.subs if (s.platform, s.workspace, s.kind, s.subscriber, s.repo)
                       == (platform, workspace, kind, subscriber, repo.casefold())), key=lambda s: s.module)
