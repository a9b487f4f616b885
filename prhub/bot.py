"""Wiring of the scheduled bot: config + store + deliveries -> digest builder, job, scheduler, server.

``prhub jobs``, ``prhub run-job weekly`` and ``prhub serve`` go through here. The scheduler package
gets everything injected (deliveries, the store as delivery log and subscriber directory, a clock,
a sleeper); this module is the only one that knows the concrete adapters.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatbot.digest import input_window
from chatbot.digest_service import DigestService
from prhub.llm import llm_settings, write_with_model
from chatbot.errors import InputError
from chatbot.fetching import fetch_week
from chatbot.digest import Digest
from chatbot.models import DigestText, PullRequest
from chatbot.ports import ChatDelivery, Clock, FileUpload
from chatbot.rules import Rules
from chatbot.weeks import IsoWeek, load_zone
from chatbot.writer import Budget
from prhub import bootstrap
from prhub.clock import SYSTEM_CLOCK
from prhub.config import Config, Settings, repo_rules, settings_of
from scheduler.approval import Approvals
from scheduler.config import LoadedConfig, RepositoryConfig
from scheduler.delivery import Deliverer, Sleeper, Stopping
from scheduler.jobs import ChartRenderer, DigestBuilder, DigestJob, ReportFile
from scheduler.metrics import METRICS, Metrics, label_set
from scheduler.service import DigestScheduler

if TYPE_CHECKING:
    from adapters.storage import SqlStore
    from chatbot.render.html import ChartImage

log = logging.getLogger(__name__)


class StopSleeper:
    """Sleeps between delivery attempts; :meth:`stop` (SIGTERM) cuts every sleep short with :class:`Stopping`."""

    def __init__(self) -> None:
        self.stopped = threading.Event()

    def __call__(self, seconds: float) -> None:
        if self.stopped.wait(max(0.0, seconds)):
            raise Stopping("shutting down")

    def stop(self) -> None:
        self.stopped.set()


# -- the digest of a configured repository -----------------------------------------------------------


def week_file(loaded: LoadedConfig, cfg: RepositoryConfig, week: IsoWeek) -> Path:
    """The gh-JSON export of ``week`` for a ``source: file`` repository (the pattern with ``{week}``)."""
    return loaded.resolve((cfg.path or "").replace("{week}", str(week)))


def digest_builder(loaded: LoadedConfig, store: SqlStore | None, clock: Clock = SYSTEM_CLOCK) -> DigestBuilder:
    """The :data:`DigestBuilder` of the configured repositories.

    ``source: file`` reads the week's export (and the previous week's, when present, as context for
    reverts and follow-ups) and upserts the PRs into the store (for chat queries); ``source: github``
    fetches the week into the store (0 requests when final) and reads it back with its context days.

    The builder raises InputError (missing file, no GITHUB_TOKEN), RateLimitedError and the other
    source/store errors.
    """
    from adapters.export.ghjson import load_exports

    rules_cache: dict[str, Rules] = {}
    prs_cache: dict[tuple[str, str], list[PullRequest]] = {}

    def prs_of(cfg: RepositoryConfig, week: IsoWeek) -> list[PullRequest]:
        key = (cfg.repo, str(week))
        if key in prs_cache:
            return prs_cache[key]
        if cfg.source == "file":
            path = week_file(loaded, cfg, week)
            if not path.is_file():
                raise InputError(f"{cfg.repo} {week}: no export at {path} (source: file, path: {cfg.path})")
            paths = [str(path)]
            prev = week_file(loaded, cfg, week.previous())
            if prev.is_file():
                paths.insert(0, str(prev))
            prs = load_exports(paths, skip_invalid=True).prs
            if store is not None:
                store.upsert_prs(cfg.repo, prs)
        else:
            if store is None:
                raise InputError("source: github needs the PR store (PRHUB_DATABASE_URL)")
            fetch_week(bootstrap.github_source(), store, cfg.repo, week, cfg.week_tz, clock=clock)
            prs = store.merged_between(cfg.repo, *input_window(week, load_zone(cfg.week_tz)))
        prs_cache.clear()  # keep one week: a long-running server must not grow
        prs_cache[key] = prs
        return prs

    configs: dict[str, RepositoryConfig] = {}

    def rules_of(repo: str) -> Rules:
        if repo not in rules_cache:
            rules_cache[repo] = repo_rules(loaded, configs[repo])
        return rules_cache[repo]

    # one analysis per repository-week, whatever the number of languages posted
    settings = llm_settings(loaded.config.llm)
    run = threading.local()  # the model's budget of the build running in this thread, shared by its languages
    step = (lambda d: write_with_model(d, settings, cache=store, budget=getattr(run, "budget", None))) \
        if settings is not None else None
    service = DigestService(lambda repo, week: prs_of(configs[repo], week), rules_for=rules_of,
                            tz_for=lambda repo: configs[repo].week_tz, cache_size=2, step=step)

    def build(cfg: RepositoryConfig, week: IsoWeek, langs: Sequence[str]) -> Digest:
        configs[cfg.repo] = cfg
        run.budget = Budget(settings.budget_s) if settings is not None else None
        try:
            return service.digest(cfg.repo, week, langs=langs, generated_at=clock.now())
        finally:
            run.budget = None

    return build


def weekly_chart(digest: DigestText) -> ChartImage | None:
    """The :data:`scheduler.jobs.ChartRenderer` of the weekly posts: the digest's main chart
    (:func:`adapters.report.charts.main_chart`, matplotlib loaded on first use)."""
    from adapters.report.charts import main_chart

    return main_chart(digest)


def weekly_report_files(loaded: LoadedConfig, store: Any) -> ReportFile:
    """The :data:`scheduler.jobs.ReportFile` of the weekly posts: the digest's full report (history
    and trends from ``store``, the repository's rules) as a file (:func:`prhub.report.report_file`:
    the PDF, the HTML page without a CJK font). Used only when no public URL links to the report."""

    def render(digest: DigestText) -> FileUpload:
        from prhub.report import build_report, report_file

        return report_file(build_report(digest, store, repo_rules(loaded, loaded.config.repository(digest.repo))))

    return render


def public_report_url(loaded: LoadedConfig) -> Callable[[str, str], str | None]:
    """``(repo, week) -> {base}/reports/{owner}/{name}/{week}``, the base from ``PRHUB_PUBLIC_URL``
    else the config's ``chat.public_url`` (the same base as the chat's links); None without one.

    Raises:
        prhub.config.SettingsError: an invalid variable or ``chat:`` value.
    """
    base = settings_of(loaded).prhub_public_url
    return lambda repo, week: f"{base}/reports/{repo}/{week}" if base else None


def check_deliveries(loaded: LoadedConfig, deliveries: dict[str, ChatDelivery]) -> None:
    """Fail early when a destination's platform has no credentials.

    Raises:
        InputError: e.g. a Slack destination without ``SLACK_BOT_TOKEN``.
    """
    from prhub import platforms

    for r in loaded.config.repositories:
        for d in r.destinations:
            if d.platform not in deliveries:
                needs = platforms.get(d.platform).credentials
                plural = " and " in needs
                raise InputError(f"{r.repo} posts to {d.platform}:{d.target} but {needs} "
                                 f"{'are' if plural else 'is'} not set: export {'them' if plural else 'it'}")


@dataclass
class Bot:
    """The wired bot: the job, the scheduler (not started), the store and the sleeper to stop."""

    loaded: LoadedConfig
    store: SqlStore
    job: DigestJob
    scheduler: DigestScheduler
    sleeper: Sleeper
    metrics: Metrics
    platforms: dict[str, str] = field(default_factory=dict)
    """Per chat platform: ``ok`` or why its endpoints are off or not yet up (``/healthz``)."""


def create_bot(loaded: LoadedConfig, store: SqlStore, deliveries: dict[str, ChatDelivery], *, clock: Clock | None = None,
               sleep: Sleeper | None = None, build: DigestBuilder | None = None, metrics: Metrics = METRICS,
               report_url: Callable[[str, str], str | None] | None = None,
               chart: ChartRenderer | None = weekly_chart,
               report_files: Callable[[LoadedConfig, Any], ReportFile] | None = weekly_report_files) -> Bot:
    """Wire the job and the scheduler around ``store`` (delivery log, subscriptions, PRs) and ``deliveries``.

    ``chart`` draws the chart attached to each weekly digest (default :func:`weekly_chart`; None:
    no chart). ``report_files(loaded, store)`` makes the renderer of the full report posted as a
    file when there is no public URL (default :func:`weekly_report_files`; None: no file)."""
    clock = clock or SYSTEM_CLOCK
    sleeper = sleep or StopSleeper()
    cfg = loaded.config
    deliverer = Deliverer(store, deliveries, clock=clock, sleep=sleeper, settings=cfg.delivery, metrics=metrics)
    subscribers = store if hasattr(store, "subscriptions_for_repo") else None
    approvals = Approvals(cfg, store, deliverer, clock) if any(r.approval for r in cfg.repositories) else None
    job = DigestJob(cfg, build=build or digest_builder(loaded, store, clock), deliverer=deliverer, clock=clock,
                    subscribers=subscribers, report_url=report_url or public_report_url(loaded), metrics=metrics,
                    chart=chart, approvals=approvals,
                    report_file=report_files(loaded, store) if report_files is not None else None)
    sched = DigestScheduler(cfg, job, clock=clock, delivery_log=store)
    return Bot(loaded, store, job, sched, sleeper, metrics)


def settings_for(loaded: LoadedConfig) -> Settings:
    """The environment's settings over the config's ``chat:`` keys, with its admins added
    (:func:`prhub.config.settings_of`).

    Raises:
        prhub.config.SettingsError: an invalid variable or ``chat:`` value.
    """
    return settings_of(loaded)


def platform_deliveries(settings: Any) -> dict[str, ChatDelivery]:
    """``SlackDelivery``/``FeishuDelivery`` for the platforms whose credentials are set."""
    from prhub.web import create_deliveries

    return create_deliveries(settings)


# -- prhub jobs / run-job --------------------------------------------------------------------------


def parse_now(value: str | None) -> datetime:
    """``--now`` (ISO 8601 with offset; ``Z`` accepted) or the current time, aware UTC.

    Raises:
        InputError: not an ISO date-time with an offset.
    """
    if value is None:
        return SYSTEM_CLOCK.now()
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"--now {value!r}: not an ISO 8601 date-time such as 2026-03-05T12:00:00+08:00") from None
    if dt.tzinfo is None:
        raise InputError(f"--now {value!r}: add a UTC offset, e.g. 2026-03-05T12:00:00Z")
    return dt.astimezone(timezone.utc)


def jobs_table(loaded: LoadedConfig, now: datetime, *, count: int = 1) -> list[dict[str, Any]]:
    """The configured jobs and their next ``count`` run times after ``now`` (ISO, in the job's zone
    and in UTC), as rows for ``prhub jobs``."""
    from scheduler.service import next_fire_time

    rows = []
    for r in loaded.config.repositories:
        trig = r.schedule.trigger()
        runs: list[datetime] = []
        t = next_fire_time(trig, now)
        while t is not None and len(runs) < count:
            runs.append(t)
            t = trig.get_next_fire_time(t, t + timedelta(seconds=1))
        rows.append({
            "id": r.job_id, "repo": r.repo, "schedule": r.schedule.crontab, "timezone": r.schedule.timezone,
            "next_runs": [x.isoformat() for x in runs],
            "next_runs_utc": [x.astimezone(timezone.utc).isoformat().replace("+00:00", "Z") for x in runs],
            "week_tz": r.week_tz,
            "destinations": [f"{d.platform}:{d.target}" for d in r.destinations],
        })
    return rows


def run_job_once(loaded: LoadedConfig, repo: str, week: IsoWeek | None, *, db: str | None,
                 deliveries: dict[str, ChatDelivery] | None = None) -> Any:
    """``prhub run-job weekly``: run the weekly job of ``repo`` now (for ``week``, default the week
    that ended), without the scheduler. Returns the :class:`scheduler.jobs.JobReport`.

    Raises:
        InputError: the repository is not configured, or a destination's platform has no credentials.
        adapters.storage.StoreError: the store cannot be opened.
    """
    loaded.config.repository(repo)
    if deliveries is None:
        deliveries = platform_deliveries(settings_for(loaded))
    check_deliveries(loaded, deliveries)
    with bootstrap.open_store(db) as store:
        bot = create_bot(loaded, store, deliveries)
        return bot.job.run(repo, week=week)


def report_lines(report: Any) -> Iterable[str]:
    """Human lines for a :class:`JobReport`."""
    yield f"{report.repo} {report.week}: {report.status}"
    from scheduler.approval import AWAITING

    if report.status == AWAITING:
        yield "  waiting for approval: the admins got the preview; Approve posts it (or the approval_deadline does)"
    for out in [*report.digests, *report.slices]:
        parts = ", ".join(f"{p.key.part}:{p.status}{' (already)' if p.already else ''}" for p in out.parts)
        yield f"  {out.kind} {out.destination.platform}:{out.destination.target}: {out.status} [{parts}]"
    for name, uploads in (("chart", report.charts), ("report file", report.files)):
        for c in uploads:
            what = c.reference if c.status == "sent" else c.reason
            yield (f"  {name} {c.destination.platform}:{c.destination.target}: {c.status}"
                   f"{' (already)' if c.already else ''} [{what}]")
    for p in report.problems:
        yield f"  problem: {p}"


# -- prhub serve -----------------------------------------------------------------------------------


def health(bot: Bot) -> tuple[int, dict[str, Any]]:
    """``GET /healthz``: (status code, JSON body). 200 when the store answers (a row of every table is
    read: :meth:`adapters.storage.SqlStore.probe`) and the scheduler runs; 503 otherwise, ``"store":
    "corrupt: <why>"`` when a query or the start-up check found the file damaged."""
    body: dict[str, Any] = {}
    ok = True
    try:
        bot.store.probe()
        body["store"] = "ok"
    except Exception as exc:
        ok = False
        corrupt = getattr(bot.store, "corruption", None)
        body["store"] = f"corrupt: {corrupt}" if corrupt else f"error: {getattr(exc, 'user_message', type(exc).__name__)}"
    running = bot.scheduler.running
    body["scheduler"] = "running" if running else "stopped"
    ok = ok and running
    body["jobs"] = [
        {"id": j.job_id, "repo": j.repo, "schedule": j.schedule, "timezone": j.timezone,
         "next_run": j.next_run.isoformat() if j.next_run else None}
        for j in (bot.scheduler.jobs() if running else [])
    ]
    body["platforms"] = dict(sorted(bot.platforms.items()))
    down = any(not v.startswith(("ok", "off")) for v in bot.platforms.values())  # "retrying: ..." (start-up)
    unsent = unsent_destinations(bot)
    body["deliveries"] = {"status": "partial" if unsent else "ok",
                          "unsent": [{"repo": r, "week": w, "destination": d} for r, w, d in unsent]}
    body["status"] = ("degraded" if unsent or down else "ok") if ok else "unhealthy"
    return (200 if ok else 503), body


def unsent_destinations(bot: Bot) -> list[tuple[str, str, str]]:
    """``(repo, week, platform:target)`` of every destination whose latest run left a part failed or
    unsent (the job was ``partial``); cleared when a later run (or reconciliation) delivers it."""
    return [(repo, rep.week, dest) for repo, rep in sorted(bot.job.last_reports.items()) for dest in rep.unsent]


def create_web_app(bot: Bot, chat_app: Any = None) -> Any:
    """The Flask app of ``prhub serve``: ``/healthz``, ``/metrics``, and everything else to ``chat_app``
    (the Slack and Feishu endpoints of :func:`prhub.web.create_app`)."""
    from flask import Flask, Response

    from prhub.guard import FLASK_CONFIG, RequestGuard

    app = Flask("prhub", static_folder=None)
    app.config.update(FLASK_CONFIG)

    @app.get("/healthz")
    def healthz() -> Response:
        code, body = health(bot)
        return Response(json.dumps(body, ensure_ascii=False) + "\n", status=code, mimetype="application/json")

    @app.get("/metrics")
    def metrics() -> Response:
        extra = []
        if bot.scheduler.running:
            extra.append("# HELP prhub_scheduler_next_run_timestamp_seconds Next run of each digest job (Unix time).")
            extra.append("# TYPE prhub_scheduler_next_run_timestamp_seconds gauge")
            for j in bot.scheduler.jobs():
                if j.next_run is not None:
                    extra.append(f'prhub_scheduler_next_run_timestamp_seconds{{repo="{j.repo}"}} {j.next_run.timestamp():.0f}')
        extra.append("# HELP prhub_destination_unsent Destinations whose latest digest run left a part failed or unsent (job partial).")
        extra.append("# TYPE prhub_destination_unsent gauge")
        for repo, week, dest in unsent_destinations(bot):
            extra.append(f"prhub_destination_unsent{label_set(repo=repo, week=week, destination=dest)} 1")
        return Response(bot.metrics.render(extra), content_type="text/plain; version=0.0.4; charset=utf-8")

    own = RequestGuard(app.wsgi_app)  # nosniff, one-line JSON errors (the chat app has its own guard)

    def route(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if chat_app is None or path in ("/healthz", "/metrics"):
            return own(environ, start_response)
        return chat_app(environ, start_response)

    app.wsgi_app = route  # type: ignore[method-assign]
    return app


def serve(loaded: LoadedConfig, *, db: str | None, host: str | None = None, port: int | None = None,
          ready: Callable[[int], None] | None = None) -> None:
    """``prhub serve``: one process: the WSGI app under waitress, the scheduler in one background thread.

    SIGTERM/SIGINT: the server stops taking requests, sleeps between delivery attempts are cut
    short (their parts stay ``sending`` and are reconciled at the next start), the running job ends,
    then the process exits 0.

    Raises:
        InputError / SettingsError: bad config or environment; StoreError: the store cannot be opened.
    """
    from prhub.serving import create_http_server

    settings = settings_for(loaded)
    deliveries = platform_deliveries(settings)
    check_deliveries(loaded, deliveries)
    srv = loaded.config.server
    # every HTTP thread and both platforms' reply workers may read the store at once, plus the scheduler's
    store = bootstrap.open_store(db, connections=srv.threads + 2 * srv.workers + 2)
    try:
        store.check_integrity()  # a file `prhub digest` would refuse is refused here, not served
    except BaseException:
        store.close()
        raise
    bot = create_bot(loaded, store, deliveries)
    chat_app = None
    try:
        from prhub.web import create_app

        chat_app = create_app(Config(file=loaded, env=settings), store, fallback=_reports_app(store, settings, loaded),
                              handlers=bot.job.approvals.handlers() if bot.job.approvals is not None else None,
                              max_request_bytes=loaded.config.server.max_request_bytes,
                              platform_retry=(loaded.config.server.platform_retry_seconds, 300.0),
                              reply_queue=loaded.config.server.queue, reply_workers=loaded.config.server.workers,
                              server_threads=loaded.config.server.threads)
    except ImportError as exc:  # pragma: no cover - the chat endpoints are optional
        log.warning("chat endpoints not mounted: %s", exc)
    if chat_app is not None:
        bot.platforms = chat_app.platforms
    from prhub.sync import start_live_data

    _, webhook = start_live_data(loaded, settings, store, bot.scheduler.scheduler, SYSTEM_CLOCK)
    # POST /github/webhook beside the chat endpoints
    app = create_web_app(bot, _with_webhook(webhook, chat_app) if webhook is not None else chat_app)
    bind_host, bind_port = host or srv.host, port if port is not None else srv.port
    try:
        server = create_http_server(app, host=bind_host, port=bind_port, threads=srv.threads,
                                    max_request_bytes=srv.max_request_bytes, connection_limit=srv.connection_limit,
                                    request_deadline=srv.request_deadline_seconds)
    except OSError as exc:
        store.close()
        raise InputError(f"cannot listen on {bind_host}:{bind_port} ({exc.strerror or exc}): pass another --port "
                         "(or server.port in the config), or stop the process using it") from None
    stopping = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.warning("signal %d: shutting down", signum)
        if isinstance(bot.sleeper, StopSleeper):  # serve's own sleeper (tests inject plain ones)
            bot.sleeper.stop()
        server.close()
        raise SystemExit(0)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    connections = None
    try:
        if chat_app is not None:  # Socket Mode / Feishu long connection, per settings (after the signal handlers)
            from prhub.connections import open_connections

            connections = open_connections(settings, chat_app)
        bot.scheduler.start()
        actual_port = int(server.effective_port)  # type: ignore[attr-defined]
        log.info("prhub serve: listening on %s:%d; jobs: %s", server.effective_host, actual_port,  # type: ignore[attr-defined]
                 ", ".join(f"{j.repo} next {j.next_run}" for j in bot.scheduler.jobs()))
        if ready is not None:
            ready(actual_port)
        if not stopping.is_set():
            server.run()
    except SystemExit:
        pass
    finally:
        if isinstance(bot.sleeper, StopSleeper):  # serve's own sleeper (tests inject plain ones)
            bot.sleeper.stop()
        if connections is not None:
            connections.stop()
        if chat_app is not None:
            chat_app.close()
        bot.scheduler.shutdown(wait=True)
        store.close()
        for s, h in old.items():
            signal.signal(s, h)
        log.info("prhub serve: stopped")


def _with_webhook(webhook: Any, other: Any) -> Any:
    """A WSGI app sending ``/github/webhook`` to ``webhook`` and everything else to ``other``."""

    def route(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO", "") == "/github/webhook" or other is None:
            return webhook(environ, start_response)
        return other(environ, start_response)

    return route


def _reports_app(store: Any, settings: Any, loaded: LoadedConfig) -> Any:
    """The report pages (``/reports/{owner}/{name}/...``) over the store, each configured repository
    with its own rules and week zone (the first repository's zone for the archive listing)."""
    from prhub.report import create_reports_app

    by_repo = {r.repo.casefold(): r for r in loaded.config.repositories}

    def rules_for(repo: str) -> Rules:
        cfg = by_repo.get(repo.casefold())
        return repo_rules(loaded, cfg) if cfg is not None else bootstrap.rules_for(repo, None)

    tz = loaded.config.repositories[0].week_tz
    return create_reports_app(store, default_lang=settings.prhub_default_lang, tz=tz, rules_for=rules_for)


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
"""The values ``PRHUB_LOG_LEVEL`` accepts (any case)."""


def configure_logging() -> None:
    """Log lines to stderr (``PRHUB_LOG_LEVEL``, default INFO), times in UTC.

    Raises:
        InputError: ``PRHUB_LOG_LEVEL`` is not one of :data:`LOG_LEVELS`.
    """
    level = os.environ.get("PRHUB_LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if level not in LOG_LEVELS:
        raise InputError(f"PRHUB_LOG_LEVEL {os.environ.get('PRHUB_LOG_LEVEL', '')[:40]!r} is invalid: "
                         f"use one of {', '.join(LOG_LEVELS)}")
    logging.basicConfig(level=getattr(logging, level),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.Formatter.converter = time.gmtime
    logging.getLogger("alembic").setLevel(logging.WARNING)  # migrations are routine: no INFO lines per run
