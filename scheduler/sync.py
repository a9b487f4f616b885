"""When the sync job runs: one interval job per ``source: github`` repository, every
``sync_every_minutes`` (default 60; 0 turns it off). What a sync does is injected
(:class:`prhub.sync.PrSync`): the scheduler only decides when, and keeps a failed sync from
stopping the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timezone
from typing import Any

from apscheduler.triggers.interval import IntervalTrigger

from chatbot.errors import PrhubError
from scheduler.config import BotConfig

log = logging.getLogger(__name__)

SyncFn = Callable[[str, str], Any]
"""``sync(repo, week_tz)``: fetch what merged since the last sync."""


def sync_job_id(repo: str) -> str:
    """The APScheduler job id ``sync:<owner>/<name>``."""
    return f"sync:{repo}"


def run_sync(sync: SyncFn, repo: str, tz: str) -> Any:
    """Run one sync; a GitHub or store error is logged in one line (the next interval tries again).

    Returns:
        What ``sync`` returned, or None when it failed.
    """
    try:
        return sync(repo, tz)
    except PrhubError as exc:
        log.warning("sync %s: %s", repo, exc.user_message)
    except Exception:  # noqa: BLE001 - the scheduler thread must survive any failure
        log.exception("sync %s failed", repo)
    return None


def add_sync_jobs(scheduler: Any, config: BotConfig, sync: SyncFn) -> list[str]:
    """Add the interval jobs to an APScheduler ``scheduler`` (started or not); their ids.

    Each job also runs once at start (``next_run_time`` = now), so a restarted bot is current at once.
    """
    from datetime import datetime

    ids = []
    for r in config.repositories:
        if r.source != "github" or r.sync_every_minutes <= 0:
            continue
        scheduler.add_job(run_sync, trigger=IntervalTrigger(minutes=r.sync_every_minutes, timezone=timezone.utc),
                          args=[sync, r.repo, r.week_tz], id=sync_job_id(r.repo), name=f"sync of {r.repo}",
                          replace_existing=True, coalesce=True, max_instances=1,
                          misfire_grace_time=r.sync_every_minutes * 60, next_run_time=datetime.now(timezone.utc))
        ids.append(sync_job_id(r.repo))
    return ids
