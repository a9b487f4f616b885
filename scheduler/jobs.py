"""The weekly digest job of one repository: build, post to every destination, then the slices.

Which week: the ISO week (in the repository's ``week_tz``) that ended before the fire time,
whatever time the job actually runs (a late or catch-up run digests the same week). Each
destination is independent: one that keeps failing is logged ``failed`` and reported to the
admins without blocking the others. A GitHub rate limit (:class:`RateLimitedError`) asks the
scheduler for one retry after the reset. :meth:`DigestJob.run` never raises.

With a chart renderer, each digest also carries the week's main chart, uploaded once per
destination (best effort: a chart that cannot be drawn or uploaded is logged and the digest goes
out without it). Where it goes depends on the platform (:class:`chatbot.ports.ImageUploader`):
Feishu shows an uploaded image key in a card, so the chart is uploaded first and put in part 1;
Slack shares the uploaded file into a thread, so the chart follows part 1, in its thread.

Without a public URL for the report pages (no "Full report" button), a destination whose platform
takes files (:class:`chatbot.ports.FileUploader`) gets the full report as a file in part 1's thread,
after the parts, once (kind ``report`` in the delivery log), and part 1 says so. Best effort like the
chart: a report that cannot be rendered or posted is logged in one line and the post stays as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from chatbot.admins import admin_user
from chatbot.actions import digest_buttons
from chatbot.cards import Card, CardLimits, Image, digest_cards, message_card, with_image, with_report_attached
from chatbot.deliveries import SENT, SubscriberDirectory
from chatbot.errors import PrhubError, RateLimitedError
from chatbot.i18n import tr
from chatbot.digest import Digest, write
from chatbot.models import DigestText
from chatbot.ports import Clock, Destination, FileUpload, file_uploader, image_uploader
from chatbot.slices import slice_card
from chatbot.weeks import IsoWeek, load_zone
from scheduler.config import BotConfig, RepositoryConfig
from scheduler.delivery import ChartOutcome, ChartSource, Deliverer, DestinationOutcome, FileSource, JobReport, Stopping
from scheduler.metrics import METRICS, Metrics

if TYPE_CHECKING:
    from chatbot.render.html import ChartImage
    from scheduler.approval import Approvals

log = logging.getLogger(__name__)

DIGEST = "digest"
SLICE = "slice"

DigestBuilder = Callable[[RepositoryConfig, IsoWeek, Sequence[str]], Digest]
"""Builds the language-neutral digest of (repository, week); the languages it will be posted in are
passed so the optional step can write their prose (one digest per repository-week).

Raises:
    RateLimitedError: GitHub is rate-limited (the job is retried once after ``reset_at``).
    PrhubError: the PRs cannot be read (missing file, GitHub error, store error).
"""

ReportUrl = Callable[[str, str], "str | None"]
"""``(repo, week) -> public URL of the full report`` (None: no "Full report" button)."""

RetryScheduler = Callable[[RepositoryConfig, IsoWeek, datetime], None]
"""Schedules one retry of the job for (repository, week) at an aware UTC instant."""

ChartRenderer = Callable[[DigestText], "ChartImage | None"]
"""Draws the main chart of a digest (in ``digest.lang``) as a PNG with a plain-text title, or None
when there is nothing to chart. ``prhub/bot.py`` injects one built on matplotlib; it may raise."""

ReportFile = Callable[[DigestText], "FileUpload | None"]
"""Renders the full report of a digest (in ``digest.lang``) as the file posted when no public URL
links to it, or None when there is nothing to attach. ``prhub/bot.py`` injects one (the report's
PDF, its HTML page when the PDF cannot be printed); it may raise."""

X = TypeVar("X")


def once_per_lang(make: Callable[[str], X | None]) -> Callable[[str], Callable[[], X | None]]:
    """``of(lang)`` is a source that calls ``make(lang)`` at most once per language and run (a
    failure too: it is raised again to every later caller), for sources called only when due."""
    made: dict[str, Any] = {}

    def of(lang: str) -> Callable[[], X | None]:
        def get() -> X | None:
            if lang not in made:
                try:
                    made[lang] = make(lang)
                except Exception as exc:
                    made[lang] = exc
            got = made[lang]
            if isinstance(got, Exception):
                raise got
            return got  # type: ignore[no-any-return]
        return get

    return of


def week_for(fire_time: datetime, week_tz: str) -> IsoWeek:
    """The ISO week (in ``week_tz``) that ended at or before ``fire_time`` (aware)."""
    return IsoWeek.containing(fire_time, load_zone(week_tz)).previous()


class DigestJob:
    """Runs the weekly job of any configured repository (one instance per process)."""

    def __init__(self, config: BotConfig, *, build: DigestBuilder, deliverer: Deliverer, clock: Clock,
                 subscribers: SubscriberDirectory | None = None, report_url: ReportUrl | None = None,
                 schedule_retry: RetryScheduler | None = None, metrics: Metrics = METRICS,
                 chart: ChartRenderer | None = None, approvals: Approvals | None = None,
                 report_file: ReportFile | None = None) -> None:
        """
        Args:
            config: the bot's configuration.
            build: builds the digest of (repository, week, language).
            deliverer: posts messages exactly once (and uploads charts at most once).
            clock: current time.
            subscribers: the subscriptions, for the weekly slices (None: no slices).
            report_url: public URL of a week's full report (None: no button).
            schedule_retry: where a rate-limited run asks for its one retry.
            metrics: counters.
            chart: draws a digest's main chart (None: digests go out without a chart).
            approvals: holds the posts of ``approval: true`` repositories for the admins
                (:mod:`scheduler.approval`); None: every post goes out at once.
            report_file: renders the full report as a file, posted when ``report_url`` gives no
                URL (None: no file; part 1 then only lacks the button).
        """
        self.config = config
        self._build = build
        self._deliverer = deliverer
        self._clock = clock
        self._subscribers = subscribers
        self._report_url = report_url or (lambda repo, week: None)
        self._schedule_retry = schedule_retry
        self._metrics = metrics
        self._chart = chart
        self._report_file = report_file
        self.approvals = approvals
        if approvals is not None:
            approvals.attach(lambda repo, week: self.run(repo, week=week))
        self.last_reports: dict[str, JobReport] = {}
        """The latest finished run of each repository (``/healthz`` and ``/metrics`` show it)."""

    @property
    def deliverer(self) -> Deliverer:
        """The deliverer of this job (its lease checks are used by reconciliation)."""
        return self._deliverer

    def set_retry_scheduler(self, schedule_retry: RetryScheduler) -> None:
        """Where rate-limited runs ask for their one retry (the :class:`DigestScheduler` sets itself)."""
        self._schedule_retry = schedule_retry

    def run(self, repo: str, *, fire_time: datetime | None = None, week: IsoWeek | None = None,
            retry: bool = False) -> JobReport:
        """Digest ``repo`` for ``week`` (default: the week that ended before ``fire_time``, default now).

        Args:
            repo: a configured ``owner/name``.
            fire_time: the scheduled fire time (aware); decides the week.
            week: the week to digest instead.
            retry: this run is the retry after a GitHub rate limit (no further retry is scheduled).

        Returns:
            The report (``status``: ``ok``, ``partial`` when a destination failed, ``failed``,
            ``rate_limited``, ``stopped``, ``awaiting_approval`` (previews sent to the admins),
            ``skipped`` (an admin skipped the week)). Never raises except :class:`KeyboardInterrupt`/``SystemExit``.
        """
        try:
            cfg = self.config.repository(repo)
            the_week = week or week_for(fire_time or self._clock.now(), cfg.week_tz)
        except PrhubError as exc:
            log.error("job %s: %s", repo, exc.user_message)
            return JobReport(repo, str(week or ""), status="failed", problems=[exc.user_message])
        report = JobReport(repo, str(the_week))
        try:
            self._run(cfg, the_week, report, retry, fire_time or self._clock.now())
        except Stopping:
            report.status = "stopped"
            log.warning("job %s %s: stopped by shutdown; unfinished parts are handed back for the next process",
                        repo, the_week)
        except Exception as exc:  # the job never raises into APScheduler
            report.status = "failed"
            report.problems.append(f"{type(exc).__name__}: {getattr(exc, 'user_message', exc)}")
            log.exception("job %s %s failed", repo, the_week)
        self._metrics.inc("prhub_jobs_total", repo=repo, outcome=report.status)
        if report.status != "stopped":
            self.last_reports[repo] = report
        if report.problems and report.status != "stopped":
            self._tell_admins(cfg, report)
        return report

    # -- internals -------------------------------------------------------------------------------

    def _run(self, cfg: RepositoryConfig, week: IsoWeek, report: JobReport, retry: bool, fire_time: datetime) -> None:
        log.info("job %s %s: starting", cfg.repo, week)
        built: list[Digest] = []
        texts: dict[str, DigestText] = {}
        slice_lang = self.config.subscriptions.lang
        langs = list(dict.fromkeys([*(d.lang for d in cfg.destinations), *([slice_lang] if slice_lang else [])]))

        def digest(lang: str) -> DigestText:  # the one digest, written in ``lang`` when first posted in it
            if not built:
                built.append(self._build(cfg, week, langs))
                self._metrics.inc("prhub_digests_built_total", repo=cfg.repo)
            if lang not in texts:
                texts[lang] = write(built[0], lang)
            return texts[lang]

        try:
            for d in cfg.destinations:
                digest(d.lang)
        except RateLimitedError as exc:
            report.status = "rate_limited"
            if retry or self._schedule_retry is None:
                report.problems.append(f"{exc.user_message} (no further retry)")
            else:
                at = exc.reset_at
                self._schedule_retry(cfg, week, at)
                report.retry_at = at
                report.problems.append(f"delayed: {exc.user_message}; one retry is scheduled after the reset")
            log.warning("job %s %s: %s", cfg.repo, week, report.problems[-1])
            return
        except PrhubError as exc:
            report.status = "failed"
            report.problems.append(exc.user_message)
            log.error("job %s %s: cannot build the digest: %s", cfg.repo, week, exc.user_message)
            return

        url = self._report_url(cfg.repo, str(week))
        chart = self._chart
        chart_of: Callable[[str], ChartSource] = once_per_lang(lambda lang: chart(digest(lang)) if chart else None)
        render = self._report_file
        file_of: Callable[[str], FileSource] = once_per_lang(lambda lang: render(digest(lang)) if render else None)

        def cards_of(lang: str, attached: bool = False) -> list[Card]:
            cards = digest_cards(digest(lang), report_url=url, limits=CardLimits(top_risks=cfg.cards.top_risks))
            if attached and cards:
                cards[0] = with_report_attached(cards[0])
            return [digest_buttons(c, digest(lang)) for c in cards[:1]] + cards[1:]

        if self.approvals is not None:
            held = self.approvals.hold(cfg, week, fire_time, cards_of)
            if held is not None:
                report.status = held
                log.info("job %s %s: not posted (%s)", cfg.repo, week, held)
                return
        for d in cfg.destinations:
            dest = Destination(platform=d.platform, target=d.target, lang=d.lang, workspace=d.workspace)
            attach = url is None and render is not None \
                and file_uploader(self._deliverer.delivery_for(d.platform)) is not None
            cards = cards_of(d.lang, attached=attach)
            out, charted = self._deliver_digest(dest, cards, repo=cfg.repo, week=str(week), chart=chart_of(d.lang))
            report.digests.append(out)
            if charted is not None:
                report.charts.append(charted)
            thread = _thread_of(out)
            if attach and thread:
                report.files.append(self._deliverer.upload_file(dest, file_of(d.lang), repo=cfg.repo, week=str(week),
                                                                thread=thread))
            if out.unsent:
                report.problems.append(f"{d.platform}:{d.target}: {out.unsent}")
        self._slices(cfg, week, digest, url, report)
        if report.problems:
            report.status = "partial"
        log.info("job %s %s: done (%s)", cfg.repo, week, report.status)

    def _deliver_digest(self, dest: Destination, cards: list[Card], *, repo: str, week: str,
                        chart: ChartSource) -> tuple[DestinationOutcome, ChartOutcome | None]:
        """Post the digest's parts to ``dest`` with the chart: uploaded first and shown in part 1
        (Feishu ``img_key``), or uploaded into part 1's thread after the parts (Slack)."""
        uploader = image_uploader(self._deliverer.delivery_for(dest.platform))
        if self._chart is None or uploader is None or not cards:
            return self._deliverer.deliver(dest, cards, repo=repo, week=week, kind=DIGEST), None
        outcome: ChartOutcome | None = None
        if uploader.images_in_cards:
            if self._deliverer.started(dest, repo=repo, week=week, kind=DIGEST):
                log.info("job %s %s: part 1 to %s:%s is already out: no chart", repo, week, dest.platform, dest.target)
            else:
                outcome = self._deliverer.upload_chart(dest, chart, repo=repo, week=week, thread=None)
                if outcome.reference:
                    alt = outcome.title or tr(dest.lang, "html.charts")
                    cards = [with_image(cards[0], Image(key=outcome.reference, alt=alt)), *cards[1:]]
            return self._deliverer.deliver(dest, cards, repo=repo, week=week, kind=DIGEST), outcome
        out = self._deliverer.deliver(dest, cards, repo=repo, week=week, kind=DIGEST)
        thread = _thread_of(out)
        if thread:
            outcome = self._deliverer.upload_chart(dest, chart, repo=repo, week=week, thread=thread)
        return out, outcome

    def _slices(self, cfg: RepositoryConfig, week: IsoWeek, digest: Callable[[str], DigestText], url: str | None,
                report: JobReport) -> None:
        settings = self.config.subscriptions
        if not settings.enabled or self._subscribers is None:
            return
        groups: dict[tuple[str, str, str, str], list[str]] = {}
        for sub in self._subscribers.subscriptions_for_repo(cfg.repo):
            groups.setdefault((sub.platform, sub.workspace, sub.kind, sub.subscriber), []).append(sub.module)
        for (platform, workspace, _kind, subscriber), modules in sorted(groups.items()):
            lang: str = settings.lang or next((d.lang for d in cfg.destinations if d.platform == platform and d.lang), "en")
            card = slice_card(digest(lang), modules, report_url=url, send_empty=settings.when_empty == "send")
            if card is None:
                log.info("job %s %s: no PRs in the modules of %s:%s: slice skipped", cfg.repo, week, platform, subscriber)
                continue
            dest = Destination(platform=platform, target=subscriber, lang=lang, workspace=workspace)
            out = self._deliverer.deliver(dest, [card], repo=cfg.repo, week=str(week), kind=SLICE)
            report.slices.append(out)
            if out.unsent:
                report.problems.append(f"slice {platform}:{subscriber}: {out.unsent}")

    def _tell_admins(self, cfg: RepositoryConfig, report: JobReport) -> None:
        admins = self.config.admins
        lines = [f"{cfg.repo} {report.week}: {report.status}", *report.problems[:20]]
        for platform, ids in admins.items():
            delivery = self._deliverer.delivery_for(platform)
            if delivery is None:
                continue
            for admin in ids:
                card = message_card("prhub: weekly digest problems", lines, lang="en", role="admin_alert")
                try:
                    delivery.send(Destination(platform=platform, target=admin_user(admin)), card, thread=None,
                                  delivery_key=f"alert-{report.repo}-{report.week}-{self._clock.now():%Y%m%d%H%M%S}"[:50])
                except Exception as exc:  # an alert that cannot be sent is only logged
                    log.warning("cannot tell admin %s:%s about %s %s: %s", platform, admin, cfg.repo, report.week,
                                getattr(exc, "reason", exc))


def _thread_of(out: DestinationOutcome) -> str | None:
    """Part 1's thread (its message id) when part 1 is sent, else None."""
    first = out.parts[0] if out.parts else None
    return (first.thread_id or first.message_id) if first is not None and first.status == SENT else None
