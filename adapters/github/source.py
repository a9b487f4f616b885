"""``GitHubPullRequestSource``: merged PRs of a window from the GitHub API, a handful of requests a week.

Cost for N merged PRs in a window under the search cap: ``ceil(N / page_size)`` search pages
(``POST /graphql``, 50 PRs a page with labels, files, reviews, threads, comments and closing issues),
plus follow-up pages only for PRs whose files (> 100), reviews/threads (> 50), labels (> 20) or
closing issues (> 10) overflow the first page, batched up to ``followup_batch`` PRs per request.
A window over the search cap (1,000 results) costs one extra request per split. Many windows (a
backfill's weeks, :meth:`GitHubPullRequestSource.merged_windows`) are searched as one stream: a request
carries the tail of one window's search and the head of the next (aliased searches, at most one page
of PRs in all), so 52 weeks of 8,251 PRs take ``ceil(8251 / 50)`` = 166 search requests, not 194.

Points: every query asks ``rateLimit { cost remaining resetAt }``. Review threads come 10 a PR in
the bulk page (GitHub scores each thread's nested comments connection, so 50 made a page of 50 PRs
cost 29 points; 10 make it 9), and only PRs with more get a follow-up page of them. Pages and
follow-up batches are sized so that their score (computed beforehand as GitHub does) fits in the
points budget left this hour; when not even one PR fits, the source waits for ``resetAt``.

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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from pydantic import ValidationError

from adapters.github import queries
from adapters.github.mapping import is_test_path, to_pull_request
from adapters.github.points import DEFAULT_POINTS_BUDGET, PointsBudget, score
from adapters.github.search import merged_search, split_window
from adapters.github.transport import (DEFAULT_BASE_URL, QueryTooHeavy, RequestCounter, RetryPolicy, counting_github,
                                       graphql)
from chatbot.errors import InputError, SourceError
from chatbot.models import PullRequest
from chatbot.ports import Clock, FetchResult

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


@dataclass
class _Window:
    """One asked window: its bounds, the PRs listed so far by number, the issue counts, completeness."""

    start: datetime
    end: datetime
    nodes: dict[int, dict[str, Any]] = field(default_factory=dict)
    matched: int = 0
    complete: bool = True


@dataclass
class _Part:
    """One search of (part of) a window: query, cursor, issue count once known, PRs listed, done."""

    window: int
    q: str
    start: datetime
    end: datetime
    cap: int
    after: str | None = None
    count: int | None = None
    listed: dict[int, dict[str, Any]] = field(default_factory=dict)
    done: bool = False

    def left(self) -> int | None:
        """Results still to list (None before the first page)."""
        if self.count is None:
            return None
        return max(min(self.count, self.cap) - len(self.listed), 0)

    def take(self, page: dict[str, Any]) -> None:
        """Add one answered page: its PR nodes, the count, the cursor; done when no next page (or over
        the cap: the window is split without paging further)."""
        first = self.count is None
        self.count = int(page.get("issueCount") or 0)
        for node in page.get("nodes") or ():
            if isinstance(node, dict) and node.get("__typename", "PullRequest") == "PullRequest" and node.get("number"):
                self.listed[int(node["number"])] = node
        info = page.get("pageInfo") or {}
        self.after = info.get("endCursor")
        self.done = not info.get("hasNextPage") or (first and self.count >= self.cap)


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
        clock: the clock rate-limit resets are measured on (aware UTC), for the default ``policy``.
        policy: rate-limit and retry policy (wait cap, sleeper, clock); default waits at most 600 s.
        progress: called after every page with a :class:`FetchProgress` (UI stays in ``prhub``).
        timeout: socket timeout per request, seconds.
        points_budget: GraphQL points this source may spend per rate-limit window (an hour),
            1..10,000 (default 1,000). Each query is sized to what is left (its score computed
            beforehand as GitHub does); when not even the smallest fits, the source waits for
            ``resetAt`` through the policy's clock and sleeper (:class:`adapters.github.points.PointsBudget`).
        wait_for_budget: wait for ``resetAt`` however far it is (``prhub fetch``'s backfill); False
            (the bot's jobs): at most the policy's ``max_wait``, then :class:`RateLimitedError`.

    Raises:
        InputError: ``page_size`` or ``points_budget`` out of range.
    """

    def __init__(
        self,
        token: str | None,
        *,
        clock: Clock,
        base_url: str = DEFAULT_BASE_URL,
        page_size: int = 50,
        search_cap: int = 1000,
        followup_batch: int = 10,
        patches: bool = False,
        policy: RetryPolicy | None = None,
        progress: ProgressCallback | None = None,
        timeout: int = 30,
        points_budget: int = DEFAULT_POINTS_BUDGET,
        wait_for_budget: bool = False,
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
        self.policy = policy or RetryPolicy(clock=clock)
        self.budget = PointsBudget(points_budget, clock=self.policy.clock, sleeper=self.policy.sleeper,
                                   max_wait=None if wait_for_budget else self.policy.max_wait)
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

    @property
    def points(self) -> int:
        """GraphQL points GitHub charged this source so far (the ``cost`` of every answer)."""
        return self.budget.total

    def _affordable(self, want: int, requests: Callable[[int], int]) -> int:
        """The largest size <= ``want`` whose score (``requests(size)`` connection requests) fits in
        the points budget; waits for the reset (then ``want``) when not even size 1 fits."""
        while True:
            left = self.budget.left()
            fit = next((n for n in range(want, 0, -1) if score(requests(n)) <= left), 0)
            if fit:
                if fit < want:
                    log.info("GitHub points: %d left in this hour's budget: asking for %d instead of %d", left, fit, want)
                return fit
            self.budget.wait_for_reset(score(requests(1)))

    def _emit(self, pages: int, prs: int, matched: int | None, phase: str) -> None:
        if self.progress is not None:
            self.progress(FetchProgress(pages, prs, matched, phase))

    @property
    def current_page_size(self) -> int:
        """The adaptive search page size now in use (1..``page_size``)."""
        return self._page

    def _search_pages(self, parts: list[_Part]) -> None:
        """One request carrying the next page of the first ``parts`` that fit in the current page size.

        Parts whose issue count is known ask for exactly what is left (GitHub scores a query by the
        ``first`` it asks, not by what comes back, so a week's last 17 PRs cost 3 points, not a full
        page's 9); a part whose count is not known yet asks for what remains of the page. The request
        carries at most the current page size of PRs in all, within the points budget, so GitHub's
        ~10 s budget sees no heavier query than one page. Updates each asked part in place (nodes,
        cursor, count, done)."""
        while True:
            room = self._affordable(self._page, lambda n: queries.search_requests(n, len(parts)))
            asked: list[tuple[_Part, int]] = []
            for i, part in enumerate(parts):
                if room <= 0:
                    break
                left = part.left()
                n = left if left is not None and 0 < left < room else room  # GitHub charges for `first`, not for what comes
                asked.append((part, n))
                room -= n
            variables: dict[str, Any] = {}
            if len(asked) == 1:
                variables = {"q": asked[0][0].q, "first": asked[0][1], "after": asked[0][0].after}
            else:
                for i, (part, n) in enumerate(asked):
                    variables.update({f"q{i}": part.q, f"first{i}": n, f"after{i}": part.after})
            try:
                data = graphql(self._requester, self.policy, queries.search_query(len(asked)), variables,
                               "POST /graphql (search)", heavy=self._page > 1)
            except QueryTooHeavy as exc:
                first = self._page
                self._page = max(1, first // 2)
                self._streak = 0
                log.warning("GitHub %s with %d PRs a page: asking again with %d", exc, first, self._page)
                continue
            self.budget.record(data.get("rateLimit"))
            self._streak += 1
            if self._streak >= GROW_AFTER and self._page < self.page_size:
                self._page = min(self.page_size, self._page * 2)
                self._streak = 0
            break
        for i, (part, _) in enumerate(asked):
            search = data.get("search" if len(asked) == 1 else f"s{i}")
            if not isinstance(search, dict):
                raise SourceError("GitHub answered the search without a result")
            part.take(search)

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
        return next(iter(self.merged_windows(repo, [(start, end)])))

    def merged_windows(self, repo: str, windows: Sequence[tuple[datetime, datetime]]) -> Iterator[FetchResult]:
        """:meth:`merged_between` for many windows (a backfill's weeks), one result per window, in order.

        The searches run as one stream: the last, partly filled page of one window's search and the first
        page of the next window's share a request (at most one page of PRs in all), so ``N`` weeks of
        ``P`` PRs cost about ``ceil(P / page_size)`` search requests instead of ``N`` partial pages, and an
        empty week rides along with its neighbour. The adaptive page size carries over between windows.
        Each result's ``requests`` counts the requests sent since the previous result (a shared request
        belongs to the window whose result it completes first).

        Raises:
            InputError / RateLimitedError / SourcePermissionError / SourceError: as :meth:`merged_between`
            (raised when reached; results already yielded stay valid).
        """
        for start, end in windows:
            if start.tzinfo is None or end.tzinfo is None or not start < end:
                raise InputError(f"invalid window {start} .. {end}: use aware datetimes with start < end")
            try:
                merged_search(repo, start, end)
            except ValueError as exc:
                raise InputError(str(exc)) from None
        owner, name = repo.split("/", 1)
        before = self.counter.value
        points_before = self.budget.total
        states = [_Window(start, end) for start, end in windows]
        current = 0  # the first window not yet returned
        active: list[_Part] = []  # parts being searched, in window order (this window's, then the next one's)
        opened = 0  # windows whose first part is in ``active``
        pages = 0
        while current < len(states):
            while opened < len(states) and opened <= current + 1:
                w = states[opened]
                active.append(_Part(opened, merged_search(repo, w.start, w.end), w.start, w.end, self.search_cap))
                opened += 1
            if any(p.window == current for p in active):
                self._search_pages(active)
                pages += 1
                for part in [p for p in active if p.done]:
                    active.remove(part)
                    self._finish(repo, part, states[part.window], active)
                self._emit(pages, sum(len(w.nodes) for w in states[current:]) + sum(len(p.listed) for p in active),
                           sum(w.matched for w in states[current:]) + sum(p.count or 0 for p in active), "search")
                continue
            result, pages = self._window_result(owner, name, states[current], pages)
            used = self.counter.value - before
            before = self.counter.value
            points = self.budget.total - points_before
            points_before = self.budget.total
            log.info("fetched %d merged PRs of %s in %d requests, %d GraphQL points (matched %d%s)", len(result.prs),
                     repo, used, points, states[current].matched, "" if result.complete else ", incomplete")
            yield FetchResult(prs=result.prs, requests=used, complete=result.complete, matched=result.matched,
                              points=points)
            states[current].nodes = {}
            current += 1

    def _finish(self, repo: str, part: _Part, window: _Window, active: list[_Part]) -> None:
        """A part's search is done: split it (over the cap, or listed short of its count) or keep its PRs."""
        count = part.count or 0
        short = len(part.listed) < count
        if (count >= self.search_cap or (short and window.complete)):
            halves = split_window(part.start, part.end)
            if halves is not None:
                log.info("search %s matched %d (listed %d, cap %d): splitting the window", part.q, count,
                         len(part.listed), self.search_cap)
                at = next((i for i, p in enumerate(active) if p.window > part.window), len(active))
                active[at:at] = [_Part(part.window, merged_search(repo, s, e), s, e, self.search_cap) for s, e in halves]
                return
            window.complete = False
            log.warning("search %s matched %d, over the cap %d and not splittable: incomplete", part.q, count,
                        self.search_cap)
        window.matched += count
        window.nodes.update(part.listed)

    def _window_result(self, owner: str, name: str, window: _Window, pages: int) -> tuple[FetchResult, int]:
        """Keep the window's merged PRs (half-open, client-side), follow up their long connections, map them."""
        ustart, uend = window.start.astimezone(timezone.utc), window.end.astimezone(timezone.utc)
        kept: dict[int, dict[str, Any]] = {}
        for num, node in window.nodes.items():
            merged_at = node.get("mergedAt")
            if not merged_at:
                continue
            when = datetime.fromisoformat(str(merged_at).replace("Z", "+00:00"))
            if ustart <= when < uend:
                kept[num] = node
        pages = self._follow_up(owner, name, kept, pages)
        patch_files = self._patches(f"{owner}/{name}", kept, pages) if self.patches else {}
        prs: list[PullRequest] = []
        for num in sorted(kept):
            try:
                prs.append(to_pull_request(kept[num], patch_files=patch_files.get(num)))
            except (ValidationError, ValueError) as exc:
                raise SourceError(f"GitHub returned an unexpected PR #{num} payload: {str(exc).splitlines()[0]}") from None
        matched = window.matched if not window.complete else len(prs)
        return FetchResult(prs=prs, complete=window.complete, matched=matched), pages

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
            size = self._affordable(min(self.followup_batch, len(todo)),
                                    lambda n: queries.followup_requests(todo[:n]))
            batch, todo = todo[:size], todo[size:]
            text, variables = queries.followup_query(batch)
            data = graphql(self._requester, self.policy, text, {**variables, "owner": owner, "name": name},
                           "POST /graphql (more pages)")
            self.budget.record(data.get("rateLimit"))
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
