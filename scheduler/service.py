"""APScheduler 3 wiring: one cron job per repository, catch-up at start, one retry after a GitHub limit.

Jobs live in memory and are rebuilt from the config at every start (stable ids
``digest:<owner>/<name>``, ``replace_existing``), each with an explicit time zone,
``misfire_grace_time``, ``coalesce=True`` and ``max_instances=1``. APScheduler forgets firings
missed while the process was down, so :meth:`DigestScheduler.catch_up` looks at the delivery log:
a repository whose last firing has passed, within its grace (default: until the next firing),
and whose week has an undelivered destination (no row, or a ``sending`` row to reconcile) gets
exactly one catch-up run, however many firings were missed. A repository with no row at all in the
delivery log (a new install, a new repository) is not caught up: the firing happened before the bot
ran, and the log line says so.

While the process runs, :meth:`DigestScheduler.reconcile` looks every
``delivery.reconcile_seconds`` for ``sending`` parts that are stale (a dead process's, handed back
at shutdown, or past their lease) and re-runs their (repository, week): the deliverer reconciles
each with the platform and sends what it does not have, so a lost part does not wait for a restart.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from chatbot.deliveries import SENDING, DeliveryLog
from chatbot.ports import Clock
from chatbot.weeks import IsoWeek, load_zone
from scheduler.config import BotConfig, RepositoryConfig
from scheduler.jobs import DIGEST, SLICE, DigestJob, week_for

log = logging.getLogger(__name__)

_LOOKBACKS = (timedelta(hours=1), timedelta(days=1), timedelta(days=8), timedelta(days=32), timedelta(days=370))


def previous_fire_time(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The latest fire time of ``trigger`` at or before ``now`` (aware), within a year; None if none."""
    for back in _LOOKBACKS:
        t: datetime | None = trigger.get_next_fire_time(None, now - back)
        last: datetime | None = None
        while t is not None and t <= now:
            last = t
            t = trigger.get_next_fire_time(t, t + timedelta(seconds=1))
        if last is not None:
            return last
    return None


def next_fire_time(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The first fire time of ``trigger`` at or after ``now`` (aware, in the trigger's zone)."""
    fire: datetime | None = trigger.get_next_fire_time(None, now)
    return fire


@dataclass(frozen=True)
class JobInfo:
    """One scheduled job: id, repository, schedule text, zone, and next run (in the zone; None: paused)."""

    job_id: str
    repo: str
    schedule: str
    timezone: str
    next_run: datetime | None


def planned_jobs(config: BotConfig, now: datetime) -> list[JobInfo]:
    """The jobs the config defines and their next run after ``now`` (aware), without starting anything."""
    out = []
    for r in config.repositories:
        trig = r.schedule.trigger()
        out.append(JobInfo(r.job_id, r.repo, r.schedule.crontab, r.schedule.timezone, next_fire_time(trig, now)))
    return out


class DigestScheduler:
    """A :class:`BackgroundScheduler` (one scheduler thread, one worker) running the digest jobs."""

    def __init__(self, config: BotConfig, job: DigestJob, *, clock: Clock, delivery_log: DeliveryLog,
                 retry_margin_seconds: float | None = None) -> None:
        self.config = config
        self.job = job
        self._clock = clock
        self._log = delivery_log
        self._margin = (config.delivery.github_retry_margin_seconds if retry_margin_seconds is None
                        else retry_margin_seconds)
        self.scheduler = BackgroundScheduler(
            timezone=timezone.utc,
            executors={"default": ThreadPoolExecutor(max_workers=1)},
            job_defaults={"coalesce": True, "max_instances": 1},
        )
        self._triggers: dict[str, CronTrigger] = {}
        job.set_retry_scheduler(self.schedule_retry)

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self, *, catch_up: bool = True) -> None:
        """Add one cron job per repository, start the scheduler thread, then run the catch-up check.

        Raises:
            ValueError: a schedule that does not validate (the config was validated, so unlikely).
        """
        for r in self.config.repositories:
            trig = r.schedule.trigger()
            self._triggers[r.repo] = trig
            self.scheduler.add_job(
                self._fire, trigger=trig, args=[r.repo], id=r.job_id, name=f"weekly digest of {r.repo}",
                replace_existing=True, misfire_grace_time=r.schedule.misfire_grace_seconds, coalesce=True,
                max_instances=1,
            )
        every = self.config.delivery.reconcile_seconds
        if every > 0:
            self.scheduler.add_job(
                self.reconcile, trigger=IntervalTrigger(seconds=every, timezone=timezone.utc), id="reconcile",
                name="reconcile stale deliveries", replace_existing=True, coalesce=True, max_instances=1,
                misfire_grace_time=max(1, int(every)),
            )
        if self.job.approvals is not None and any(r.approval for r in self.config.repositories):
            self.scheduler.add_job(
                self.job.approvals.run_due, trigger=IntervalTrigger(seconds=60, timezone=timezone.utc), id="approvals",
                name="post approvals past their deadline", replace_existing=True, coalesce=True, max_instances=1,
                misfire_grace_time=60,
            )
        self.scheduler.start()
        if catch_up:
            self.catch_up()

    def shutdown(self, wait: bool = True) -> None:
        """Stop the scheduler; with ``wait``, running jobs finish first (their sleeps may be cut short)."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=wait)

    @property
    def running(self) -> bool:
        """True while the scheduler thread runs."""
        return bool(self.scheduler.running)

    def wakeup(self) -> None:
        """Make the scheduler thread re-check due jobs now (tests move the clock, then call this)."""
        self.scheduler.wakeup()

    def jobs(self) -> list[JobInfo]:
        """The scheduled digest jobs and their next run times (in the schedule's zone)."""
        out = []
        for r in self.config.repositories:
            j = self.scheduler.get_job(r.job_id)
            nxt = j.next_run_time if j is not None else None
            if nxt is not None:
                nxt = nxt.astimezone(load_zone(r.schedule.timezone))
            out.append(JobInfo(r.job_id, r.repo, r.schedule.crontab, r.schedule.timezone, nxt))
        return out

    # -- the jobs --------------------------------------------------------------------------------

    def _fire(self, repo: str) -> None:
        """The cron job: digest the week that ended before this firing (never raises)."""
        try:
            now = self._clock.now()
            trig = self._triggers.get(repo) or self.config.repository(repo).schedule.trigger()
            fire = previous_fire_time(trig, now) or now
            self.job.run(repo, fire_time=fire)
        except Exception:  # pragma: no cover - DigestJob.run never raises; belt and braces
            log.exception("job %s failed", repo)

    def _run_week(self, repo: str, week: str, retry: bool) -> None:
        try:
            self.job.run(repo, week=IsoWeek.parse(week), retry=retry)
        except Exception:  # pragma: no cover
            log.exception("job %s %s failed", repo, week)

    def schedule_retry(self, cfg: RepositoryConfig, week: IsoWeek, at: datetime) -> None:
        """One retry of (repository, week) at ``at`` plus the margin (GitHub rate-limit reset)."""
        when = max(at, self._clock.now()) + timedelta(seconds=self._margin)
        self.scheduler.add_job(
            self._run_week, trigger=DateTrigger(run_date=when, timezone=timezone.utc), args=[cfg.repo, str(week), True],
            id=f"retry:{cfg.repo}", name=f"retry of {cfg.repo} {week} after the GitHub rate limit",
            replace_existing=True, misfire_grace_time=24 * 3600, coalesce=True, max_instances=1,
        )
        log.warning("job %s %s: GitHub rate limit: one retry scheduled at %s", cfg.repo, week, when.isoformat())

    def reconcile(self) -> list[tuple[str, str]]:
        """Re-run each (repository, week) that has a stale ``sending`` digest or slice part (see
        :meth:`scheduler.delivery.Deliverer.stale`); never raises.

        Returns:
            The ``(repo, week)`` pairs re-run.
        """
        try:
            rows = self._log.unfinished_deliveries()
        except Exception as exc:
            log.warning("reconciliation: delivery log unreadable: %s", getattr(exc, "user_message", exc))
            return []
        configured = {r.repo for r in self.config.repositories}
        due: list[tuple[str, str]] = []
        for row in rows:
            pair = (row.key.repo, row.key.week)
            if (row.key.kind in (DIGEST, SLICE) and row.key.repo in configured and pair not in due
                    and self.job.deliverer.stale(row)):
                due.append(pair)
        for repo, week in due:
            log.warning("reconciliation: %s %s has a stale part (owner gone or lease expired): running it again",
                        repo, week)
            self._run_week(repo, week, False)
        return due

    def catch_up(self) -> list[tuple[str, IsoWeek]]:
        """Schedule one immediate catch-up run per repository whose last firing was missed.

        Returns:
            ``(repo, week)`` of the catch-up runs scheduled.
        """
        now = self._clock.now()
        scheduled = []
        for r in self.config.repositories:
            try:
                week = self._missed_week(r, now)
            except Exception:
                log.exception("catch-up check of %s failed", r.repo)
                continue
            if week is None:
                continue
            self.scheduler.add_job(
                self._run_week, trigger=DateTrigger(run_date=now, timezone=timezone.utc), args=[r.repo, str(week), False],
                id=f"catchup:{r.repo}", name=f"catch-up of {r.repo} {week}", replace_existing=True,
                misfire_grace_time=r.schedule.misfire_grace_seconds, coalesce=True, max_instances=1,
            )
            scheduled.append((r.repo, week))
        return scheduled

    def _missed_week(self, r: RepositoryConfig, now: datetime) -> IsoWeek | None:
        trig = self._triggers.get(r.repo) or r.schedule.trigger()
        last = previous_fire_time(trig, now)
        if last is None:
            return None
        week = week_for(last, r.week_tz)
        grace = r.schedule.catch_up_grace_seconds
        if grace is not None:
            deadline = last + timedelta(seconds=grace)
        else:
            deadline = trig.get_next_fire_time(last, last + timedelta(seconds=1)) or (last + timedelta(days=7))
        rows = self._log.deliveries_of(r.repo, str(week), DIGEST)
        delivered = {(x.key.platform, x.key.destination) for x in rows if x.status != SENDING}
        pending = {(x.key.platform, x.key.destination) for x in rows if x.status == SENDING}
        wanted = {(d.platform, d.target) for d in r.destinations}
        missing = (wanted - delivered) | pending
        if not missing:
            return None
        if not self._log.has_deliveries(r.repo):
            upcoming = next_fire_time(trig, now)
            log.info("job %s: no post of it is recorded in this store (a new install): the firing of %s for %s "
                     "is not caught up; the first post is the next firing, %s", r.repo, last.isoformat(), week,
                     upcoming.isoformat() if upcoming else "none")
            return None
        if now >= deadline:
            log.warning("job %s: the firing of %s for %s was missed and is past its catch-up grace: not run",
                        r.repo, last.isoformat(), week)
            return None
        log.warning("job %s: missed run at %s for %s (%d destination(s) not delivered): one catch-up run now",
                    r.repo, last.isoformat(), week, len(missing))
        return week
