"""Subscriptions (BR-09) and persistent event de-duplication (BR-06) in the SQL store, on SQLite
and (with PRHUB_TEST_DATABASE_URL) PostgreSQL."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select

from adapters.storage import SqlStore

from prhub.clock import SYSTEM_CLOCK
from adapters.storage.schema import PROCESSED_EVENTS, SUBSCRIPTIONS
from adapters.slack.inbound import strip_markup
from chatbot.queries import DigestCache, answer, parse
from chatbot.rules import shipped_rules
from chatbot.subscriptions import Requester, Subscription

T0 = datetime(2026, 5, 17, 12, 0, tzinfo=timezone.utc)


def sub(module="attention", **kw):
    base = dict(platform="slack", workspace="T_TEST", kind="user", subscriber="U_ALICE", repo="vllm-project/vllm", module=module)
    base.update(kw)
    return Subscription(**base)


def count(store, table):
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_subscribe_is_idempotent_and_normalised(store):
    assert store.subscribe(sub("attention")) is True
    assert store.subscribe(sub("Attention ")) is False
    assert store.subscribe(sub("  ATTENTION")) is False
    assert store.subscribe(sub("attention", platform="feishu", workspace="tenant_T", subscriber="ou_ALICE")) is True
    assert count(store, SUBSCRIPTIONS) == 2
    assert [s.module for s in store.subscriptions_of("slack", "T_TEST", "user", "U_ALICE", "vllm-project/vllm")] == ["attention"]
    assert len(store.subscriptions_to("vllm-project/vllm", "attention")) == 2
    assert store.unsubscribe(sub("attention")) is True
    assert store.unsubscribe(sub("attention")) is False
    assert store.subscriptions_of("slack", "T_TEST", "user", "U_ALICE", "vllm-project/vllm") == []


def test_concurrent_subscribers_leave_one_row(db_url):
    stores = [SqlStore.open(db_url, clock=SYSTEM_CLOCK), SqlStore.open(db_url, clock=SYSTEM_CLOCK)]
    try:
        for _ in range(5):
            barrier = threading.Barrier(2)
            results: list[bool] = []
            errors: list[BaseException] = []

            def worker(s, module):
                try:
                    barrier.wait()
                    results.append(s.subscribe(sub(module)))
                except BaseException as exc:  # noqa: BLE001
                    errors.append(exc)

            module = f"m{_}"
            threads = [threading.Thread(target=worker, args=(s, module if i else module.upper() + " ")) for i, s in enumerate(stores)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(10)
            assert not errors
            assert sorted(results) == [False, True]
        assert count(stores[0], SUBSCRIPTIONS) == 5
    finally:
        for s in stores:
            s.close()


def test_br09_second_subscribe_says_already_subscribed(store, vllm_rules):
    """The chat path: "subscribe attention" then "subscribe Attention " -> done, then already."""
    from chatbot.cards import block_text
    from chatbot.i18n import tr

    provider = DigestCache([], repo="vllm-project/vllm", rules=vllm_rules)
    req = Requester(platform="slack", workspace="T_TEST", user="U_ALICE", channel="C_DIGEST", repo="vllm-project/vllm")
    texts = []
    for text in ("<@U_BOT> subscribe attention", "<@U_BOT> subscribe Attention "):
        card = answer(parse(strip_markup(text, bot_ids={"U_BOT"})[0]), digest_provider=provider, now=T0, requester=req, subscriptions=store)
        texts.append(" ".join(block_text(b) for b in card.blocks))
    assert "Subscribed you" in texts[0]
    assert "already subscribed" in texts[1]
    assert count(store, SUBSCRIPTIONS) == 1


def test_claim_event_once_across_restart_and_hours(db_url):
    s1 = SqlStore.open(db_url, clock=SYSTEM_CLOCK)
    assert s1.claim_event("feishu", "msg:om_TEST1", T0) is True
    assert s1.claim_event("feishu", "msg:om_TEST1", T0 + timedelta(seconds=15)) is False
    assert s1.claim_event("slack", "msg:om_TEST1", T0) is True  # per platform
    s1.close()
    s2 = SqlStore.open(db_url, clock=SYSTEM_CLOCK)  # "restart"
    try:
        for dt in (timedelta(minutes=5), timedelta(hours=1), timedelta(hours=6)):
            assert s2.purge_events(T0 + dt) == 0
            assert s2.claim_event("feishu", "msg:om_TEST1", T0 + dt) is False
        assert s2.purge_events(T0 + timedelta(hours=8, seconds=1)) == 2
        assert count(s2, PROCESSED_EVENTS) == 0
        assert s2.claim_event("feishu", "x" * 400, T0) is True  # long keys are hashed
        assert s2.claim_event("feishu", "x" * 400, T0) is False
    finally:
        s2.close()


def test_concurrent_claims_give_one_winner(db_url):
    stores = [SqlStore.open(db_url, clock=SYSTEM_CLOCK), SqlStore.open(db_url, clock=SYSTEM_CLOCK)]
    try:
        barrier = threading.Barrier(2)
        results: list[bool] = []

        def worker(s):
            barrier.wait()
            results.append(s.claim_event("slack", "msg:T_TEST:C_DIGEST:1718000000.000100", T0))

        threads = [threading.Thread(target=worker, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert sorted(results) == [False, True]
    finally:
        for s in stores:
            s.close()


def test_an_unanswered_claim_of_a_dead_owner_is_taken_over_once_and_an_answered_one_never(db_url, tmp_path):
    """Issue 9: the retry of an event whose claimant died before answering is answered by one of two
    replicas; a live owner keeps its claim; another host's claim is taken over only after the stale
    window (PurgingEventLog, 60 s: at 59 s not, at exactly 60 s yes); an answered claim never."""
    from prhub.web import PurgingEventLog
    from scheduler.owner import ProcessOwner

    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    for pid, start in ((100, "5"), (200, "6"), (300, "7")):
        (proc / str(pid)).mkdir()
        (proc / str(pid) / "stat").write_text(f"{pid} (prhub) S " + " ".join(["0"] * 18) + f" {start} 0\n")
    dead, a, b = (ProcessOwner(host="h1", pid=p, proc=proc) for p in (100, 200, 300))
    stores = [SqlStore.open(db_url, clock=SYSTEM_CLOCK), SqlStore.open(db_url, clock=SYSTEM_CLOCK)]
    logs = [PurgingEventLog(st, timedelta(hours=8), owner=o) for st, o in zip(stores, (a, b))]
    try:
        key = "msg:T_TEST:C_Q:1718000000.000100"
        assert logs[0].claim_event("slack", key, T0) is True
        assert logs[1].claim_event("slack", key, T0 + timedelta(minutes=5)) is False  # a live owner keeps it
        assert PurgingEventLog(stores[0], timedelta(hours=8), owner=dead).claim_event("slack", "k2", T0) is True
        (proc / "100" / "stat").unlink()  # its owner dies before answering
        barrier = threading.Barrier(2)
        results: list[bool] = []

        def retry(log):
            barrier.wait()
            results.append(log.claim_event("slack", "k2", T0 + timedelta(seconds=1)))

        threads = [threading.Thread(target=retry, args=(lg,)) for lg in logs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert sorted(results) == [False, True]
        stores[0].mark_event_answered("slack", "k2", T0 + timedelta(seconds=2))
        (proc / "200" / "stat").unlink()
        (proc / "300" / "stat").unlink()
        assert logs[0].claim_event("slack", "k2", T0 + timedelta(hours=1)) is False  # answered: never again
        other = PurgingEventLog(stores[0], timedelta(hours=8), owner=ProcessOwner(host="h2", pid=1, proc=proc))
        assert other.claim_event("slack", "k3", T0) is True
        assert logs[1].claim_event("slack", "k3", T0 + timedelta(seconds=59)) is False  # another host: wait
        assert logs[1].claim_event("slack", "k3", T0 + timedelta(seconds=60)) is True
    finally:
        for st in stores:
            st.close()


def test_purge_refuses_short_retention_and_naive_times(store):
    with pytest.raises(ValueError, match="under 7 hours"):
        store.purge_events(T0, timedelta(hours=6))
    with pytest.raises(ValueError, match="naive"):
        store.claim_event("slack", "k", datetime(2026, 5, 17))
