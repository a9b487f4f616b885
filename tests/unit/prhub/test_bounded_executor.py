"""The reply queue's wait (issue 20): a caller of a full :class:`prhub.web.BoundedExecutor` waits up
to ``wait`` seconds for a slot before its task runs "busy" (:data:`prhub.web.OVERLOADED`), and only
``waiters`` callers wait at once.

Wrong changes these fail on: no wait (a slot freed 0.1 s later is not taken: the task runs busy),
waiting without a limit on waiters (the second caller waits too), waiting forever (the task never
runs busy), ``OVERLOADED`` not set for the task run in the caller's thread."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from prhub.web import OVERLOADED, BoundedExecutor


@pytest.fixture
def full():
    """A BoundedExecutor of capacity 1 (wait 0.4 s, one waiter) whose one slot a held task takes."""
    pool = ThreadPoolExecutor(2)
    ex = BoundedExecutor(pool, 1, wait=0.4, waiters=1)
    hold = threading.Event()
    ex.submit(hold.wait, 10)
    yield ex, hold
    hold.set()
    pool.shutdown(wait=True)


def test_a_slot_freed_within_the_wait_is_taken(full):
    ex, hold = full
    threading.Timer(0.1, hold.set).start()
    assert ex.submit(OVERLOADED.get).result(timeout=5) is False  # queued on the pool, not busy


def test_a_full_queue_answers_busy_after_the_wait(full):
    ex, _hold = full
    t0 = time.monotonic()
    assert ex.submit(OVERLOADED.get).result(timeout=5) is True
    assert 0.4 <= time.monotonic() - t0 < 2.0


def test_only_waiters_callers_wait_and_the_others_are_busy_at_once(full):
    ex, _hold = full
    first = threading.Thread(target=lambda: ex.submit(time.sleep, 0))  # takes the one waiter's turn
    first.start()
    time.sleep(0.1)
    t0 = time.monotonic()
    assert ex.submit(OVERLOADED.get).result(timeout=5) is True
    assert time.monotonic() - t0 < 0.2
    first.join()


def test_no_wait_answers_busy_at_once():
    pool = ThreadPoolExecutor(1)
    ex = BoundedExecutor(pool, 1)
    hold = threading.Event()
    ex.submit(hold.wait, 10)
    t0 = time.monotonic()
    assert ex.submit(OVERLOADED.get).result(timeout=5) is True
    assert time.monotonic() - t0 < 0.2
    hold.set()
    pool.shutdown(wait=True)
