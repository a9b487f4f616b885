"""Delivery leases (issue 9, failure 1): owner tokens, dead-owner detection, the heartbeat during a
``Retry-After`` wait, hand-back at shutdown, periodic reconciliation, and ``partial`` jobs on
``/healthz`` and ``/metrics``. On a real store (SQLite and PostgreSQL), clocks and sleeps injected."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone

from chatbot.cards import Card
from chatbot.deliveries import RELEASED, DeliveryKey
from chatbot.errors import DeliveryError
from chatbot.ports import Destination
from prhub.config import parse_config
from scheduler.config import DeliverySettings
from scheduler.delivery import Deliverer, Stopping
from scheduler.metrics import Metrics
from scheduler.owner import ProcessOwner
from tests.scheduler.doubles import ClockSleeper, RecordingDelivery, TestClock, ratelimited

T0 = datetime(2024, 6, 17, 1, 0, tzinfo=timezone.utc)
DEST = Destination(platform="slack", target="C_DIGEST")
KEY1 = DeliveryKey("r/r", "2024-W24", "slack", "C_DIGEST", "digest", 1)


def _cards(n: int = 2) -> list[Card]:
    return [Card(header=f"part {i}", part=i, parts=n) for i in range(1, n + 1)]


def _deliverer(store, slack, clock, sleeper, owner=None, **settings):
    return Deliverer(store, {"slack": slack}, clock=clock, sleep=sleeper, settings=DeliverySettings(**settings),
                     metrics=Metrics(), owner=owner)


def test_owner_token_names_this_process_and_a_finished_process_is_dead():
    me = ProcessOwner()
    host, pid, start = me.token.rsplit(":", 2)
    assert pid == str(__import__("os").getpid()) and start != "0"
    assert not me.is_dead(me.token) and not me.is_dead(None) and not me.is_dead("garbage")
    assert me.is_dead(RELEASED)
    gone = _finished_process_token()
    assert gone.startswith(host + ":") and me.is_dead(gone)  # exited: no such pid (or a reused one)
    assert not me.is_dead("other-host" + gone[len(host):])  # another host: only its lease can tell
    assert me.is_dead(f"{host}:{pid}:{int(start) + 1}")  # the pid now names a process started at another time


def _finished_process_token() -> str:
    child = subprocess.run([sys.executable, "-c", "from scheduler.owner import ProcessOwner; print(ProcessOwner().token)"],
                           capture_output=True, text=True, check=True)
    return child.stdout.strip()


def test_a_restart_takes_over_a_dead_owners_fresh_row_at_once(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    store.claim_delivery(KEY1, clock.now(), _finished_process_token())  # killed while waiting
    clock.advance(5)  # 5 s into a 600 s lease
    out = _deliverer(store, slack, clock, ClockSleeper(clock)).deliver(DEST, _cards(), repo="r/r", week="2024-W24",
                                                                      kind="digest")
    assert out.status == "sent" and [p.card.part for p in slack.posts] == [1, 2] and slack.lookups == 1
    key = DeliveryKey("r/r", "2024-W25", "slack", "C_DIGEST", "digest", 1)
    store.claim_delivery(key, clock.now(), "elsewhere:1:1")  # a live replica on another host: its lease holds
    out = _deliverer(store, slack, clock, ClockSleeper(clock)).deliver(DEST, _cards(), repo="r/r", week="2024-W25",
                                                                      kind="digest")
    assert out.status == "skipped" and len(slack.posts) == 2


def test_the_heartbeat_keeps_a_long_retry_after_wait_from_being_taken_over(store, db_url):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 1, ratelimited(77))
    seen = []
    with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as other:
        b = _deliverer(other, slack, clock, ClockSleeper(clock), owner=ProcessOwner(host="replica-b"), lease_seconds=20)

        def sleeper(seconds):  # A waits; replica B tries after every step of A's wait
            clock.advance(seconds)
            seen.append((seconds, b.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest").status))

        a = _deliverer(store, slack, clock, sleeper, owner=ProcessOwner(host="replica-a"), lease_seconds=20)
        out = a.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
    assert out.status == "sent"
    steps = [s for s, _ in seen]
    assert steps[:11] == [20 / 3] * 11 and len(steps) == 12 and abs(sum(steps) - 77) < 1e-9  # renewed at lease/3
    assert {st for _, st in seen} == {"skipped"}
    assert [p.card.part for p in slack.posts] == [1, 2]  # once each, by A
    [row, _] = store.deliveries_of("r/r", "2024-W24")
    assert row.owner == ProcessOwner(host="replica-a").token


def test_without_a_renewal_a_wait_longer_than_the_lease_would_be_taken_over(store):
    """The lease itself still works: a row of an unknown owner untouched for the lease is stale."""
    clock = TestClock(T0)
    store.claim_delivery(KEY1, clock.now(), "replica-x:42:42")
    d = _deliverer(store, RecordingDelivery(clock=clock), clock, ClockSleeper(clock), lease_seconds=20)
    [row] = store.deliveries_of("r/r", "2024-W24")
    clock.advance(19.9)
    assert not d.stale(row)
    clock.advance(0.1)
    assert d.stale(row)


def test_shutdown_during_a_wait_hands_the_part_back_and_the_next_process_sends_it_at_once(store):
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 1, ratelimited(120))

    def stopping(seconds):
        raise Stopping("shutting down")

    a = _deliverer(store, slack, clock, stopping)
    try:
        a.deliver(DEST, _cards(), repo="r/r", week="2024-W24", kind="digest")
        raise AssertionError("Stopping expected")
    except Stopping:
        pass
    [row] = store.deliveries_of("r/r", "2024-W24")
    assert row.status == "sending" and row.owner == RELEASED
    clock.advance(1)
    out = _deliverer(store, slack, clock, ClockSleeper(clock)).deliver(DEST, _cards(), repo="r/r", week="2024-W24",
                                                                      kind="digest")
    assert out.status == "sent" and [p.card.part for p in slack.posts] == [1, 2] and slack.lookups == 1


def test_periodic_reconciliation_resends_a_stale_part_and_clears_partial(store):
    from prhub.bot import create_bot, health, unsent_destinations
    from scheduler.config import LoadedConfig
    from tests.scheduler.harness import BR10, example_prs
    from chatbot.digest import build_digest
    from chatbot.rules import default_rules_for
    from pathlib import Path

    cfg = parse_config(BR10, "t.yaml")
    loaded = LoadedConfig(config=cfg, base_dir=Path("."))
    clock = TestClock(T0)
    slack = RecordingDelivery(clock=clock)
    slack.fail("C_DIGEST", 1, DeliveryError("no channel", reason="channel_not_found", permanent=True))
    prs = example_prs()

    def build(repo_cfg, week, langs):
        return build_digest(prs, repo=repo_cfg.repo, week=week, rules=default_rules_for(repo_cfg.repo), tz=repo_cfg.week_tz)

    metrics = Metrics()
    bot = create_bot(loaded, store, {"slack": slack}, clock=clock, sleep=ClockSleeper(clock), build=build,
                     metrics=metrics, chart=None)
    from chatbot.weeks import IsoWeek

    report = bot.job.run("example-org/example-repo", week=IsoWeek.parse("2024-W24"))
    assert report.status == "partial" and report.unsent == ["slack:C_DIGEST"]
    assert unsent_destinations(bot) == [("example-org/example-repo", "2024-W24", "slack:C_DIGEST")]
    code, body = health(bot)
    assert body["deliveries"] == {"status": "partial", "unsent": [
        {"repo": "example-org/example-repo", "week": "2024-W24", "destination": "slack:C_DIGEST"}]}
    assert [p.target for p in slack.posts] == ["U_ADMIN"]  # the admins were told
    # a part left 'sending' by a process that died: the running process's reconciliation sends it
    key = DeliveryKey("example-org/example-repo", "2024-W25", "slack", "C_DIGEST", "digest", 1)
    store.claim_delivery(key, clock.now(), RELEASED)
    assert bot.scheduler.reconcile() == [("example-org/example-repo", "2024-W25")]
    assert [r.status for r in store.deliveries_of("example-org/example-repo", "2024-W25")] == ["sent"] * len(
        store.deliveries_of("example-org/example-repo", "2024-W25"))
    assert bot.scheduler.reconcile() == []  # nothing stale is left
    report = bot.job.run("example-org/example-repo", week=IsoWeek.parse("2024-W24"))  # the channel works again
    assert report.status == "ok" and unsent_destinations(bot) == []
