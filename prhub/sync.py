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
the PR at once (title, author, labels, sizes; merged into a stored record of the same number, whose
files and reviews stay; the next sync adds them for a new PR). The payload is validated with pydantic
(:class:`WebhookPayload`): a wrong shape is a one-line 400.
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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chatbot.errors import InputError
from chatbot.json_input import read_json
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

    def note_webhook_pr(self, repo: str, hook: WebhookPullRequest) -> int:
        """Store a PR the webhook reported (:func:`store_webhook_pr`) and have the next sync fetch its
        details; returns its number.

        Raises:
            InputError: the delivery does not validate as a PR.
            StoreError: the store failed.
        """
        pr = store_webhook_pr(self.store, repo, hook)
        with self._lock:
            old = self._pending.get(repo)
            self._pending[repo] = min(old, pr.merged_at) if old else pr.merged_at
        return pr.number

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


def store_webhook_pr(store: Any, repo: str, hook: WebhookPullRequest) -> PullRequest:
    """Upsert the webhook's PR merged into the stored record of the same number
    (:func:`merge_webhook_pr`; ``store.pr_by_number``) and return what was stored.

    Raises:
        InputError: the delivery does not validate as a PR.
        StoreError: the store failed.
    """
    pr = merge_webhook_pr(store.pr_by_number(repo, hook.number), hook)
    store.upsert_prs(repo, [pr])
    return pr


def signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """``X-Hub-Signature-256`` is ``sha256=`` + the hex HMAC-SHA256 of ``body`` keyed with ``secret``
    (GitHub's webhook signature), compared in constant time."""
    if not header or not header.startswith("sha256="):
        return False
    want = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, header.strip())


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class WebhookUser(_Payload):
    """``pull_request.user`` of GitHub's webhook payload."""

    login: str = Field(min_length=1)
    type: str | None = None


class WebhookLabel(_Payload):
    """One of ``pull_request.labels``."""

    name: str


class WebhookPullRequest(_Payload):
    """``pull_request`` of GitHub's ``pull_request`` webhook event (REST shape; only what prhub reads).

    A field GitHub left out is None (never 0): :func:`merge_webhook_pr` keeps the stored value then.
    Webhooks never carry the changed files, reviews or review threads.
    """

    number: int = Field(gt=0, le=2_147_483_647)
    merged: bool = False
    merged_at: datetime | None = None
    title: str | None = None
    html_url: str | None = None
    body: str | None = None
    user: WebhookUser | None = None
    labels: list[WebhookLabel] | None = None
    additions: int | None = Field(default=None, ge=0)
    deletions: int | None = Field(default=None, ge=0)
    changed_files: int | None = Field(default=None, ge=0)
    merge_commit_sha: str | None = None


class WebhookRepository(_Payload):
    """``repository`` of the payload."""

    full_name: str


class WebhookPayload(_Payload):
    """A ``pull_request`` webhook delivery (GitHub's documented payload; other keys ignored)."""

    action: str
    repository: WebhookRepository
    pull_request: WebhookPullRequest


def parse_webhook(payload: Any) -> WebhookPayload:
    """Validate a decoded ``pull_request`` delivery.

    Raises:
        InputError: one line naming the first bad field (``pull_request.number: Field required``) and
            the expected shape; also a merged PR without ``merged_at``.
    """
    try:
        parsed = WebhookPayload.model_validate(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "payload"
        raise InputError(f"invalid pull_request webhook: {where}: {err['msg']} "
                         "(expected GitHub's pull_request event payload)") from None
    if parsed.pull_request.merged and parsed.pull_request.merged_at is None:
        raise InputError("invalid pull_request webhook: pull_request.merged_at: required when merged is true")
    return parsed


def webhook_pr(pr: WebhookPullRequest) -> PullRequest:
    """The merged PR of a validated delivery as a :class:`PullRequest` (absent fields empty or 0).

    Raises:
        InputError: a field does not validate as a PR (e.g. a naive ``merged_at``).
    """
    user = pr.user
    try:
        return PullRequest.model_validate({
            "number": pr.number, "title": pr.title or "", "url": pr.html_url or "", "body": pr.body or "",
            "merged_at": pr.merged_at,
            "author": {"login": user.login, "is_bot": user.type == "Bot"} if user is not None else None,
            "labels": tuple(lb.name for lb in pr.labels or () if lb.name),
            "additions": pr.additions or 0, "deletions": pr.deletions or 0, "changed_files": pr.changed_files or 0,
            "merge_commit": pr.merge_commit_sha,
        })
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "pull_request"
        raise InputError(f"invalid pull_request webhook: pull_request.{where}: {err['msg']}") from None


def merge_webhook_pr(stored: PullRequest | None, hook: WebhookPullRequest) -> PullRequest:
    """The record to store for a webhook delivery of a PR already in the store: the stored PR with what
    the webhook carries put over it — title, url, merged_at, merge commit, author (when given), labels
    (when non-empty), sizes (when given), body (when non-empty). The stored files, reviews, review
    threads, comments, closing issues and the rest stay: a webhook never carries them, and a thinner
    record must not erase what the sync or an import stored (a "Redeliver" of an old event included).
    A later complete record (the sync's fetch, an import) still replaces the row as a whole.

    Raises:
        InputError: see :func:`webhook_pr`.
    """
    fresh = webhook_pr(hook)
    if stored is None:
        return fresh
    update: dict[str, Any] = {"title": fresh.title or stored.title, "url": fresh.url or stored.url,
                              "merged_at": fresh.merged_at, "merge_commit": fresh.merge_commit or stored.merge_commit}
    if fresh.author is not None:
        update["author"] = fresh.author if stored.author is None or stored.author.login != fresh.author.login \
            else stored.author
    if fresh.labels:
        update["labels"] = fresh.labels
    if fresh.body:
        update["body"] = fresh.body
    for name in ("additions", "deletions", "changed_files"):
        if getattr(hook, name) is not None:
            update[name] = getattr(fresh, name)
    return stored.model_copy(update=update)


def create_webhook_app(secret: str, repos: Collection[str], on_merged: Callable[[str, WebhookPullRequest], int]) -> Any:
    """The WSGI app serving ``POST /github/webhook``, behind :class:`prhub.guard.RequestGuard` (every
    refused request logs one rate-limited line; an exception is a plain 500, never a traceback).

    Answers: 401 bad or missing signature (nothing read further), 413 body over 1 MiB, 400 not JSON
    or a ``pull_request`` delivery that does not validate (:func:`parse_webhook`; one line), 202 events
    that are not a merged PR or of a repository that is not configured (ignored), 200
    ``{"stored": 1, "number": N}`` after ``on_merged(repo, pr)`` (which returns the PR number
    stored); ``ping`` gets 200.
    """
    from flask import Flask, Response, request

    from prhub.guard import FLASK_CONFIG, RequestGuard

    app = Flask("prhub.github")
    app.config.update(FLASK_CONFIG)
    known = {r.casefold(): r for r in repos}

    def reply(status: int, body: dict[str, Any]) -> Response:
        line = str(body.get("error") or "").replace("\n", " ")[:200]
        return Response(json.dumps(body) + "\n", status=f"{status} {line}" if line else status,
                        mimetype="application/json")

    @app.post("/github/webhook")
    def webhook() -> Response:
        body = request.get_data(cache=False)
        if len(body) > WEBHOOK_MAX_BYTES:
            return reply(413, {"error": "body too large"})
        if not signature_ok(secret, body, request.headers.get("X-Hub-Signature-256")):
            return reply(401, {"error": "bad signature: X-Hub-Signature-256 must be the HMAC-SHA256 of the body "
                                        "with GITHUB_WEBHOOK_SECRET"})
        event = request.headers.get("X-GitHub-Event", "")
        if event == "ping":
            return reply(200, {"ok": True})
        try:
            payload = read_json(body, source="webhook body", max_bytes=WEBHOOK_MAX_BYTES)
        except InputError as exc:
            return reply(400, {"error": exc.user_message})
        if not isinstance(payload, dict):
            return reply(400, {"error": "not a JSON object"})
        if event != "pull_request" or payload.get("action") != "closed":
            return reply(202, {"ignored": "not a merged pull request"})
        try:
            parsed = parse_webhook(payload)
        except InputError as exc:
            return reply(400, {"error": str(exc)})
        if not parsed.pull_request.merged:
            return reply(202, {"ignored": "not a merged pull request"})
        repo = known.get(parsed.repository.full_name.casefold())
        if repo is None:
            return reply(202, {"ignored": "repository not configured"})
        try:
            number = on_merged(repo, parsed.pull_request)
        except InputError as exc:
            return reply(400, {"error": str(exc)})
        log.info("webhook: %s #%d merged, stored", repo, number)
        return reply(200, {"stored": 1, "number": number})

    return RequestGuard(app, max_bytes=WEBHOOK_MAX_BYTES)


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
        def on_merged(repo: str, hook: WebhookPullRequest) -> int:
            if sync is not None:
                return sync.note_webhook_pr(repo, hook)
            return store_webhook_pr(store, repo, hook).number

        webhook = create_webhook_app(secret, [r.repo for r in loaded.config.repositories], on_merged)
    return sync, webhook
