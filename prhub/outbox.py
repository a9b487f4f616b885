"""The reply outbox of ``prhub serve``: chat replies that failed to send, posted again from the store.

:class:`StoreOutbox` is the :class:`chatbot.outbox.ReplyOutbox` the chat pipeline queues a failed
reply in (a row of ``reply_outbox``, so it survives a restart); its worker thread posts every due
reply with the platform's ``resend`` (``payload -> None`` when all was posted, or the payload of what
is left), on failure waits :func:`chatbot.outbox.backoff` (``first`` seconds doubling up to ``cap``)
and gives up after :data:`chatbot.outbox.MAX_ATTEMPTS`. A posted reply marks its event answered. A
reply is leased before it is sent (compare-and-set on its due time), so replicas sharing a store
send it once; a sender killed mid-send leaves it due again after ``lease`` seconds.

Times are the system clock's (``prhub/clock.py``): waits are real, whatever clock answers questions.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from chatbot.errors import PrhubError
from chatbot.outbox import MAX_ATTEMPTS, PendingReply, backoff
from prhub.clock import SYSTEM_CLOCK

log = logging.getLogger(__name__)

Resend = Callable[[dict[str, Any]], "dict[str, Any] | None"]
"""A platform's ``resend(payload)``: posts the payload's parts in order; None when every part was
posted, else the payload of the parts left (its ``error`` says why); raises nothing."""


class StoreOutbox:
    """Queued replies in the store, and the worker that sends them (see the module docstring).

    Args:
        store: has ``queue_reply``, ``due_replies``, ``lease_reply``, ``finish_reply``, ``retry_reply_now``.
        senders: platform name -> its ``resend`` (filled in as platforms are mounted).
        first, cap: backoff in seconds (``server.reply_retry_seconds``: first wait, largest wait).
        poll: seconds between looks at the store when nothing pokes the worker.
        lease: seconds a reply being sent is hidden from other senders.
        clock: ``now()`` -> aware UTC datetime.
    """

    def __init__(self, store: Any, *, senders: Mapping[str, Resend] | None = None, first: float = 2.0,
                 cap: float = 300.0, poll: float = 2.0, lease: float = 60.0,
                 clock: Callable[[], datetime] = SYSTEM_CLOCK.now) -> None:
        self.store = store
        self.senders: dict[str, Resend] = dict(senders or {})
        self.first, self.cap, self.poll, self.lease = first, cap, poll, lease
        self.clock = clock
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    # -- ReplyOutbox (chatbot.outbox) -------------------------------------------------------------

    def queue(self, platform: str, key: str, payload: dict[str, Any], error: str) -> None:
        """Queue the first failed send of the reply to ``key`` (due after ``first`` seconds); a database
        error is logged (the reply is then lost, as before the outbox)."""
        now = self.clock()
        try:
            self.store.queue_reply(platform, key, payload, now=now, next_at=now + backoff(1, first=self.first, cap=self.cap),
                                   error=error)
        except PrhubError as exc:
            log.error("%s %s: reply failed (%s) and cannot be queued: %s", platform, key, error, exc.user_message)
            return
        log.warning("%s %s: reply failed (%s): queued, next try in %g s", platform, key, error, self.first)
        self._wake.set()

    def retry_now(self, platform: str, key: str) -> bool:
        """Make the queued reply to ``key`` due now and wake the worker; False when none is queued."""
        try:
            due = bool(self.store.retry_reply_now(platform, key, self.clock()))
        except PrhubError as exc:
            log.warning("%s %s: cannot look up its queued reply: %s", platform, key, exc.user_message)
            return False
        if due:
            self._wake.set()
        return due

    # -- the worker -----------------------------------------------------------------------------

    def send_due(self) -> int:
        """Send every reply due now once (each leased first); returns how many were posted.

        Raises:
            StoreError: the store cannot be read (the worker logs it and tries again later).
        """
        posted = 0
        for reply in self.store.due_replies(self.clock()):
            send = self.senders.get(reply.platform)
            if send is None or not self.store.lease_reply(reply, self.clock() + timedelta(seconds=self.lease)):
                continue
            posted += self._send(reply, send)
        return posted

    def _send(self, reply: PendingReply, send: Resend) -> int:
        rest = send(reply.payload)
        now = self.clock()
        if rest is None:
            self.store.finish_reply(reply.platform, reply.key, now, sent=True)
            log.info("%s %s: queued reply posted (attempt %d)", reply.platform, reply.key, reply.attempts + 1)
            return 1
        error = str(rest.get("error") or "failed")
        attempts = reply.attempts + 1
        if attempts >= MAX_ATTEMPTS:
            self.store.finish_reply(reply.platform, reply.key, now, sent=False, error=error)
            log.error("%s %s: reply given up after %d attempts: %s", reply.platform, reply.key, attempts, error)
            return 0
        wait = backoff(attempts, first=self.first, cap=self.cap)
        self.store.queue_reply(reply.platform, reply.key, rest, now=now, next_at=now + wait, error=error)
        log.warning("%s %s: queued reply failed again (%s): attempt %d, next in %g s", reply.platform, reply.key,
                    error, attempts, wait.total_seconds())
        return 0

    def start(self) -> None:
        """Run the worker on a daemon thread (idempotent); replies queued before a restart are sent too."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="prhub-reply-outbox", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the worker and wait for a send in progress."""
        self._stopped.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stopped.is_set():
            self._wake.clear()
            try:
                self.send_due()
            except PrhubError as exc:
                if getattr(exc, "table_missing", False):  # StoreError: the table was dropped under us
                    log.warning("reply outbox: its table is gone (%s): worker stopped", exc.user_message)
                    return
                log.warning("reply outbox: %s (next look in %g s)", exc.user_message, self.poll)
            except Exception as exc:  # noqa: BLE001 - the worker must outlive any one reply
                log.error("reply outbox: %s: %s", type(exc).__name__, str(exc)[:200])
            self._wake.wait(self.poll)
