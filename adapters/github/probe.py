"""A cheap "did anything merge?" question for the sync job: one REST issue search, conditional.

``GET /search/issues?q=repo:O/N is:pr is:merged merged:A..B&per_page=1`` answers ``total_count``
(the merged PRs in the window). The request carries ``If-None-Match`` with the ETag of the previous
answer to the same query: GitHub answers ``304 Not Modified`` when nothing changed, which is not
counted against the rate limit, and not counted by :class:`adapters.github.transport.RequestCounter`
— so a sync with nothing new costs 0 requests.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime

from adapters.github.search import merged_search
from adapters.github.transport import DEFAULT_BASE_URL, RequestCounter, counting_github
from chatbot.errors import SourceError, SourcePermissionError

log = logging.getLogger(__name__)


class MergedCountProbe:
    """Counts merged PRs in a window with conditional REST searches.

    Args:
        token: ``GITHUB_TOKEN``.
        base_url: REST base URL (``https://api.github.com`` or ``https://HOST/api/v3``).
        counter: where requests are counted (304s are not).
    """

    def __init__(self, token: str | None, *, base_url: str = DEFAULT_BASE_URL, counter: RequestCounter | None = None,
                 timeout: int = 30) -> None:
        self.counter = counter or RequestCounter()
        self._requester = counting_github(token, base_url, self.counter, timeout=timeout).requester
        self._etags: dict[str, tuple[str, int]] = {}
        self._lock = threading.Lock()

    def merged_count(self, repo: str, start: datetime, end: datetime) -> tuple[int, bool]:
        """``(count, changed)``: merged PRs of ``repo`` in ``[start, end)``, and False when GitHub said
        304 (the same answer as last time for this window).

        Raises:
            SourcePermissionError: 401/403 (a bad token or no access).
            SourceError: another failure (5xx, unexpected answer).
        """
        q = merged_search(repo, start, end)
        with self._lock:
            cached = self._etags.get(q)
        headers = {"If-None-Match": cached[0]} if cached else {}
        status, resp_headers, body = self._requester.requestJson("GET", "/search/issues",
                                                                  parameters={"q": q, "per_page": 1}, headers=headers)
        if status == 304 and cached:
            return cached[1], False
        if status in (401, 403):
            raise SourcePermissionError(f"GitHub refused the search for {repo} (HTTP {status}): check GITHUB_TOKEN")
        if status != 200:
            raise SourceError(f"GitHub search for {repo} answered HTTP {status}")
        try:
            count = int(json.loads(body)["total_count"])
        except (ValueError, KeyError, TypeError):
            raise SourceError(f"GitHub search for {repo}: unexpected answer") from None
        etag = {k.lower(): v for k, v in (resp_headers or {}).items()}.get("etag")
        if etag:
            with self._lock:
                self._etags[q] = (etag, count)
        return count, True
