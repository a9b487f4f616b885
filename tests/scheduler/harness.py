"""Build a DigestScheduler on a real store with recording deliveries (for tests with a real
BackgroundScheduler and time moved by time-machine)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED

from adapters.export.ghjson import load_exports
from chatbot.digest import build_digest
from chatbot.rules import default_rules_for
from prhub.config import parse_config
from scheduler.config import BotConfig
from scheduler.delivery import Deliverer
from scheduler.jobs import DigestJob
from scheduler.metrics import Metrics
from scheduler.service import DigestScheduler
from tests.conftest import FIXTURES
from tests.scheduler.doubles import ClockSleeper, RecordingDelivery, SystemClock

BR10 = """
repositories:
  - repo: example-org/example-repo
    source: github
    schedule: {cron: "0 9 * * 1", timezone: Asia/Shanghai}
    destinations: [{slack: C_DIGEST}]
admins: {slack: [T_TEST:U_ADMIN]}
"""


def example_prs():
    return load_exports([str(FIXTURES / "example-repo-week.json")]).prs


@dataclass
class Harness:
    sched: DigestScheduler
    slack: RecordingDelivery
    metrics: Metrics
    runs: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    done: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))

    def wait_runs(self, n: int = 1, timeout: float = 8.0) -> None:
        for _ in range(n):
            assert self.done.acquire(timeout=timeout), f"job did not run within {timeout} s"


def harness(store, *, config: str | BotConfig = BR10, build=None, slack: RecordingDelivery | None = None,
            prs=None) -> Harness:
    cfg = config if isinstance(config, BotConfig) else parse_config(config, "test.yaml")
    clock = SystemClock()
    slack = slack or RecordingDelivery()
    metrics = Metrics()
    rows = [] if prs is None else prs

    def default_build(repo_cfg, week, langs):
        return build_digest(rows, repo=repo_cfg.repo, week=week, rules=default_rules_for(repo_cfg.repo),
                            tz=repo_cfg.week_tz)

    deliverer = Deliverer(store, {"slack": slack}, clock=clock, sleep=ClockSleeper(None), settings=cfg.delivery,
                          metrics=metrics)
    job = DigestJob(cfg, build=build or default_build, deliverer=deliverer, clock=clock, subscribers=store,
                    metrics=metrics)
    sched = DigestScheduler(cfg, job, clock=clock, delivery_log=store)
    h = Harness(sched, slack, metrics)

    def listener(event):
        if event.job_id == "reconcile":  # the periodic reconciliation is not a digest run
            return
        if event.code == EVENT_JOB_ERROR:
            h.errors.append(event.exception)
        h.runs.append(event.job_id)
        h.done.release()

    sched.scheduler.add_listener(listener, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    return h


def posted_before(store, repo: str, week: str = "2020-W01") -> None:
    """Record one sent digest part of ``repo`` for an old ``week``: the store of a bot that ran before
    (a store with no row of the repository is a new install, which is never caught up)."""
    from datetime import datetime, timezone

    from chatbot.deliveries import DeliveryKey

    key = DeliveryKey(repo=repo, week=week, platform="slack", destination="C_OLD", kind="digest", part=1)
    then = datetime(2020, 1, 6, tzinfo=timezone.utc)
    store.claim_delivery(key, then, "test")
    store.mark_delivery_sent(key, "1.000001", None, then)
