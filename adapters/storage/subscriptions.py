"""Chat subscriptions in the store: :class:`chatbot.subscriptions.SubscriptionBook` and the
:class:`chatbot.deliveries.SubscriberDirectory` a digest's fan-out reads."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from adapters.storage.engine import StorePort
from adapters.storage.schema import SUBSCRIPTIONS
from chatbot.subscriptions import Subscription


class SqlSubscriptions(StorePort):
    """The ``subscriptions`` table: subscribe and unsubscribe idempotently, list by subscriber or by repo."""

    def subscriptions_for_repo(self, repo: str) -> list[Subscription]:
        """Every subscription to ``repo`` (normalised), as :class:`chatbot.subscriptions.Subscription`,
        ordered by platform, workspace, subscriber kind, subscriber and module.

        Raises:
            StoreError: a database error.
        """
        from adapters.storage.schema import SUBSCRIPTIONS as s
        from chatbot.subscriptions import normalise

        stmt = (select(s).where(s.c.repo == normalise(repo))
                .order_by(s.c.platform, s.c.workspace, s.c.subscriber_kind, s.c.subscriber_id, s.c.module))
        with self._read("reading subscriptions") as conn:
            rows = conn.execute(stmt).mappings().all()
        return [Subscription(platform=r["platform"], workspace=r["workspace"], kind=r["subscriber_kind"],
                             subscriber=r["subscriber_id"], repo=r["repo"], module=r["module"]) for r in rows]

    def subscribe(self, sub: Subscription) -> bool:
        """Add a subscription: ``INSERT ... ON CONFLICT DO NOTHING`` on ``uq_subscriptions_key``.

        Idempotent under repeats and races (two workers subscribing at once leave one row); module
        and repo arrive normalised (:class:`~chatbot.subscriptions.Subscription` does it).

        Returns:
            True when the row is new, False when it already existed.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        row = {"platform": sub.platform, "workspace": sub.workspace, "subscriber_kind": sub.kind,
               "subscriber_id": sub.subscriber, "repo": sub.repo, "module": sub.module,
               "created_at": self._clock.now()}
        with self._errors("subscribing", writing=True), self._engine.begin() as conn:
            stmt = (
                self._insert(conn)(t).values(row)
                .on_conflict_do_nothing(index_elements=[t.c.platform, t.c.workspace, t.c.subscriber_kind,
                                                        t.c.subscriber_id, t.c.repo, t.c.module])
                .returning(t.c.id)
            )
            return conn.execute(stmt).first() is not None

    def unsubscribe(self, sub: Subscription) -> bool:
        """Remove a subscription.

        Returns:
            True when it existed.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        stmt = t.delete().where(t.c.platform == sub.platform, t.c.workspace == sub.workspace,
                                t.c.subscriber_kind == sub.kind, t.c.subscriber_id == sub.subscriber,
                                t.c.repo == sub.repo, t.c.module == sub.module)
        with self._errors("unsubscribing", writing=True), self._engine.begin() as conn:
            return (conn.execute(stmt).rowcount or 0) > 0

    def subscriptions_of(self, platform: str, workspace: str, kind: str, subscriber: str, repo: str) -> list[Subscription]:
        """The subscriptions of one subscriber to ``repo`` (normalised here), ordered by module.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        stmt = (select(t).where(t.c.platform == platform, t.c.workspace == workspace, t.c.subscriber_kind == kind,
                                t.c.subscriber_id == subscriber, t.c.repo == " ".join(repo.split()).casefold())
                .order_by(t.c.module))
        with self._read("reading subscriptions") as conn:
            return [_subscription(r) for r in conn.execute(stmt).mappings()]

    def subscriptions_to(self, repo: str, module: str | None = None) -> list[Subscription]:
        """Every subscription to ``repo`` (to one ``module`` when given), ordered by platform,
        workspace, kind, subscriber and module: the fan-out list of a digest.

        Raises:
            StoreError: a database error.
        """
        t = SUBSCRIPTIONS
        stmt = select(t).where(t.c.repo == " ".join(repo.split()).casefold())
        if module is not None:
            stmt = stmt.where(t.c.module == " ".join(module.split()).casefold())
        stmt = stmt.order_by(t.c.platform, t.c.workspace, t.c.subscriber_kind, t.c.subscriber_id, t.c.module)
        with self._read("reading subscriptions") as conn:
            return [_subscription(r) for r in conn.execute(stmt).mappings()]


def _subscription(r: Any) -> Subscription:
    return Subscription(platform=r["platform"], workspace=r["workspace"], kind=r["subscriber_kind"],
                        subscriber=r["subscriber_id"], repo=r["repo"], module=r["module"])
