"""``GitHubPullRequestSource``: merged PRs of a window from the GitHub API, a handful of requests a week.

Cost for N merged PRs in a window under the search cap: ``ceil(N / page_size)`` search pages
(``POST /graphql``, 50 PRs a page with labels, files, reviews, threads, comments and closing issues),
plus follow-up pages only for PRs whose files (> 100), reviews/threads (> 50), labels (> 20) or
closing issues (> 10) overflow the first page, batched up to ``followup_batch`` PRs per request.
A window over the search cap (1,000 results) costs one extra request per split.

Pages are adaptive: a search page that times out or gets HTTP 502/504 (GitHub stops queries that run
longer than ~10 s) is asked again at once with half as many PRs (down to 1; then the normal bounded
retries apply), and after :data:`GROW_AFTER` successful pages in a row the size doubles back towards
``page_size``. Search cursors are offsets, so a page of another size continues where the last ended.

``added_asserts`` needs patches, which only REST gives (``GET /repos/{owner}/{repo}/pulls/{n}/files``,
one request per 100 files per PR): they are fetched only with ``patches=True``, for PRs that touch
non-test Python files; by default ``added_asserts`` stays empty and ``assert-runtime-check`` is off.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pydantic import ValidationError

from adapters.github import queries
from adapters.github.mapping import is_test_path, to_pull_request
from adapters.github.search import merged_search, split_window
from adapters.github.transport import (DEFAULT_BASE_URL, QueryTooHeavy, RequestCounter, RetryPolicy, counting_github,
                                       graphql)
from chatbot.errors import InputError, SourceError
from chatbot.models import PullRequest
from chatbot.ports import FetchResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FetchProgress:
    """Progress of one fetch: search/follow-up ``pages`` done, merged ``prs`` seen, ``matched`` so far
    (the search's issue count, None before the first page), and the ``phase`` (search, more, patches)."""

    pages: int
    prs: int
    matched: int | None
    phase: str


ProgressCallback = Callable[[FetchProgress], None]


GROW_AFTER = 3
"""Successful search pages in a row after which a shrunken page size doubles again."""


class GitHubPullRequestSource:
    """Merged PRs from GitHub (implements :class:`chatbot.ports.PullRequestSource`), all HTTP through PyGithub.

    Args:
        token: GitHub token (the caller reads ``GITHUB_TOKEN``); None for unauthenticated requests.
        base_url: REST base URL, ``https://api.github.com`` or ``https://HOST/api/v3`` (Enterprise);
            GraphQL goes to ``/graphql`` (``/api/graphql`` on Enterprise).
        page_size: PRs per search page at most, 1-100 (50; each PR is about 280 nodes, far under GitHub's
            node limit; pages shrink by halves when GitHub times a page out, see the module doc).
        search_cap: results GitHub search returns at most per query (1,000); windows whose issue
            count reaches it are split (by day, then by halves).
        followup_batch: PR connections continued per follow-up request.
        patches: also fetch REST file patches to fill ``added_asserts`` (costs requests, see module doc).
        policy: rate-limit and retry policy (wait cap, sleeper, clock); default waits at most 600 s.
        progress: called after every page with a :class:`FetchProgress` (UI stays in ``prhub``).
        timeout: socket timeout per request, seconds.
    """

    def __init__(
        self,
        token: str | None,
        *,
        base_url: str = DEFAULT_BASE_URL,
        page_size: int = 50,
        search_cap: int = 1000,
        followup_batch: int = 10,
        patches: bool = False,
        policy: RetryPolicy | None = None,
        progress: ProgressCallback | None = None,
        timeout: int = 30,
    ) -> None:
        if not 1 <= page_size <= 100:
            raise InputError(f"page_size {page_size}: must be 1-100")
        self.base_url = base_url.rstrip("/")
        self.page_size = page_size
        self._page = page_size  # the current adaptive page size (1..page_size)
        self._streak = 0  # successful search pages in a row at the current size
        self.search_cap = search_cap
        self.followup_batch = max(1, followup_batch)
        self.patches = patches
        self.policy = policy or RetryPolicy()
        self.progress = progress
        self.counter = RequestCounter()
        self._github = counting_github(token, self.base_url, self.counter, timeout=timeout)
        self._requester = self._github.requester

    def __repr__(self) -> str:
        return f"GitHubPullRequestSource(base_url={self.base_url!r}, page_size={self.page_size}, token=<hidden>)"

    @property
    def requests(self) -> int:
        """HTTP requests sent by this source so far (all fetches; 304s excluded)."""
        return self.counter.value

    def _emit(self, pages: int, prs: int, matched: int | None, phase: str) -> None:
        if self.progress is not None:
            self.progress(FetchProgress(pages, prs, matched, phase))

    @property
    def current_page_size(self) -> int:
        """The adaptive search page size now in use (1..``page_size``)."""
        return self._page

    def _search_page(self, q: str, after: str | None) -> dict[str, Any]:
        while True:
            first = self._page
            try:
                data = graphql(self._requester, self.policy, queries.SEARCH_QUERY,
                               {"q": q, "first": first, "after": after}, "POST /graphql (search)", heavy=first > 1)
            except QueryTooHeavy as exc:
                self._page = max(1, first // 2)
                self._streak = 0
                log.warning("GitHub %s with %d PRs a page: asking again with %d", exc, first, self._page)
                continue
            self._streak += 1
            if self._streak >= GROW_AFTER and self._page < self.page_size:
                self._page = min(self.page_size, self._page * 2)
                self._streak = 0
            break
        search = data.get("search")
        if not isinstance(search, dict):
            raise SourceError("GitHub answered the search without a result")
        return search

    def merged_between(self, repo: str, start: datetime, end: datetime) -> FetchResult:
        """PRs of ``repo`` merged in ``[start, end)``, with reviews, threads and files.

        Calls ``POST /graphql`` (search pages, then follow-up pages), and with ``patches=True``
        ``GET /repos/{owner}/{repo}/pulls/{n}/files``. Closed-unmerged PRs and PRs merged outside the
        window (``mergedAt`` checked client-side) are dropped; PRs are deduplicated by number and
        returned in number order.

        Args:
            repo: ``owner/name``.
            start: window start, aware (any zone); inclusive.
            end: window end, aware; exclusive.

        Returns:
            FetchResult: ``prs``; ``requests`` this call sent (304s excluded); ``complete`` False only when a
            one-second part still exceeds the search cap (then ``matched`` > ``len(prs)``); ``matched``
            the sum of the issue counts of the searched parts.

        Raises:
            InputError: bad repository name or window.
            RateLimitedError: rate-limited beyond the wait cap (nothing is returned; ``reset_at`` set).
            SourcePermissionError: the token lacks access (401/403 without rate-limit signs).
            SourceError: other API failures after bounded retries.
        """
        if start.tzinfo is None or end.tzinfo is None or not start < end:
            raise InputError(f"invalid window {start} .. {end}: use aware datetimes with start < end")
        try:
            merged_search(repo, start, end)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        owner, name = repo.split("/", 1)
        before = self.counter.value
        nodes: dict[int, dict[str, Any]] = {}
        matched = 0
        complete = True
        pages = 0
        parts: list[tuple[datetime, datetime]] = [(start, end)]
        while parts:
            s, e = parts.pop(0)
            q = merged_search(repo, s, e)
            page = self._search_page(q, None)
            pages += 1
            count = int(page.get("issueCount") or 0)
            if count >= self.search_cap:
                halves = split_window(s, e)
                if halves is not None:
                    log.info("search %s matched %d >= cap %d: splitting the window", q, count, self.search_cap)
                    parts[:0] = halves
                    continue
                complete = False
                log.warning("search %s matched %d, over the cap %d and not splittable: incomplete", q, count,
                            self.search_cap)
            listed: dict[int, dict[str, Any]] = {}
            while True:
                for node in page.get("nodes") or ():
                    if isinstance(node, dict) and node.get("__typename", "PullRequest") == "PullRequest" and node.get("number"):
                        listed[int(node["number"])] = node
                self._emit(pages, len(nodes) + len(listed), matched + count, "search")
                info = page.get("pageInfo") or {}
                if not info.get("hasNextPage"):
                    break
                page = self._search_page(q, info.get("endCursor"))
                pages += 1
            if len(listed) < count and complete:
                # the server stopped short of its own count: a lower cap than configured
                halves = split_window(s, e)
                if halves is not None:
                    log.warning("search %s listed %d of %d: splitting the window", q, len(listed), count)
                    parts[:0] = halves
                    continue
                complete = False
            matched += count
            nodes.update(listed)
        # keep merged PRs inside the half-open window only
        ustart, uend = start.astimezone(timezone.utc), end.astimezone(timezone.utc)
        kept: dict[int, dict[str, Any]] = {}
        for num, node in nodes.items():
            merged_at = node.get("mergedAt")
            if not merged_at:
                continue
            when = datetime.fromisoformat(str(merged_at).replace("Z", "+00:00"))
            if ustart <= when < uend:
                kept[num] = node
        pages = self._follow_up(owner, name, kept, pages)
        patch_files = self._patches(repo, kept, pages) if self.patches else {}
        prs: list[PullRequest] = []
        for num in sorted(kept):
            try:
                prs.append(to_pull_request(kept[num], patch_files=patch_files.get(num)))
            except (ValidationError, ValueError) as exc:
                raise SourceError(f"GitHub returned an unexpected PR #{num} payload: {str(exc).splitlines()[0]}") from None
        used = self.counter.value - before
        log.info("fetched %d merged PRs of %s in %d requests (matched %d%s)", len(prs), repo, used, matched,
                 "" if complete else ", incomplete")
        return FetchResult(prs=prs, requests=used, complete=complete, matched=matched if not complete else len(prs))

    def _follow_up(self, owner: str, name: str, nodes: dict[int, dict[str, Any]], pages: int) -> int:
        """Fetch the remaining pages of every overflowing connection, appending to the nodes in place."""
        def pending() -> list[queries.FollowUp]:
            out = []
            for num in sorted(nodes):
                for c in queries.CONNECTIONS:
                    conn = nodes[num].get(c.field)
                    info = conn.get("pageInfo") if isinstance(conn, dict) else None
                    if info and info.get("hasNextPage") and info.get("endCursor"):
                        out.append(queries.FollowUp(num, c.field, info["endCursor"]))
            return out

        todo = pending()
        while todo:
            batch, todo = todo[: self.followup_batch], todo[self.followup_batch:]
            text, variables = queries.followup_query(batch)
            data = graphql(self._requester, self.policy, text, {**variables, "owner": owner, "name": name},
                           "POST /graphql (more pages)")
            pages += 1
            repo_data = data.get("repository") or {}
            for i, item in enumerate(batch):
                more = (repo_data.get(f"f{i}") or {}).get(item.field) or {}
                conn = nodes[item.number][item.field]
                conn["nodes"] = list(conn.get("nodes") or []) + list(more.get("nodes") or [])
                conn["pageInfo"] = more.get("pageInfo") or {"hasNextPage": False}
            self._emit(pages, len(nodes), None, "more")
            if not todo:
                todo = pending()
        return pages

    def _patches(self, repo: str, nodes: dict[int, dict[str, Any]], pages: int) -> dict[int, list[dict[str, Any]]]:
        """REST file entries with patches for PRs touching non-test Python files (``patches=True`` only)."""
        out: dict[int, list[dict[str, Any]]] = {}
        for num in sorted(nodes):
            files = (nodes[num].get("files") or {}).get("nodes") or []
            if not any(str(f.get("path", "")).endswith(".py") and not is_test_path(str(f.get("path", ""))) for f in files if f):
                continue
            entries: list[dict[str, Any]] = []
            total = max(int(nodes[num].get("changedFiles") or 0), len(files))
            for page in range(1, min(math.ceil(total / 100), 30) + 1):
                url = f"/repos/{repo}/pulls/{num}/files"
                _, data = self.policy.call(
                    lambda url=url, page=page: self._requester.requestJsonAndCheck(
                        "GET", url, parameters={"per_page": 100, "page": page}),
                    f"GET {url}")
                pages += 1
                if not data:
                    break
                entries.extend(d for d in data if isinstance(d, dict))
                if len(data) < 100:
                    break
            out[num] = entries
            self._emit(pages, len(nodes), None, "patches")
        return out
