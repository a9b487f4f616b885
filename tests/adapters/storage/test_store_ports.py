"""``SqlStore`` is a façade over one class per port (``adapters/storage/<port>.py``) on a shared
``StoreEngine``: each port method comes from its module, no two modules define the same name, and
a port class works alone over an engine. On SQLite and (with PRHUB_TEST_DATABASE_URL) PostgreSQL."""

from __future__ import annotations

import inspect
from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from adapters.storage import SqlStore
from adapters.storage.engine import StoreEngine, StorePort
from adapters.storage.schema import SUBSCRIPTIONS
from adapters.storage.subscriptions import SqlSubscriptions
from chatbot.approvals import ApprovalBook
from chatbot.deliveries import DeliveryLog, SubscriberDirectory
from chatbot.events import EventLog
from chatbot.pr_history import HistoryStore
from chatbot.ports import PullRequestStore, SummaryCache
from chatbot.subscriptions import Subscription, SubscriptionBook
from tests.fakes.inbound import MovableClock

# every method a port of chatbot/ asks of the store -> the module that holds it
PORT_METHODS = {
    PullRequestStore: {"upsert_prs": "prs", "merged_between": "prs", "store_week": "prs", "week_fetch": "prs",
                       "newest_merged_at": "history"},
    HistoryStore: {"oldest_merged_at": "history", "merged_span": "history", "merged_at_of": "history",
                   "authors_before": "history", "merged_between": "prs", "titles_between": "prs"},
    DeliveryLog: {"claim_delivery": "deliveries", "take_over_delivery": "deliveries", "renew_delivery": "deliveries",
                  "release_delivery": "deliveries", "unfinished_deliveries": "deliveries",
                  "touch_delivery": "deliveries", "mark_delivery_sent": "deliveries",
                  "mark_delivery_failed": "deliveries", "deliveries_of": "deliveries", "has_deliveries": "deliveries"},
    SubscriberDirectory: {"subscriptions_for_repo": "subscriptions"},
    SubscriptionBook: {"subscribe": "subscriptions", "unsubscribe": "subscriptions",
                       "subscriptions_of": "subscriptions"},
    ApprovalBook: {"open_approval": "approvals", "approval": "approvals", "decide_approval": "approvals",
                   "due_approvals": "approvals"},
    SummaryCache: {"get_summary": "summaries", "put_summary": "summaries"},
    EventLog: {"claim_event": "events", "mark_event_answered": "events"},
}


def _protocol_methods(proto: type) -> set[str]:
    return {n for n, v in vars(proto).items() if inspect.isfunction(v) and not n.startswith("_")}


@pytest.mark.parametrize("proto", list(PORT_METHODS), ids=lambda p: p.__name__)
def test_each_port_method_comes_from_its_module(proto):
    """The table names every method of the Protocol, and ``SqlStore`` resolves each to that module."""
    assert _protocol_methods(proto) == set(PORT_METHODS[proto])
    for name, module in PORT_METHODS[proto].items():
        assert getattr(SqlStore, name).__module__ == f"adapters.storage.{module}", name


def test_no_two_port_modules_define_the_same_name():
    """A name defined in two bases would be shadowed silently by the earlier one in the MRO."""
    ports = [c for c in SqlStore.__mro__ if c not in (SqlStore, StorePort, object)]
    assert [c.__module__.rsplit(".", 1)[1] for c in ports] == [
        "prs", "history", "deliveries", "subscriptions", "summaries", "approvals", "events", "outbox", "health"]
    seen: dict[str, str] = {n: "StorePort" for n in vars(StorePort) if not n.startswith("__")}
    for cls in ports:
        for name in vars(cls):
            if name.startswith("__"):
                continue
            assert name not in seen, f"{name} is defined in {seen.get(name)} and {cls.__name__}"
            seen[name] = cls.__name__
    assert len(seen) == 5 + 55  # StorePort's url, _engine, _errors, _read, _insert; the ports' methods


def test_a_port_class_works_alone_over_an_engine(db_url):
    """``SqlSubscriptions`` over its own ``StoreEngine`` writes what the façade reads, stamped by its clock."""
    t0 = datetime(2026, 5, 17, 12, 0, tzinfo=timezone.utc)
    db = StoreEngine.open(db_url)
    try:
        book = SqlSubscriptions(db, MovableClock(t0))
        sub = Subscription(platform="slack", workspace="T_TEST", kind="user", subscriber="U_ALICE",
                           repo="vllm-project/vllm", module="attention")
        assert book.subscribe(sub) is True
        assert book.subscribe(sub) is False
        with db.engine.connect() as conn:
            assert conn.execute(select(SUBSCRIPTIONS.c.created_at)).scalars().all() == [t0]
    finally:
        db.dispose()
    with SqlStore.open(db_url, clock=MovableClock(t0)) as store:
        assert store.subscriptions_to("VLLM-project/vllm") == [sub]
