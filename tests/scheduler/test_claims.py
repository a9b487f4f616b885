"""The take-over rules of :mod:`scheduler.claims` as tables, at exactly each threshold and one past it.

Liveness is the real :class:`scheduler.owner.ProcessOwner` of host ``h1`` over a ``/proc`` written
here: pid 200 runs (start 6), pid 100 ran and is gone; ``h2`` is another host (cannot be checked).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from chatbot.deliveries import RELEASED
from scheduler.claims import CLAIM_STALE, lease_expired, reclaimable, resend_deduplicated
from scheduler.owner import ProcessOwner

NOW = datetime(2026, 5, 18, 9, 0, tzinfo=timezone.utc)
US = timedelta(microseconds=1)
LIVE, DEAD, ME = "h1:200:6", "h1:100:5", "h1:300:7"
OTHER_HOST = "h2:200:6"


@pytest.fixture
def liveness(tmp_path) -> ProcessOwner:
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    for pid, start in ((200, "6"), (300, "7")):
        (proc / str(pid)).mkdir()
        (proc / str(pid) / "stat").write_text(f"{pid} (prhub) S " + " ".join(["0"] * 18) + f" {start} 0\n")
    me = ProcessOwner(host="h1", pid=300, proc=proc)
    assert me.token == ME
    return me


def test_the_chat_claim_stale_window_is_60_seconds():
    assert CLAIM_STALE == timedelta(seconds=60)


@pytest.mark.parametrize(("owner", "age", "answered", "expected"), [
    # another host: only the age can tell; at exactly 60 s it goes, a microsecond before it stays
    (OTHER_HOST, timedelta(seconds=59), False, False),
    (OTHER_HOST, CLAIM_STALE - US, False, False),
    (OTHER_HOST, CLAIM_STALE, False, True),
    (OTHER_HOST, timedelta(seconds=61), False, True),
    # no owner recorded: the same age rule
    (None, CLAIM_STALE - US, False, False),
    (None, CLAIM_STALE, False, True),
    # a process of this host: its liveness decides, whatever the age
    (LIVE, timedelta(hours=1), False, False),  # a slow answer is not answered twice
    (ME, timedelta(hours=1), False, False),
    (DEAD, timedelta(0), False, True),  # died between the ack and the reply: at once
    # answered: never, not even a dead owner's claim an hour old
    (DEAD, timedelta(hours=1), True, False),
    (OTHER_HOST, timedelta(hours=1), True, False),
])
def test_reclaimable(liveness, owner, age, answered, expected):
    assert reclaimable(owner, NOW - age, answered, NOW, liveness) is expected


def test_reclaimable_takes_its_stale_window(liveness):
    stale = timedelta(seconds=5)
    assert reclaimable(OTHER_HOST, NOW - stale + US, False, NOW, liveness, stale) is False
    assert reclaimable(OTHER_HOST, NOW - stale, False, NOW, liveness, stale) is True


@pytest.mark.parametrize(("owner", "age_s", "expected"), [
    # the lease runs out at exactly lease_seconds (600), for any holder
    (OTHER_HOST, 599.999999, False),
    (OTHER_HOST, 600.0, True),
    (OTHER_HOST, 601.0, True),
    (None, 599.999999, False),
    (None, 600.0, True),
    (LIVE, 599.0, False),
    (LIVE, 600.0, True),  # a live holder that stopped renewing loses it too
    (ME, 0.0, False),
    # a holder known gone: at once
    (DEAD, 0.0, True),
    (RELEASED, 0.0, True),  # handed back at shutdown
])
def test_lease_expired(liveness, owner, age_s, expected):
    assert lease_expired(owner, NOW - timedelta(seconds=age_s), NOW, 600.0, liveness) is expected


@pytest.mark.parametrize(("updated_before_start", "age_s", "dedup_s", "expected"), [
    # left by a previous run, inside the platform's de-duplication window (Feishu: 3600 s)
    (timedelta(seconds=1), 3599.999999, 3600.0, True),
    (timedelta(seconds=1), 3600.0, 3600.0, False),  # at exactly the window the platform may post twice
    (US, 10.0, 3600.0, True),
    (timedelta(0), 10.0, 3600.0, False),  # touched at this process's start: not a previous run's
    (-timedelta(seconds=1), 10.0, 3600.0, False),  # touched by this run (another thread or replica)
    (timedelta(seconds=1), 0.0, 0.0, False),  # a platform that does not de-duplicate (Slack)
])
def test_resend_deduplicated(updated_before_start, age_s, dedup_s, expected):
    updated = NOW - timedelta(seconds=age_s)
    assert resend_deduplicated(updated, updated + updated_before_start, NOW, dedup_s) is expected
