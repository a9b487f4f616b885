"""Exactly-once posting of multi-part messages through the delivery log, with bounded retries.

For each part of a message to one destination, in order:

1. Claim the part's delivery-log row as ``sending`` (the unique key lets one replica win).
2. If the row already existed: ``sent`` -> reuse its message id ("already sent"); ``sending`` ->
   reconcile with :meth:`ChatDelivery.find_sent` first; found -> mark it ``sent``; not found ->
   take it over only when it is stale (:meth:`Deliverer.stale`, the rules of :mod:`scheduler.claims`: untouched for ``lease_seconds``,
   or its owner is known dead: a process of this host that no longer runs, or a row handed back
   at shutdown), or when it predates this process and the platform de-duplicates re-sends by key
   (Feishu's 1-hour ``uuid``); otherwise another process is sending it: skip. ``failed`` -> taken
   over (a new run retries).
3. Call the platform; a :class:`DeliveryError` that is not ``permanent`` (429, 5xx, timeout) is
   retried after ``Retry-After`` (else exponential backoff), at most ``max_attempts`` calls; before
   re-sending after an ambiguous failure (no ``Retry-After``: a timeout or 5xx may have posted), the
   platform is asked with ``find_sent``. While it waits, the owner renews its lease every
   ``heartbeat_seconds`` (default a third of the lease), so a long ``Retry-After`` never lets
   another replica take a live part over; a renewal that finds the row no longer ours stops (skip).
4. Mark ``sent`` with the message id, or ``failed`` with the reason and stop that destination
   (later parts are never posted out of order).

Parts 2..n go in part 1's thread. Nothing here raises a platform error; a :class:`Stopping` raised
by the sleeper (shutdown) hands the row back (owner ``released``, still ``sending``): the next
start, or another replica's periodic reconciliation, reconciles and sends it at once.

The weekly chart (:meth:`Deliverer.upload_chart`) is best effort and at most once per (repo, week,
destination): its upload is a delivery-log row of kind ``chart``, part 1, whose ``message_id`` is
the platform's image reference. It is tried once per run (no retries): ``sent`` is reused, a
``failed`` row is tried again by a later run, and a ``sending`` row (a run that died during the
upload) is left alone, since an upload cannot be looked up and a second one could show twice.
Without a public URL for the report pages, the full report goes the same way, as a file
(:meth:`Deliverer.upload_file`, kind ``report``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from chatbot.deliveries import FAILED, SENDING, SENT, DeliveryKey, DeliveryLog, DeliveryRecord
from chatbot.errors import DeliveryError
from chatbot.ports import (ChatDelivery, Clock, Destination, FileUpload, SentMessage, dedup_window_seconds,
                           file_uploader, image_uploader, rate_limit_reasons)
from scheduler.claims import lease_expired, resend_deduplicated
from scheduler.config import DeliverySettings
from scheduler.metrics import METRICS, Metrics
from scheduler.owner import ProcessOwner

if TYPE_CHECKING:
    from chatbot.render.html import ChartImage

log = logging.getLogger(__name__)

UNSENT_PREFIX = "lookup failed"
"""The skip reason after which nobody is sending the part (the others: another process has it)."""

CHART = "chart"
"""Delivery-log kind of the weekly chart upload (one row per repo, week and destination, part 1)."""
REPORT = "report"
"""Delivery-log kind of the full report posted as a file when no public URL links to it (one row per
repo, week and destination, part 1; its ``message_id`` is the platform's file or message id)."""
UPLOAD_METRICS = {CHART: "prhub_charts_total", REPORT: "prhub_report_files_total"}
"""The counter of each upload kind (by platform and outcome)."""

ChartSource = Callable[[], "ChartImage | None"]
"""Draws the chart to upload (None: nothing to chart); called only when an upload is due."""
FileSource = Callable[[], "FileUpload | None"]
"""Renders the report file to post (None: nothing to attach); called only when an upload is due."""
T = TypeVar("T")


class Stopping(Exception):
    """Raised by the sleeper when the process shuts down: the current part stays ``sending``."""


Sleeper = Callable[[float], None]
"""Waits a number of seconds (tests pass one that advances a test clock; serve one that stops on SIGTERM)."""


@dataclass(frozen=True)
class PartOutcome:
    """What happened to one part: ``sent`` (now or before), ``skipped`` (another process has it) or ``failed``."""

    key: DeliveryKey
    status: str
    message_id: str | None = None
    thread_id: str | None = None
    reason: str | None = None
    already: bool = False


@dataclass
class DestinationOutcome:
    """What happened to one message (all its parts) to one destination."""

    destination: Destination
    kind: str
    parts: list[PartOutcome] = field(default_factory=list)

    @property
    def status(self) -> str:
        """``sent`` when every part is sent, ``failed`` when one failed, else ``skipped``."""
        if any(p.status == FAILED for p in self.parts):
            return FAILED
        if self.parts and all(p.status == SENT for p in self.parts):
            return SENT
        return "skipped"

    @property
    def reason(self) -> str | None:
        """The failure reason of the failed part, if any."""
        return next((p.reason for p in self.parts if p.status == FAILED), None)

    @property
    def unsent(self) -> str | None:
        """Why a part is neither sent nor being sent by another process (failed, or the platform
        could not be asked whether it has it), else None."""
        if self.status == FAILED:
            return self.reason
        return next((p.reason for p in self.parts
                     if p.status == "skipped" and (p.reason or "").startswith(UNSENT_PREFIX)), None)


@dataclass(frozen=True)
class ChartOutcome:
    """What happened to a destination's upload, the chart's or the report file's: ``sent``
    (uploaded now or before; ``reference`` is the platform's image, file or message reference),
    ``skipped`` (nothing to upload, unsupported, or another run has it) or ``failed`` (``reason``)."""

    destination: Destination
    status: str
    reference: str | None = None
    reason: str | None = None
    already: bool = False
    title: str | None = None
    """The chart's title (alt text for a card image), or the report file's name, when made in this run."""


@dataclass
class JobReport:
    """What one run did: the week, the outcome per destination and per subscriber, and problems."""

    repo: str
    week: str
    status: str = "ok"
    digests: list[DestinationOutcome] = field(default_factory=list)
    slices: list[DestinationOutcome] = field(default_factory=list)
    charts: list[ChartOutcome] = field(default_factory=list)
    files: list[ChartOutcome] = field(default_factory=list)
    """The full report posted as a file, per destination (only without a public URL)."""
    problems: list[str] = field(default_factory=list)
    retry_at: datetime | None = None

    @property
    def unsent(self) -> list[str]:
        """``platform:target`` of every destination (digest or slice) with a failed or unsent part."""
        return [f"{o.destination.platform}:{o.destination.target}" for o in [*self.digests, *self.slices] if o.unsent]


class Deliverer:
    """Posts message parts exactly once per delivery key, through one :class:`ChatDelivery` per platform."""

    def __init__(self, log_: DeliveryLog, deliveries: dict[str, ChatDelivery], *, clock: Clock, sleep: Sleeper,
                 settings: DeliverySettings | None = None, metrics: Metrics = METRICS,
                 started_at: datetime | None = None, owner: ProcessOwner | None = None) -> None:
        """
        Args:
            log_: the delivery log (the store).
            deliveries: ``{"slack": SlackDelivery, "feishu": FeishuDelivery}`` (either may be missing).
            clock: current time (aware UTC).
            sleep: waits between attempts (seconds); may raise :class:`Stopping`.
            settings: attempts, backoff and lease.
            metrics: where sent/failed/retried counts go.
            started_at: when this process started (default: now); ``sending`` rows older than this
                were left by a previous process.
            owner: this process's lease-owner token and liveness checks (default: this process).
        """
        self._log = log_
        self._deliveries = deliveries
        self._clock = clock
        self._sleep = sleep
        self._settings = settings or DeliverySettings()
        self._metrics = metrics
        self._started_at = started_at or clock.now()
        self._owner = owner or ProcessOwner()

    @property
    def owner(self) -> str:
        """This process's lease-owner token (``host:pid:start``)."""
        return self._owner.token

    def stale(self, row: DeliveryRecord) -> bool:
        """Whether the ``sending`` ``row`` may be taken over: its lease ran out (``updated_at``
        older than ``lease_seconds``) or its owner is known dead (see :class:`ProcessOwner`)."""
        return lease_expired(row.owner, row.updated_at, self._clock.now(), self._settings.lease_seconds, self._owner)

    def delivery_for(self, platform: str) -> ChatDelivery | None:
        """The delivery of ``platform`` (``slack``/``feishu``), or None when not configured."""
        return self._deliveries.get(platform)

    def deliver(self, destination: Destination, cards: Sequence[object], *, repo: str, week: str, kind: str) -> DestinationOutcome:
        """Post ``cards`` (parts 1..n in order; parts 2..n in part 1's thread) to ``destination``.

        Never raises a platform or store error: failures are in the outcome (and logged).

        Raises:
            Stopping: the sleeper stopped (shutdown); the current part stays ``sending``.
        """
        outcome = DestinationOutcome(destination, kind)
        delivery = self._deliveries.get(destination.platform)
        thread: str | None = None
        for n, card in enumerate(cards, 1):
            key = DeliveryKey(repo, week, destination.platform, destination.target, kind, n)
            if delivery is None:
                part = self._fail(key, f"no {destination.platform} delivery configured (missing token?)")
            else:
                try:
                    part = self._part(delivery, destination, key, card, thread)
                except Stopping:
                    raise
                except Exception as exc:  # a store error or an adapter bug: this destination stops
                    log.exception("delivery %s: %s", key, exc)
                    part = self._fail(key, f"{type(exc).__name__}: {getattr(exc, 'user_message', exc)}")
            outcome.parts.append(part)
            if part.status != SENT:
                break
            if n == 1:
                thread = part.thread_id or part.message_id
        return outcome

    def started(self, destination: Destination, *, repo: str, week: str, kind: str) -> bool:
        """Whether part 1 of that message to ``destination`` is sent or being sent (a logged row that
        is not ``failed``): its content can no longer change. A store error counts as started."""
        try:
            rows = self._log.deliveries_of(repo, week, kind)
        except Exception as exc:
            log.warning("delivery log unreadable (%s): treating %s %s %s as started", exc, repo, week, destination.target)
            return True
        return any(r.key.platform == destination.platform and r.key.destination == destination.target
                   and r.key.part == 1 and r.status != FAILED for r in rows)

    def upload_chart(self, destination: Destination, chart: ChartSource, *, repo: str, week: str,
                     thread: str | None) -> ChartOutcome:
        """Upload the chart of (``repo``, ``week``) for ``destination`` once, through the platform's
        ``upload_image`` (Slack ``files_upload_v2``, Feishu ``im.v1.image.create``), recorded in the
        delivery log as kind :data:`CHART`, part 1.

        Args:
            destination: where the digest goes.
            chart: draws the chart; only called when an upload is due.
            repo, week: the digest's repository and ISO week.
            thread: part 1's message id (Slack shares the image there), or None.

        Returns:
            The outcome; ``reference`` is set when the chart is (or was already) uploaded.
            Never raises a platform, store or drawing error: the digest goes out without a chart.
        """
        uploader = image_uploader(self._deliveries.get(destination.platform))
        if uploader is None:
            return ChartOutcome(destination, "skipped", reason=f"{destination.platform} delivery takes no images")

        def upload(image: ChartImage, _key: DeliveryKey) -> str:
            return uploader.upload_image(destination, image.png, title=image.title, thread=thread)

        return self._upload_once(destination, CHART, chart, upload, repo=repo, week=week, thread=thread,
                                 title=lambda image: image.title)

    def upload_file(self, destination: Destination, file: FileSource, *, repo: str, week: str,
                    thread: str | None) -> ChartOutcome:
        """Post the full report of (``repo``, ``week``) as a file to ``destination`` once, through
        the platform's ``upload_file`` (:class:`chatbot.ports.FileUploader`), recorded in the
        delivery log as kind :data:`REPORT`, part 1 (the same rules as :meth:`upload_chart`).

        Args:
            destination: where the digest goes.
            file: renders the file; only called when an upload is due (None: nothing to attach).
            repo, week: the digest's repository and ISO week.
            thread: part 1's message id (the file goes in its thread), or None.

        Returns:
            The outcome; ``reference`` is the platform's file or message id when posted (now or before).
            Never raises a platform, store or rendering error: the digest stays posted without it.
        """
        uploader = file_uploader(self._deliveries.get(destination.platform))
        if uploader is None:
            return ChartOutcome(destination, "skipped", reason=f"{destination.platform} delivery takes no files")

        def upload(f: FileUpload, key: DeliveryKey) -> str:
            return uploader.upload_file(destination, f, thread=thread, delivery_key=key.token)

        return self._upload_once(destination, REPORT, file, upload, repo=repo, week=week, thread=thread,
                                 title=lambda f: f.filename)

    def _upload_once(self, destination: Destination, kind: str, make: Callable[[], T | None],
                     upload: Callable[[T, DeliveryKey], str], *, repo: str, week: str, thread: str | None,
                     title: Callable[[T], str]) -> ChartOutcome:
        """One best-effort upload of ``kind`` (:data:`CHART`, :data:`REPORT`) per (repo, week,
        destination): ``make`` builds what to upload (only when due), ``upload`` posts it and
        answers the platform's reference. Failures are logged in one line and logged ``failed``."""
        key = DeliveryKey(repo, week, destination.platform, destination.target, kind, 1)
        owned = False
        try:
            row = next((r for r in self._log.deliveries_of(repo, week, kind) if r.key == key), None)
            if row is not None and row.status != FAILED:
                return self._upload_exists(destination, key, row)
            thing = make()
            if thing is None:
                return self._upload_outcome(destination, kind, "skipped", reason=f"no {kind} for this digest")
            now = self._clock.now()
            if row is None:
                owned, row = self._log.claim_delivery(key, now, self.owner)
                if not owned:
                    return self._upload_exists(destination, key, row)
            else:
                owned = self._log.take_over_delivery(key, row, now, self.owner)
                if not owned:
                    return self._upload_outcome(destination, kind, "skipped", reason="taken by another process")
            self._log.touch_delivery(key, row.attempts + 1, now)
            ref = upload(thing, key)
        except DeliveryError as exc:
            reason = exc.reason or "error"
            log.warning("%s %s: upload failed (%s); the digest goes out without it", kind, key, reason)
            return self._upload_failed(destination, key, reason, owned)
        except Exception as exc:  # drawing, store or adapter trouble: the digest goes on without it
            log.exception("%s %s: %s; the digest goes out without it", kind, key, exc)
            return self._upload_failed(destination, key, f"{type(exc).__name__}: {getattr(exc, 'user_message', exc)}", owned)
        try:
            self._log.mark_delivery_sent(key, ref, thread, self._clock.now())
        except Exception:  # uploaded, but the log could not say so: use it now, a later run skips the 'sending' row
            log.exception("%s %s: uploaded as %s but not recorded", kind, key, ref)
        log.info("%s %s: uploaded (%s)", kind, key, ref)
        return self._upload_outcome(destination, kind, SENT, ref, title=title(thing))

    def _upload_exists(self, destination: Destination, key: DeliveryKey, row: DeliveryRecord) -> ChartOutcome:
        if row.status == SENT and row.message_id:
            log.info("%s %s: already uploaded (%s)", key.kind, key, row.message_id)
            return ChartOutcome(destination, SENT, row.message_id, already=True)
        log.info("%s %s: a %s row exists (another run uploads it, or died uploading): not uploading again",
                 key.kind, key, row.status)
        return self._upload_outcome(destination, key.kind, "skipped", reason=f"{key.kind} row is {row.status}")

    def _upload_failed(self, destination: Destination, key: DeliveryKey, reason: str, owned: bool) -> ChartOutcome:
        if owned:
            try:
                self._log.mark_delivery_failed(key, reason, self._clock.now())
            except Exception:
                log.exception("%s %s: cannot record the failure (%s)", key.kind, key, reason)
        return self._upload_outcome(destination, key.kind, FAILED, reason=reason)

    def _upload_outcome(self, destination: Destination, kind: str, status: str, reference: str | None = None,
                        reason: str | None = None, title: str | None = None) -> ChartOutcome:
        self._metrics.inc(UPLOAD_METRICS[kind], platform=destination.platform, outcome=status)
        return ChartOutcome(destination, status, reference, reason, title=title)

    # -- one part --------------------------------------------------------------------------------

    def _part(self, delivery: ChatDelivery, dest: Destination, key: DeliveryKey, card: object, thread: str | None) -> PartOutcome:
        now = self._clock.now()
        won, row = self._log.claim_delivery(key, now, self.owner)
        if not won:
            taken = self._existing(delivery, dest, key, row, thread)
            if taken is not None:
                return taken
        return self._send(delivery, dest, key, card, thread)

    def _existing(self, delivery: ChatDelivery, dest: Destination, key: DeliveryKey, row: DeliveryRecord,
                  thread: str | None = None) -> PartOutcome | None:
        """Decide about a row that already existed; None means this process now owns the send."""
        if row.status == SENT:
            log.info("delivery %s: already sent (message %s)", key, row.message_id)
            self._metrics.inc("prhub_deliveries_skipped_total", platform=key.platform)
            return PartOutcome(key, SENT, row.message_id, row.thread_id or row.message_id, already=True)
        if row.status == SENDING:
            try:
                found = delivery.find_sent(dest, key.token, row.updated_at, thread=thread)
            except DeliveryError as exc:
                log.warning("delivery %s: reconciliation lookup failed (%s): not re-sending now", key, exc.reason)
                self._metrics.inc("prhub_deliveries_skipped_total", platform=key.platform)
                return PartOutcome(key, "skipped", reason=f"{UNSENT_PREFIX}: {exc.reason}")
            if found is not None:
                log.info("delivery %s: reconciled: the platform has message %s", key, found.message_id)
                self._log.mark_delivery_sent(key, found.message_id, found.thread_id, self._clock.now())
                self._metrics.inc("prhub_deliveries_skipped_total", platform=key.platform)
                return PartOutcome(key, SENT, found.message_id, found.thread_id or found.message_id, already=True)
            now = self._clock.now()
            age = (now - row.updated_at).total_seconds()
            if not (self.stale(row)
                    or resend_deduplicated(row.updated_at, self._started_at, now, dedup_window_seconds(delivery))):
                log.info("delivery %s: already being sent by another process (row %.0f s old): skipping", key, age)
                self._metrics.inc("prhub_deliveries_skipped_total", platform=key.platform)
                return PartOutcome(key, "skipped", reason="sending elsewhere")
        if not self._log.take_over_delivery(key, row, self._clock.now(), self.owner):
            log.info("delivery %s: already sent or being sent by another process", key)
            self._metrics.inc("prhub_deliveries_skipped_total", platform=key.platform)
            return PartOutcome(key, "skipped", reason="taken by another process")
        log.info("delivery %s: taking over a %s row (owner %s, attempts so far %d)", key, row.status,
                 row.owner or "unknown", row.attempts)
        return None

    def _send(self, delivery: ChatDelivery, dest: Destination, key: DeliveryKey, card: object, thread: str | None) -> PartOutcome:
        s = self._settings
        reason = "unknown"
        for attempt in range(1, s.max_attempts + 1):
            self._log.touch_delivery(key, attempt, self._clock.now())
            try:
                sent: SentMessage = delivery.send(dest, card, thread=thread, delivery_key=key.token)
            except DeliveryError as exc:
                reason = exc.reason or "error"
                if exc.permanent:
                    log.warning("delivery %s: refused permanently (%s)", key, reason)
                    return self._fail(key, reason)
                if attempt == s.max_attempts:
                    log.warning("delivery %s: giving up after %d attempts (%s)", key, attempt, reason)
                    return self._fail(key, reason)
                if exc.retry_after is not None:
                    wait = float(exc.retry_after)
                    if wait > s.max_retry_after_seconds:
                        log.warning("delivery %s: Retry-After %.0f s is beyond the cap: giving up", key, wait)
                        return self._fail(key, reason)
                else:
                    wait = min(s.max_backoff_seconds, s.backoff_seconds * (2 ** (attempt - 1)))
                log.info("delivery %s: attempt %d failed (%s), retrying in %.1f s", key, attempt, reason, wait)
                self._metrics.inc("prhub_deliveries_retried_total", platform=key.platform)
                if not self._wait(key, wait):
                    log.warning("delivery %s: the lease was taken over while waiting: not sending", key)
                    self._metrics.inc("prhub_deliveries_skipped_total", platform=key.platform)
                    return PartOutcome(key, "skipped", reason="lease lost")
                if exc.retry_after is None and reason not in rate_limit_reasons(delivery):
                    found = self._lookup(delivery, dest, key, thread)
                    if found is not None:
                        log.info("delivery %s: the failed attempt had posted (message %s)", key, found.message_id)
                        return self._sent(key, found)
                continue
            return self._sent(key, sent)
        return self._fail(key, reason)  # pragma: no cover - the loop always returns

    def _wait(self, key: DeliveryKey, seconds: float) -> bool:
        """Sleep ``seconds``, renewing the lease of ``key`` every heartbeat. False when a renewal
        found the row no longer ours. A :class:`Stopping` hands the row back and propagates."""
        s = self._settings
        beat = s.heartbeat_seconds if s.heartbeat_seconds is not None else s.lease_seconds / 3
        left = seconds
        try:
            while True:
                step = min(left, beat) if beat > 0 else left
                self._sleep(step)
                left -= step
                if not self._log.renew_delivery(key, self.owner, self._clock.now()):
                    return False
                if left <= 0:
                    return True
        except Stopping:
            try:
                if self._log.release_delivery(key, self.owner, self._clock.now()):
                    log.warning("delivery %s: shutting down during a wait: handed back for the next process", key)
            except Exception:
                log.exception("delivery %s: cannot hand the part back (it is stale when the lease runs out)", key)
            raise

    def _lookup(self, delivery: ChatDelivery, dest: Destination, key: DeliveryKey, thread: str | None = None) -> SentMessage | None:
        try:
            return delivery.find_sent(dest, key.token, self._clock.now() - timedelta(minutes=5), thread=thread)
        except DeliveryError:
            return None

    def _sent(self, key: DeliveryKey, sent: SentMessage) -> PartOutcome:
        thread = sent.thread_id or (sent.message_id if key.part == 1 else None)
        self._log.mark_delivery_sent(key, sent.message_id, thread, self._clock.now())
        self._metrics.inc("prhub_deliveries_sent_total", platform=key.platform, kind=key.kind)
        log.info("delivery %s: sent (message %s)", key, sent.message_id)
        return PartOutcome(key, SENT, sent.message_id, thread)

    def _fail(self, key: DeliveryKey, reason: str) -> PartOutcome:
        try:
            self._log.claim_delivery(key, self._clock.now(), self.owner)
            self._log.mark_delivery_failed(key, reason, self._clock.now())
        except Exception:  # the store is down too: the log line is all we can leave
            log.exception("delivery %s: cannot record the failure (%s)", key, reason)
        self._metrics.inc("prhub_deliveries_failed_total", platform=key.platform, kind=key.kind)
        return PartOutcome(key, FAILED, reason=reason)
