"""Live data: the sync job (PRs merged since the last sync into the store) and the GitHub webhook.

:class:`PrSync.sync` asks first whether anything merged (:class:`adapters.github.probe.MergedCountProbe`:
one conditional REST search over the previous and current ISO week; ``304 Not Modified`` costs 0
requests), compares GitHub's count with the store's, and only when they differ (or the webhook
reported a PR) fetches the PRs merged since the newest stored one (minus a 15-minute overlap for
GitHub's search indexing lag) with the GraphQL source in pages of 50 — so up to 100 new PRs cost
at most 1 + 2 requests plus follow-up pages, and a sync with nothing new costs 0.

``POST /github/webhook`` (:func:`create_webhook_app`, mounted when ``GITHUB_WEBHOOK_SECRET`` is set)
checks ``X-Hub-Signature-256`` (HMAC-SHA256 of the body with the secret; 401 otherwise), takes
``pull_request`` events whose ``action`` is ``closed`` with ``pull_request.merged`` true, and upserts
the PR at once (title, author, labels, sizes; the next sync adds its files and reviews).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from chatbot.models import PullRequest
from chatbot.ports import Clock
from chatbot.weeks import IsoWeek, load_zone

log = logging.getLogger(__name__)

OVERLAP = timedelta(minutes=15)
"""Fetched again before the newest stored merge: GitHub's search index lags a few minutes."""
SYNC_PAGE_SIZE = 50
WEBHOOK_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SyncOutcome:
    """One sync of one repository.

    Attributes:
        repo: ``owner/name``.
        fetched: the GraphQL fetch ran (GitHub's count differed from the store's, or a webhook PR).
        inserted, updated: PRs written to the store.
        requests: HTTP requests this sync sent (304s not counted).
        start: start of the fetched window (None when nothing was fetched).
    """

    repo: str
    fetched: bool
    inserted: int
    updated: int
    requests: int
    start: datetime | None = None


class PrSync:
    """Keeps the store's PRs of each repository current.

    Args:
        store: the SQL store (``merged_times``, ``newest_merged_at``, ``upsert_prs``).
        token, base_url: ``GITHUB_TOKEN`` and ``GITHUB_API_URL``.
        clock: ``now()`` (aware).
        page_size: GraphQL search page size of the fetch.
    """

    def __init__(self, store: Any, *, token: str, base_url: str, clock: Clock, page_size: int = SYNC_PAGE_SIZE) -> None:
        from adapters.github.probe import MergedCountProbe
        from adapters.github.source import GitHubPullRequestSource
        from adapters.github.transport import RequestCounter

        self.store = store
        self.clock = clock
        self.counter = RequestCounter()
        self.probe = MergedCountProbe(token, base_url=base_url, counter=self.counter)
        self.source = GitHubPullRequestSource(token, clock=clock, base_url=base_url, page_size=page_size)
        self._pending: dict[str, datetime] = {}
        self._lock = threading.Lock()

    def note_webhook_pr(self, repo: str, pr: PullRequest) -> None:
        """Upsert a PR the webhook reported, and have the next sync fetch its details."""
        self.store.upsert_prs(repo, [pr])
        with self._lock:
            old = self._pending.get(repo)
            self._pending[repo] = min(old, pr.merged_at) if old else pr.merged_at

    def sync(self, repo: str, tz: str = "UTC") -> SyncOutcome:
        """Fetch what merged into ``repo`` since the last sync (window zone ``tz``).

        Raises:
            RateLimitedError, SourcePermissionError, SourceError: from GitHub (nothing is stored).
            StoreError: the store failed.
        """
        before = self.counter.value + self.source.requests
        now = self.clock.now().astimezone(timezone.utc)
        zone = load_zone(tz)
        probe_start = IsoWeek.containing(now, zone).previous().utc_window(zone)[0]
        probe_end = probe_start + timedelta(days=14)  # fixed all week: an unchanged answer is a 304
        count, _ = self.probe.merged_count(repo, probe_start, probe_end)
        stored = len(self.store.merged_times(repo, probe_start, probe_end))
        with self._lock:
            pending = self._pending.pop(repo, None)
        if count == stored and pending is None:
            return SyncOutcome(repo, False, 0, 0, self.counter.value + self.source.requests - before)
        newest = self.store.newest_merged_at(repo)
        start = probe_start
        if newest is not None and newest - OVERLAP > probe_start and count >= stored:
            start = newest - OVERLAP
        if pending is not None:
            start = max(probe_start, min(start, pending - OVERLAP))
        result = self.source.merged_between(repo, start, now + timedelta(seconds=1))
        inserted, updated = self.store.upsert_prs(repo, result.prs)
        used = self.counter.value + self.source.requests - before
        log.info("sync %s: %d new, %d updated PRs since %s (%d requests)", repo, inserted, updated,
                 start.isoformat(), used)
        return SyncOutcome(repo, True, inserted, updated, used, start)


# -- the webhook ---------------------------------------------------------------------------------------


def signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """``X-Hub-Signature-256`` is ``sha256=`` + the hex HMAC-SHA256 of ``body`` keyed with ``secret``
    (GitHub's webhook signature), compared in constant time."""
    if not header or not header.startswith("sha256="):
        return False
    want = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, header.strip())


def webhook_pr(payload: dict[str, Any]) -> PullRequest:
    """The merged PR of a ``pull_request`` webhook payload (REST shape) as a :class:`PullRequest`.

    Raises:
        ValueError: a field is missing or invalid (pydantic's message).
    """
    pr = payload["pull_request"]
    user = pr.get("user") or {}
    return PullRequest.model_validate({
        "number": pr["number"], "title": pr.get("title") or "", "url": pr.get("html_url") or "",
        "body": pr.get("body") or "", "merged_at": pr["merged_at"],
        "author": {"login": user["login"], "is_bot": user.get("type") == "Bot"} if user.get("login") else None,
        "labels": tuple(lb["name"] for lb in pr.get("labels") or () if isinstance(lb, dict) and lb.get("name")),
        "additions": int(pr.get("additions") or 0), "deletions": int(pr.get("deletions") or 0),
        "changed_files": int(pr.get("changed_files") or 0), "merge_commit": pr.get("merge_commit_sha"),
    })


def create_webhook_app(secret: str, repos: Collection[str], on_merged: Callable[[str, PullRequest], None]) -> Any:
    """A Flask app serving ``POST /github/webhook``.

    Answers: 401 bad or missing signature (nothing read further), 413 body over 1 MiB, 400 not JSON
    or a merged PR that does not validate, 202 events that are not a merged PR or of a repository
    that is not configured (ignored), 200 ``{"stored": N}`` after the upsert; ``ping`` gets 200.
    """
    from flask import Flask, Response, request

    app = Flask("prhub.github")
    known = {r.casefold(): r for r in repos}

    def reply(status: int, body: dict[str, Any]) -> Response:
        return Response(json.dumps(body) + "\n", status=status, mimetype="application/json")

    @app.post("/github/webhook")
    def webhook() -> Response:
        if (request.content_length or 0) > WEBHOOK_MAX_BYTES:
            return reply(413, {"error": "body too large"})
        body = request.get_data(cache=False)
        if len(body) > WEBHOOK_MAX_BYTES:
            return reply(413, {"error": "body too large"})
        if not signature_ok(secret, body, request.headers.get("X-Hub-Signature-256")):
            return reply(401, {"error": "bad signature"})
        event = request.headers.get("X-GitHub-Event", "")
        if event == "ping":
            return reply(200, {"ok": True})
        try:
            payload = json.loads(body)
        except ValueError:
            return reply(400, {"error": "not JSON"})
        if not isinstance(payload, dict):
            return reply(400, {"error": "not a JSON object"})
        pr = payload.get("pull_request") or {}
        if event != "pull_request" or payload.get("action") != "closed" or not isinstance(pr, dict) or not pr.get("merged"):
            return reply(202, {"ignored": "not a merged pull request"})
        repo = known.get(str((payload.get("repository") or {}).get("full_name") or "").casefold())
        if repo is None:
            return reply(202, {"ignored": "repository not configured"})
        try:
            merged = webhook_pr(payload)
        except (KeyError, TypeError, ValueError) as exc:
            return reply(400, {"error": f"invalid pull_request: {str(exc).splitlines()[0][:200]}"})
        on_merged(repo, merged)
        log.info("webhook: %s #%d merged, stored", repo, merged.number)
        return reply(200, {"stored": 1, "number": merged.number})

    return app


def start_live_data(loaded: Any, settings: Any, store: Any, scheduler: Any, clock: Clock) -> tuple[PrSync | None, Any]:
    """Wire the sync jobs into ``scheduler`` (an APScheduler scheduler) and build the webhook app.

    Returns:
        ``(sync, webhook)``: the :class:`PrSync` (None when no ``source: github`` repository syncs or
        ``GITHUB_TOKEN`` is unset — logged) and the webhook WSGI app (None without ``GITHUB_WEBHOOK_SECRET``).
    """
    import os

    from scheduler.sync import add_sync_jobs

    repos = [r for r in loaded.config.repositories if r.source == "github"]
    token = os.environ.get("GITHUB_TOKEN", "").strip()
    sync: PrSync | None = None
    if any(r.sync_every_minutes > 0 for r in repos):
        if token:
            base = os.environ.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
            sync = PrSync(store, token=token, base_url=base, clock=clock)
            add_sync_jobs(scheduler, loaded.config, sync.sync)
        else:
            log.warning("sync: GITHUB_TOKEN is not set: chat answers about the current week will wait for the weekly job")
    webhook = None
    secret = settings.secret("github_webhook_secret")
    if secret:
        def on_merged(repo: str, pr: PullRequest) -> None:
            if sync is not None:
                sync.note_webhook_pr(repo, pr)
            else:
                store.upsert_prs(repo, [pr])

        webhook = create_webhook_app(secret, [r.repo for r in loaded.config.repositories], on_merged)
    return sync, webhook
