"""Exactly-once multi-part delivery with retries (BR-05), reconciliation and replicas, on a real store."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from chatbot.cards import Card
from chatbot.deliveries import DeliveryKey
from chatbot.errors import DeliveryError
from chatbot.ports import Destination
from scheduler.config import DeliverySettings
from scheduler.delivery import Deliverer
from scheduler.metrics import Metrics
from tests.scheduler.doubles import ClockSleeper, RecordingDelivery, TestClock, ratelimited

T0 = datetime(2024, 6, 17, 1, 0, tzinfo=timezone.utc)
DEST = Destination(platform="slack", target="C_DIGEST")


def _cards(n: int = 3) -> list[Card]:
    return [Card(header=f"part {i}", part=i, parts=n) for i in range(1, n + 1)]


def _deliverer(store, slack, clock, sleeper=None, **settings):
    return Deliverer(store, {"slack": slack}, clock=clock, sleep=sleeper or ClockSleeper(clock),
                     settings=DeliverySettings(**settings), metrics=Metrics())


def test_br05_429_then_success_posts_each_part_once_in_order(store):
    clock = TestClock(T0)
    sleeper = ClockSleeper(clock)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 2, ratelimited(2))
    out = _deliverer(store, slack, clock, sleeper).deliver(DEST, _cards(), repo="example-org/example-repo",
                                                            week="2024-W24", kind="digest")
    assert out.status == "sent"
    assert len(slack.calls) == 4  # exactly 4 POSTs
    p2 = [c for c in slack.calls if c.part == 2]
    assert (p2[1].at - p2[0].at).total_seconds() >= 2  # honours Retry-After, on the injected clock
    assert sleeper.waits == [2.0]
    assert [p.card.part for p in slack.posts] == [1, 2, 3]  # once each, in order
    first = slack.posts[0].message_id
    assert slack.posts[0].thread is None and all(p.thread == first for p in slack.posts[1:])
    assert sum(1 for c in slack.calls if c.part == 1) == 1  # part 1 never re-sent
    rows = store.deliveries_of("example-org/example-repo", "2024-W24")
    assert [(r.key.part, r.status, r.attempts) for r in rows] == [(1, "sent", 1), (2, "sent", 2), (3, "sent", 1)]
    assert rows[0].message_id == first and rows[2].thread_id == first


def test_br05_variant_gives_up_after_four_attempts(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 2, *[ratelimited(2) for _ in range(5)])
    out = _deliverer(store, slack, clock).deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "failed" and out.reason == "ratelimited"
    assert sum(1 for c in slack.calls if c.part == 2) == 4
    assert not any(c.part == 3 for c in slack.calls)  # part 3 not posted out of order
    rows = {r.key.part: r for r in store.deliveries_of("r/r", "2024-W24")}
    assert rows[2].status == "failed" and rows[2].reason == "ratelimited" and 3 not in rows


def test_a_later_run_finishes_a_failed_destination_without_resending_part_1(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 2, *[ratelimited(1) for _ in range(4)])
    d = _deliverer(store, slack, clock)
    assert d.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest").status == "failed"
    out = d.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "sent"
    assert [p.card.part for p in slack.posts] == [1, 2, 3]


def test_permanent_error_fails_at_once_and_other_destinations_go_on(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_GONE", 1, DeliveryError("no channel", reason="channel_not_found", permanent=True))
    d = _deliverer(store, slack, clock)
    bad = d.deliver(Destination("slack", "C_GONE"), _cards(), repo="r/r", week="2024-W24", kind="digest")
    good = d.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert bad.status == "failed" and bad.reason == "channel_not_found" and len([c for c in slack.calls if c.target == "C_GONE"]) == 1
    assert good.status == "sent" and len(slack.to("C_DIGEST")) == 3


def test_backoff_without_retry_after_checks_the_platform_before_resending(store):
    clock = TestClock(T0)
    sleeper = ClockSleeper(clock)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 1, DeliveryError("timeout", reason="timeout"), DeliveryError("502", reason="http_502"))
    out = _deliverer(store, slack, clock, sleeper, backoff_seconds=1.5).deliver(DEST, _cards(1), repo="r/r", week="w", kind="digest")
    assert out.status == "sent" and sleeper.waits == [1.5, 3.0] and slack.lookups == 2


def test_restart_after_accept_reconciles_instead_of_resending(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock, crash_after_accept=True)
    try:
        _deliverer(store, slack, clock).deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    except KeyboardInterrupt:
        pass
    [row] = store.deliveries_of("r/r", "2024-W24")
    assert row.status == "sending" and len(slack.posts) == 1
    slack.crash_after_accept = False
    clock.advance(5)  # restarted 5 s later: the row is fresh, yet reconciled through find_sent
    out = _deliverer(store, slack, clock).deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "sent"
    assert [p.card.part for p in slack.posts] == [1, 2, 3]
    assert out.parts[0].already and slack.posts[1].thread == slack.posts[0].message_id


def test_a_fresh_sending_row_of_another_process_is_skipped_and_a_stale_one_taken_over(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    key = DeliveryKey("r/r", "2024-W24", "slack", "C_DIGEST", "digest", 1)
    store.claim_delivery(key, clock.now())  # another replica is sending part 1 and has not posted yet
    d = _deliverer(store, slack, clock, lease_seconds=600)
    out = d.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "skipped" and slack.posts == []
    clock.advance(601)  # that replica died: the row is stale
    out = d.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "sent" and len(slack.posts) == 3


def test_feishu_row_left_by_a_previous_process_is_resent_with_the_same_uuid(store):
    clock = TestClock(T0)
    feishu = RecordingDelivery(platform="feishu", clock=clock, dedup_by_key=True)
    feishu.find_sent = lambda *a, **k: None  # Feishu cannot look messages up: relies on uuid de-duplication
    key = DeliveryKey("r/r", "2024-W24", "feishu", "oc_1", "digest", 1)
    store.claim_delivery(key, clock.now())
    feishu.send(Destination("feishu", "oc_1"), _cards(1)[0], thread=None, delivery_key=key.token)  # accepted, then killed
    clock.advance(10)
    d = Deliverer(store, {"feishu": feishu}, clock=clock, sleep=ClockSleeper(clock), metrics=Metrics())
    out = d.deliver(Destination("feishu", "oc_1"), _cards(1), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "sent" and len(feishu.posts) == 1


def test_two_replicas_post_once(store, db_url):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as other:
        a = _deliverer(store, slack, clock)
        b = _deliverer(other, slack, clock)
        first = a.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
        second = b.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert first.status == "sent" and second.status == "sent" and all(p.already for p in second.parts)
    assert len(slack.posts) == 3


def test_delivery_keys_fit_feishu_uuid():
    key = DeliveryKey("o" * 100 + "/" + "n" * 100, "2024-W24", "feishu", "oc_" + "x" * 60, "digest", 12)
    assert len(key.token) <= 50 and key.token == DeliveryKey(*[getattr(key, f) for f in
                                                               ("repo", "week", "platform", "destination", "kind", "part")]).token
    assert key.token != DeliveryKey(key.repo, key.week, key.platform, key.destination, key.kind, 11).token
    assert T0 + timedelta(0) == T0
