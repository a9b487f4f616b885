"""A fake GitHub on 127.0.0.1 for tests and the benchmark: REST endpoints prhub uses and ``POST /graphql``.

``/graphql`` executes the real query text with graphql-core against GitHub's published schema
(``../shared/data/github-schema.graphql``), so a query GitHub would reject fails here too; resolvers
exist only for the fields prhub reads. Behaviour modelled on GitHub:

* search (GraphQL ``search`` and REST ``GET /search/issues``): ``repo:O/N is:pr is:merged
  merged:A..B`` where A and B must be explicit UTC instants (``2026-05-11T00:00:00Z``; a date-only
  range is rejected, stricter than GitHub, so the source cannot regress to dates); ``issueCount`` /
  ``total_count`` is the true count but results stop at ``search_cap`` (1,000; REST page beyond: 422);
* connections need ``first`` or ``last`` (1-100) and paginate by cursor; PR file lists stop at 3,000;
* REST: ``GET /repos/{o}/{r}``, ``/pulls/{n}``, ``/pulls/{n}/files`` (with ``patch``), ``/pulls/{n}/reviews``,
  ``/pulls/{n}/comments``, ``/issues/{n}/comments``, with ``Link`` pagination;
* a token check (401 "Bad credentials"), rate-limit headers, and faults on demand (:meth:`FakeGitHub.fail`);
* GraphQL points: every query is charged GitHub's documented score (:func:`query_cost`) in a window
  of an hour on :attr:`FakeGitHub.rate_clock`; ``rateLimit { cost remaining resetAt }`` and the
  ``X-RateLimit-*`` headers of the answer tell the truth, and a query over what is left is refused
  (``RATE_LIMITED``);
* every request counted (:attr:`FakeGitHub.requests`, :attr:`FakeGitHub.log`).

Data: the real weeks ``../shared/data/vllm/2026-W*.json`` as ``vllm-project/vllm`` when present, and
always the small built-in ``example-org/example-repo`` week (:func:`builtin_records`).
"""

from __future__ import annotations

import base64
import bisect
import functools
import hashlib
import json
import os
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.fakes.loopback import LoopbackServer

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PRHUB_SHARED", ROOT.parent / "shared"))
SCHEMA_PATH = SHARED / "data" / "github-schema.graphql"
VLLM_DIR = SHARED / "data" / "vllm"
VLLM_REPO = "vllm-project/vllm"
EXAMPLE_REPO = "example-org/example-repo"
FILE_LIST_CAP = 3000

_SCHEMA: Any = None
_SCHEMA_LOCK = threading.Lock()
_DOCUMENTS: dict[tuple[int, str], tuple[Any, list[Any]]] = {}
"""(schema id, query text) -> (parsed document or None, parse/validation errors): prhub sends a few query texts
hundreds of times with new variables (the 52-week backfill: 233 queries), and graphql-core's parse
and validation against GitHub's schema were a fifth of the fake's CPU."""


def load_schema() -> Any:
    """GitHub's schema built with graphql-core (cached), or None when ../shared is absent.

    The published SDL repeats two fields and deprecates some interface implementations, which
    graphql-core's strict schema validation rejects: those checks are skipped (query validation is not).
    """
    global _SCHEMA
    with _SCHEMA_LOCK:
        if _SCHEMA is None and SCHEMA_PATH.exists():
            from graphql import build_schema

            schema = build_schema(SCHEMA_PATH.read_text(encoding="utf-8"), assume_valid_sdl=True)
            schema._validation_errors = []  # skip the interface checks the published SDL fails
            _SCHEMA = schema
    return _SCHEMA


def _document(schema: Any, text: str) -> tuple[Any, list[Any]]:
    """``(document, errors)`` of a query text as graphql_sync sees it: the parsed document (None when
    it does not parse) and the syntax or validation errors against ``schema`` (empty when valid).
    Cached by schema and text."""
    from graphql import GraphQLError, parse, validate

    with _SCHEMA_LOCK:
        hit = _DOCUMENTS.get((id(schema), text))
    if hit is not None:
        return hit
    try:
        document = parse(text)
    except GraphQLError as exc:
        out: tuple[Any, list[Any]] = (None, [exc])
    else:
        out = (document, list(validate(schema, document)))
    with _SCHEMA_LOCK:
        if len(_DOCUMENTS) >= 512:
            _DOCUMENTS.clear()
        _DOCUMENTS[(id(schema), text)] = out
    return out


@functools.lru_cache(maxsize=65536)
def _instant(text: str) -> datetime:
    """An aware UTC datetime of a GitHub timestamp (``2026-05-11T00:00:00Z``); cached, as each search
    compares every record's ``mergedAt`` (8,251 records for the 2025 archive)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def _iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------------------- data


def builtin_records() -> list[dict[str, Any]]:
    """The built-in ``example-org/example-repo`` data: gh-JSON records plus fake-only keys.

    Week 2026-W20 (``[2026-05-11, 2026-05-18)`` UTC): 40 ordinary PRs (#1001-#1040) and the cases
    #2001 (45 files, file 41 ``csrc/attention/paged_attention.cu``), #2002 (3,500 changed, 3,000
    listed), #2003 (closed, not merged), #2004 (reviews, threads, bot flag, assert patch, closing
    issue, comments), #2005 (60 review threads), #2006 (145 files, file 141 under ``csrc/attention``),
    #2007 (a bot author with co-authors), #2008 (merged at the window end: next week), #2009 (merged
    at the window start). Fake-only keys: ``state``, ``reviews``, ``threads``, ``commentCount``,
    ``closingIssues``, ``patches`` ({path: patch}), ``commits`` (``committedDate`` strings, oldest first).
    """
    start = datetime(2026, 5, 11, tzinfo=timezone.utc)
    out: list[dict[str, Any]] = []

    def rec(number: int, title: str, merged: datetime | None, files: list[tuple[str, int, int]], **extra: Any) -> dict[str, Any]:
        r = {
            "number": number, "title": title, "url": f"https://github.com/{EXAMPLE_REPO}/pull/{number}",
            "body": extra.pop("body", ""), "author": extra.pop("author", {"login": f"dev{number % 7}", "is_bot": False}),
            "mergedAt": _iso(merged) if merged else None, "labels": extra.pop("labels", []),
            "files": [{"path": p, "additions": a, "deletions": d} for p, a, d in files],
            "additions": sum(a for _, a, _ in files), "deletions": sum(d for _, _, d in files),
            "changedFiles": extra.pop("changedFiles", len(files)), "mergeCommit": {"oid": f"{number:040x}"},
            "coAuthors": extra.pop("coAuthors", []),
        }
        r.update(extra)
        return r

    for i in range(40):
        n = 1001 + i
        out.append(rec(n, f"[Bugfix] Fix thing {n}", start + timedelta(hours=4 * i + 1),
                       [(f"vllm/module{i % 5}/file{i}.py", 10 + i, i), (f"tests/test_module{i % 5}.py", 5, 0)]))
    docs = [(f"docs/page{k}.md", 1, 1) for k in range(40)]
    out.append(rec(2001, "Docs sweep with one kernel", start + timedelta(days=1, hours=2),
                   docs + [("csrc/attention/paged_attention.cu", 30, 2)] + [(f"docs/more{k}.md", 1, 0) for k in range(4)]))
    out.append(rec(2002, "Vendor a huge tree", start + timedelta(days=2, hours=3),
                   [(f"third_party/big/f{k:04d}.txt", 1, 0) for k in range(FILE_LIST_CAP + 500)], changedFiles=3500))
    out.append(rec(2003, "Closed without merging", None, [("vllm/unmerged.py", 5, 5)], state="CLOSED"))
    out.append(rec(
        2004, "[Core] Add scheduler check", start + timedelta(days=3, hours=5),
        [("vllm/core/scheduler.py", 40, 3), ("tests/core/test_scheduler.py", 12, 0)],
        labels=[{"name": "bug"}, {"name": "ready"}], commentCount=3, closingIssues=[1999],
        reviews=[
            {"state": "COMMENTED", "author": "gemini-code-assist[bot]", "body": "Summary of changes",
             "submittedAt": "2026-05-13T01:00:00Z"},
            {"state": "CHANGES_REQUESTED", "author": "alice", "body": "please fix", "submittedAt": "2026-05-13T02:00:00Z"},
        ],
        commits=["2026-05-12T20:00:00Z", "2026-05-13T01:30:00Z"],  # none after alice's request
        threads=[
            {"path": "vllm/core/scheduler.py", "isResolved": False, "isOutdated": False,
             "comments": [{"author": "alice", "body": "Is this safe under preemption?", "createdAt": "2026-05-13T02:00:00Z"}]},
            {"path": "vllm/core/scheduler.py", "isResolved": False, "isOutdated": False,
             "comments": [{"author": "gemini-code-assist[bot]", "body": "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nThis can divide by zero.",
                           "createdAt": "2026-05-13T01:00:00Z"}]},
            {"path": "tests/core/test_scheduler.py", "isResolved": True, "isOutdated": False,
             "comments": [{"author": "bob", "body": "nit", "createdAt": "2026-05-13T03:00:00Z"}]},
        ],
        patches={"vllm/core/scheduler.py": "@@ -1,3 +1,4 @@\n def f(x):\n+    assert x > 0, 'x must be positive'\n     return 1 / x\n",
                 "tests/core/test_scheduler.py": "@@ -0,0 +1,2 @@\n+def test_f():\n+    assert f(1) == 1\n"},
    ))
    out.append(rec(
        2005, "[Model] Long review", start + timedelta(days=4, hours=6), [("vllm/model_executor/models/big.py", 300, 20)],
        reviews=[{"state": "APPROVED", "author": "carol", "body": "", "submittedAt": "2026-05-15T00:00:00Z"}],
        threads=[{"path": "vllm/model_executor/models/big.py", "isResolved": True, "isOutdated": k % 2 == 0,
                  "comments": [{"author": "carol", "body": f"comment {k}", "createdAt": "2026-05-14T00:00:00Z"}]}
                 for k in range(60)],
    ))
    out.append(rec(2006, "Big docs sweep with one kernel", start + timedelta(days=5, hours=1),
                   [(f"docs/big{k}.md", 1, 1) for k in range(140)] + [("csrc/attention/attention_kernels.cu", 20, 1)]
                   + [(f"docs/tail{k}.md", 1, 0) for k in range(4)]))
    out.append(rec(2007, "Bump torch", start + timedelta(days=5, hours=9), [("requirements/cuda.txt", 1, 1)],
                   author={"login": "dependabot[bot]", "is_bot": True}, coAuthors=["Claude", "mergify[bot]"]))
    out.append(rec(2008, "Merged at the window end", start + timedelta(days=7), [("vllm/x.py", 1, 1)]))
    out.append(rec(2009, "Merged at the window start", start, [("vllm/y.py", 1, 1)]))
    return out


def load_repos(shared: bool = True) -> dict[str, list[dict[str, Any]]]:
    """Repositories the fake serves: the built-in example, and vLLM's real weeks when ../shared has them."""
    repos = {EXAMPLE_REPO: builtin_records()}
    if shared and VLLM_DIR.is_dir():
        merged: dict[int, dict[str, Any]] = {}
        for p in sorted(VLLM_DIR.glob("2026-W*.json")):
            for r in json.loads(p.read_text(encoding="utf-8")):
                merged[r["number"]] = r
        repos[VLLM_REPO] = list(merged.values())
    return repos


# ---------------------------------------------------------------------------------------------- search

_QUAL_RE = re.compile(r"(\w+):(\S+)")
_INSTANT_RANGE_RE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.\.(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$")


class SearchError(Exception):
    """A search the fake (or GitHub) rejects; the message is the API's."""


@dataclass(frozen=True)
class SearchQuery:
    """A parsed ``repo:O/N is:pr is:merged merged:A..B`` query (both bounds inclusive)."""

    repo: str
    first: datetime
    last: datetime


def parse_search(q: str) -> SearchQuery:
    """Parse a merged-PR search string.

    Raises:
        SearchError: unsupported qualifiers, no repo, or a ``merged:`` range that is not two explicit
            UTC instants (``merged:2026-05-11T00:00:00Z..2026-05-17T23:59:59Z``).
    """
    quals: dict[str, list[str]] = {}
    for k, v in _QUAL_RE.findall(q):
        quals.setdefault(k.lower(), []).append(v)
    if "repo" not in quals or sorted(quals.get("is", [])) != ["merged", "pr"] or "merged" not in quals:
        raise SearchError(f"fake GitHub supports only 'repo:O/N is:pr is:merged merged:A..B', got {q!r}")
    m = _INSTANT_RANGE_RE.match(quals["merged"][0])
    if not m:
        raise SearchError(f"merged range {quals['merged'][0]!r} must be explicit UTC instants (YYYY-MM-DDTHH:MM:SSZ..)")
    return SearchQuery(quals["repo"][0], _instant(m.group(1)), _instant(m.group(2)))


def _cursor(i: int) -> str:
    return base64.b64encode(f"cursor:{i}".encode()).decode()


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        return int(base64.b64decode(cursor).decode().split(":", 1)[1]) + 1
    except Exception as exc:
        raise ValueError(f"`{cursor}` does not appear to be a valid cursor.") from exc


# ---------------------------------------------------------------------------------------------- GraphQL


def _wants_nodes(info: Any) -> bool:
    for node in info.field_nodes:
        for sel in (node.selection_set.selections if node.selection_set else ()):
            if getattr(sel, "name", None) is not None and sel.name.value in ("nodes", "edges"):
                return True
    return False


def _connection(items: list[Any], cap: int | None = None,
                node: Callable[[Any], Any] | None = None) -> Callable[..., dict[str, Any]]:
    """A GraphQL connection resolver over ``items`` (with GitHub's first/last rules); ``node`` turns
    an item into its GraphQL object, for the page's items only (the search's PRs)."""

    def resolve(info: Any, first: int | None = None, after: str | None = None, last: int | None = None,
                before: str | None = None, **_: Any) -> dict[str, Any]:
        name = info.field_name
        if first is None and last is None and _wants_nodes(info):
            raise ValueError(f"You must provide a `first` or `last` value to properly paginate the `{name}` connection.")
        for arg, value in (("first", first), ("last", last)):
            if value is not None and not 1 <= value <= 100:
                raise ValueError(f"Requesting {value} records on the `{name}` connection exceeds the `{arg}` limit of 100 records.")
        visible = items[:cap] if cap is not None else items
        start = _offset(after)
        if last is not None and first is None and after is None:  # the last items (GitHub's `last`)
            start = max(len(visible) - last, 0)
        n = first if first is not None else (last or 100)
        page = visible[start:start + n]
        if node is not None:
            page = [node(x) for x in page]
        has_next = start + len(page) < len(visible)
        return {
            "totalCount": len(items),
            "pageInfo": {"hasNextPage": has_next, "hasPreviousPage": start > 0,
                         "endCursor": _cursor(start + len(page) - 1) if page else None,
                         "startCursor": _cursor(start) if page else None},
            "nodes": page,
            "edges": [{"cursor": _cursor(start + i), "node": x} for i, x in enumerate(page)],
        }

    return resolve


POINTS_LIMIT = 5000
"""GraphQL points a token gets per hour (GitHub's primary limit for a user token)."""


def _arg_value(node: Any, variables: dict[str, Any]) -> Any:
    from graphql import value_from_ast_untyped

    return value_from_ast_untyped(node.value, variables)


def query_cost(schema: Any, document: Any, variables: dict[str, Any], operation: str | None = None) -> tuple[int, int]:
    """GitHub's documented rate-limit score of a query (docs: "Rate limits and query limits for the
    GraphQL API", calculating a rate limit score): add up the requests needed to fulfil each
    connection, assuming every connection returns its full ``first``/``last`` -- a connection under
    connections is requested once per node of its parents, so nested ``first:`` multiply -- then
    divide by 100 and round; the minimum is 1. Also the node count (every connection's nodes,
    nested counts multiplied). Returns ``(cost, nodes)``.

    Fragments and inline fragments are followed with their type condition; a connection is a field
    whose (unwrapped) type name ends in ``Connection``, as in GitHub's schema.
    """
    from graphql import GraphQLObjectType, OperationDefinitionNode, get_named_type

    fragments = {d.name.value: d for d in document.definitions if d.kind == "fragment_definition"}
    ops = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    op = next((o for o in ops if operation is None or (o.name and o.name.value == operation)), None)
    if op is None:
        return 1, 0
    requests = 0
    nodes = 0

    def walk(selection_set: Any, parent: Any, multiplier: int) -> None:
        nonlocal requests, nodes
        for sel in selection_set.selections if selection_set else ():
            if sel.kind == "fragment_spread":
                frag = fragments[sel.name.value]
                walk(frag.selection_set, schema.get_type(frag.type_condition.name.value), multiplier)
                continue
            if sel.kind == "inline_fragment":
                cond = schema.get_type(sel.type_condition.name.value) if sel.type_condition else parent
                walk(sel.selection_set, cond, multiplier)
                continue
            fields = getattr(parent, "fields", None) or {}
            definition = fields.get(sel.name.value)
            if definition is None:
                continue
            named = get_named_type(definition.type)
            inner = multiplier
            if named.name.endswith("Connection"):
                args = {a.name.value: _arg_value(a, variables) for a in sel.arguments or ()}
                size = args.get("first") or args.get("last") or 1
                requests += multiplier
                inner = multiplier * int(size)
                nodes += inner
            if isinstance(named, GraphQLObjectType) or hasattr(named, "fields") or hasattr(named, "types"):
                walk(sel.selection_set, named, inner)

    walk(op.selection_set, schema.query_type, 1)
    return max(1, int(requests / 100 + 0.5)), nodes


def _actor(login: str | None, name: str | None = None) -> dict[str, Any] | None:
    if not login:
        return None
    if login.endswith("[bot]"):
        return {"__typename": "Bot", "login": login.removesuffix("[bot]")}
    return {"__typename": "User", "login": login, "name": name}


def _commit_message(rec: dict[str, Any]) -> str:
    trailers = "".join(f"\nCo-authored-by: {c} <{c.replace(' ', '')}@users.noreply.github.com>" for c in rec.get("coAuthors") or [])
    return f"{rec['title']} (#{rec['number']})\n" + (f"\n{trailers.strip()}\n" if trailers else "")


def pr_node(rec: dict[str, Any]) -> dict[str, Any]:
    """The GraphQL ``PullRequest`` object of a record (connections resolve lazily)."""
    author = rec.get("author") or {}
    return {
        "__typename": "PullRequest",
        "number": rec["number"], "title": rec["title"], "body": rec.get("body") or "", "url": rec.get("url") or "",
        "mergedAt": rec.get("mergedAt"), "state": "MERGED" if rec.get("mergedAt") else rec.get("state", "CLOSED"),
        "additions": rec.get("additions", 0), "deletions": rec.get("deletions", 0),
        "changedFiles": rec.get("changedFiles", len(rec.get("files") or [])),
        "author": _actor(author.get("login"), author.get("name")),
        "mergeCommit": {"oid": (rec.get("mergeCommit") or {}).get("oid") or f"{rec['number']:040x}", "message": _commit_message(rec)}
        if rec.get("mergedAt") else None,
        "comments": _connection([{"body": f"comment {k + 1}", "createdAt": rec.get("mergedAt"), "author": _actor("carol")}
                                 for k in range(int(rec.get("commentCount", 0)))]),
        "labels": _connection([{"name": lb["name"] if isinstance(lb, dict) else lb} for lb in rec.get("labels") or []]),
        "files": _connection(rec.get("files") or [], cap=FILE_LIST_CAP),
        "reviews": _connection([{"state": r["state"], "body": r.get("body", ""), "submittedAt": r.get("submittedAt"),
                                 "author": _actor(r.get("author"))} for r in rec.get("reviews") or []]),
        "reviewThreads": _connection([
            {"path": t.get("path"), "line": t.get("line"), "isResolved": t.get("isResolved", False), "isOutdated": t.get("isOutdated", False),
             "comments": _connection([{"body": c.get("body", ""), "createdAt": c.get("createdAt"),
                                       "author": _actor(c.get("author"))} for c in t.get("comments") or []])}
            for t in rec.get("threads") or []]),
        "closingIssuesReferences": _connection([{"number": n} for n in rec.get("closingIssues") or []]),
        # commits: ``committedDate`` strings, oldest first (default: one commit an hour before the merge)
        "commits": _connection([{"commit": {"committedDate": c}} for c in rec.get("commits") or _default_commits(rec)]),
    }


def _default_commits(rec: dict[str, Any]) -> list[str]:
    merged = rec.get("mergedAt")
    if not merged:
        return []
    at = datetime.fromisoformat(str(merged).replace("Z", "+00:00")) - timedelta(hours=1)
    return [at.strftime("%Y-%m-%dT%H:%M:%SZ")]


# ---------------------------------------------------------------------------------------------- server


@dataclass
class Fault:
    """A canned error response served for requests number ``at`` .. ``at + times - 1`` (1-based)."""

    at: int
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    times: int = 1


@dataclass
class FakeGitHub(LoopbackServer):
    """The fake GitHub: data, search cap, token, faults and the request log. Start with :meth:`start`."""

    repos: dict[str, list[dict[str, Any]]] = field(default_factory=load_repos)
    token: str | None = "fake-token"
    search_cap: int = 1000
    faults: list[Fault] = field(default_factory=list)
    log: list[tuple[str, str, int]] = field(default_factory=list)
    """Every request: (method, path with query, status)."""
    clock: Callable[[], datetime] | None = None
    """The fake's "now" (aware): PRs merged after it are not visible yet (None: all are)."""
    bodies: list[str] = field(default_factory=list)
    """The body of every request, in :attr:`log` order (decoded UTF-8)."""
    points_limit: int = POINTS_LIMIT
    """GraphQL points per hour: each query is charged :func:`query_cost`; one over what is left is
    refused as GitHub does (HTTP 200, error ``type: RATE_LIMITED``, ``X-RateLimit-Remaining: 0``)."""
    rate_clock: Callable[[], datetime] = field(default=lambda: datetime.now(timezone.utc))
    """The clock of the points window (tests move it instead of sleeping): a window opens with the
    first query and resets one hour later (``resetAt``)."""
    points: list[int] = field(default_factory=list)
    """The cost charged for every GraphQL query answered, in order."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._window: datetime | None = None  # when the current points window resets
        self._used = 0
        self._by_number = {repo: {r["number"]: r for r in recs} for repo, recs in self.repos.items()}
        self._indexes: dict[int, tuple[list[Any], list[datetime], list[dict[str, Any]]]] = {}

    _http11 = True

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        status, headers, payload = self.handle(method, handler.path, dict(handler.headers), body)
        data = json.dumps(payload).encode()
        if method == "GET" and status == 200:  # conditional requests, as GitHub: ETag, 304 when unchanged
            etag = '"' + hashlib.sha1(data).hexdigest() + '"'
            headers = {**headers, "ETag": etag}
            if handler.headers.get("If-None-Match") == etag:
                status, data = 304, b""
                with self._lock:
                    self.log[-1] = (self.log[-1][0], self.log[-1][1], 304)
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)

    @property
    def base_url(self) -> str:
        """REST base URL in the GitHub Enterprise form, ``http://127.0.0.1:PORT/api/v3``."""
        return f"http://127.0.0.1:{self.port}/api/v3"

    @property
    def requests(self) -> int:
        """Requests received so far (all statuses)."""
        return len(self.log)

    def reset_log(self) -> None:
        """Forget the request log (and thus the count), the points charged, and the points window."""
        with self._lock:
            self.log.clear()
            self.bodies.clear()
            self.points.clear()
            self._window, self._used = None, 0

    def fail(self, status: int, *, at: int | None = None, times: int = 1, headers: dict[str, str] | None = None,
             message: str = "", body: dict[str, Any] | None = None) -> None:
        """Serve HTTP ``status`` with ``headers`` and ``{"message": message}`` (or ``body``) for ``times``
        requests starting at request number ``at`` (1-based over :attr:`log`; default: the next request)."""
        with self._lock:
            start = at if at is not None else len(self.log) + 1
            payload = body if body is not None else {"message": message, "documentation_url": "https://docs.github.com/rest"}
            self.faults.append(Fault(start, status, dict(headers or {}), payload, times))

    # -- dispatch
    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], Any]:
        """Answer one request: ``(status, headers, JSON payload)``."""
        with self._lock:
            number = len(self.log) + 1
            fault = next((f for f in self.faults if f.at <= number < f.at + f.times), None)
            self.log.append((method, raw_path, 0))
            self.bodies.append(body.decode("utf-8", "replace"))
        if fault is not None:
            status, out_headers, payload = fault.status, fault.headers, fault.body
        else:
            status, out_headers, payload = self._route(method, raw_path, headers, body)
            out_headers = {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": str(max(5000 - number, 1)),
                           "X-RateLimit-Reset": str(int(datetime.now(timezone.utc).timestamp()) + 3600), **out_headers}
        with self._lock:
            self.log[number - 1] = (method, raw_path, status)
        return status, out_headers, payload

    def _route(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], Any]:
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        if self.token is not None and auth.split(" ", 1)[-1] != self.token:
            return 401, {}, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
        url = urllib.parse.urlsplit(raw_path)
        path = url.path
        if path.startswith("/api/v3/"):
            path = path[len("/api/v3"):]
        params = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
        if method == "POST" and path in ("/graphql", "/api/graphql"):
            return self._graphql(body)
        if method != "GET":
            return 404, {}, {"message": "Not Found"}
        try:
            return self._rest(path, params)
        except KeyError:
            return 404, {}, {"message": "Not Found"}

    # -- GraphQL
    def _search(self, q: str) -> list[dict[str, Any]]:
        sq = parse_search(q)
        recs = self.repos.get(sq.repo)
        if recs is None:
            return []
        now = self.clock() if self.clock is not None else None
        last = sq.last if now is None else min(sq.last, now)
        instants, merged = self._merged_index(recs)
        hits = merged[bisect.bisect_left(instants, sq.first):bisect.bisect_right(instants, last)]
        return sorted(hits, key=lambda r: (r["mergedAt"], r["number"]), reverse=True)

    def _merged_index(self, recs: list[dict[str, Any]]) -> tuple[list[datetime], list[dict[str, Any]]]:
        """The merged records of ``recs`` in ``mergedAt`` order, with their instants (for bisecting a
        search's window); rebuilt when a record's ``mergedAt`` or the list changes."""
        key = [r.get("mergedAt") for r in recs]
        with self._lock:
            hit = self._indexes.get(id(recs))
        if hit is not None and hit[0] == key:
            return hit[1], hit[2]
        pairs = sorted(((_instant(r["mergedAt"]), i) for i, r in enumerate(recs) if r.get("mergedAt")))
        out = ([t for t, _ in pairs], [recs[i] for _, i in pairs])
        with self._lock:
            self._indexes[id(recs)] = (key, *out)
        return out

    def _graphql(self, body: bytes) -> tuple[int, dict[str, str], Any]:
        schema = load_schema()
        if schema is None:
            return 501, {}, {"message": "fake GitHub: GraphQL needs ../shared/data/github-schema.graphql"}
        from graphql import ExecutionResult, execute_sync

        try:
            request = json.loads(body or b"{}")
        except json.JSONDecodeError:
            return 400, {}, {"message": "Problems parsing JSON"}
        fake = self

        def search(info: Any, query: str, type: str, first: int | None = None, after: str | None = None,
                   **_: Any) -> dict[str, Any]:
            if type != "ISSUE":
                raise ValueError("fake GitHub: only type: ISSUE searches")
            hits = fake._search(query)
            conn = _connection(hits[: fake.search_cap], node=pr_node)(info, first=first, after=after)
            conn["issueCount"] = len(hits)
            return conn

        def repository(info: Any, owner: str, name: str, **_: Any) -> dict[str, Any] | None:
            full = f"{owner}/{name}"
            if full not in fake._by_number:
                raise ValueError(f"Could not resolve to a Repository with the name '{full}'.")

            def pull_request(info: Any, number: int) -> dict[str, Any] | None:
                rec = fake._by_number[full].get(number)
                if rec is None:
                    raise ValueError(f"Could not resolve to a PullRequest with the number of {number}.")
                return pr_node(rec)

            return {"__typename": "Repository", "nameWithOwner": full, "pullRequest": pull_request}

        variables = request.get("variables") or {}
        document, errors = _document(schema, request.get("query") or "")
        cost, nodes = self._cost(schema, document, variables, request.get("operationName"))
        with self._lock:
            now = self.rate_clock()
            if self._window is None or now >= self._window:
                self._window, self._used = now + timedelta(hours=1), 0
            reset = self._window
            if cost > self.points_limit - self._used:
                headers = self._points_headers(reset, 0)
                return 200, headers, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user."}]}
            self._used += cost
            self.points.append(cost)
            remaining = self.points_limit - self._used
        points = {"cost": cost, "limit": self.points_limit, "remaining": remaining, "used": self.points_limit - remaining,
                  "resetAt": _iso(reset)}

        def rate_limit(info: Any, **_: Any) -> dict[str, Any]:
            return {**points, "nodeCount": nodes}

        root = {"search": search, "repository": repository, "rateLimit": rate_limit}
        # as graphql_sync, with the parse and validation of this query text done once
        result = (ExecutionResult(data=None, errors=errors) if errors else
                  execute_sync(schema, document, root_value=root, variable_values=variables))
        payload: dict[str, Any] = {}
        if result.errors:
            payload["errors"] = [{"message": e.message, "locations": [loc._asdict() for loc in e.locations or []],
                                  "path": e.path} for e in result.errors]
        if result.data is not None or not result.errors:
            payload["data"] = result.data
        return 200, self._points_headers(reset, remaining), payload

    @staticmethod
    def _cost(schema: Any, document: Any, variables: dict[str, Any], operation: str | None) -> tuple[int, int]:
        """:func:`query_cost` of the parsed query (1 for text that did not parse: GraphQL's error answers)."""
        from graphql import GraphQLError

        if document is None:
            return 1, 0
        try:
            return query_cost(schema, document, variables, operation)
        except (GraphQLError, KeyError, TypeError, ValueError):
            return 1, 0

    def _points_headers(self, reset: datetime, remaining: int) -> dict[str, str]:
        """GitHub's rate-limit headers of a GraphQL answer (the ``graphql`` resource: points)."""
        return {"X-RateLimit-Limit": str(self.points_limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Used": str(self.points_limit - remaining), "X-RateLimit-Resource": "graphql",
                "X-RateLimit-Reset": str(int(reset.timestamp()))}

    @property
    def points_used(self) -> int:
        """GraphQL points charged so far (every window)."""
        return sum(self.points)

    # -- REST
    def _link(self, path: str, params: dict[str, str], page: int, last: int) -> dict[str, str]:
        links = []
        for rel, p in (("next", page + 1), ("last", last)) if page < last else ():
            q = urllib.parse.urlencode({**params, "page": p})
            links.append(f'<{self.base_url}{path}?{q}>; rel="{rel}"')
        return {"Link": ", ".join(links)} if links else {}

    def _page(self, path: str, params: dict[str, str], items: list[Any], default: int = 30) -> tuple[list[Any], dict[str, str], int, int]:
        per_page = min(int(params.get("per_page", default)), 100)
        page = int(params.get("page", 1))
        last = max(1, -(-len(items) // per_page))
        return items[(page - 1) * per_page: page * per_page], self._link(path, params, page, last), page, per_page

    def _user(self, login: str | None) -> dict[str, Any] | None:
        if not login:
            return None
        return {"login": login, "id": abs(hash(login)) % 10**8, "type": "Bot" if login.endswith("[bot]") else "User",
                "url": f"{self.base_url}/users/{urllib.parse.quote(login)}"}

    def _rest_pull(self, repo: str, rec: dict[str, Any]) -> dict[str, Any]:
        n = rec["number"]
        base = f"{self.base_url}/repos/{repo}"
        return {
            "id": n, "number": n, "title": rec["title"], "body": rec.get("body") or "",
            "state": "closed", "merged_at": rec.get("mergedAt"), "closed_at": rec.get("mergedAt"),
            "url": f"{base}/pulls/{n}", "html_url": rec.get("url"), "issue_url": f"{base}/issues/{n}",
            "user": self._user((rec.get("author") or {}).get("login")),
            "labels": [{"name": lb["name"] if isinstance(lb, dict) else lb} for lb in rec.get("labels") or []],
            "additions": rec.get("additions", 0), "deletions": rec.get("deletions", 0),
            "changed_files": rec.get("changedFiles", 0), "comments": rec.get("commentCount", 0),
            "review_comments": sum(len(t.get("comments") or []) for t in rec.get("threads") or []),
            "merge_commit_sha": (rec.get("mergeCommit") or {}).get("oid"),
        }

    def _rest(self, path: str, params: dict[str, str]) -> tuple[int, dict[str, str], Any]:
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        if parts == ["search", "issues"]:
            try:
                hits = self._search(params.get("q", ""))
            except SearchError as exc:
                return 422, {}, {"message": "Validation Failed", "errors": [{"message": str(exc)}]}
            per_page = min(int(params.get("per_page", 30)), 100)
            page = int(params.get("page", 1))
            if (page - 1) * per_page >= self.search_cap:
                return 422, {}, {"message": "Cannot access beyond the first 1000 results, or the search is too long."}
            visible = hits[: self.search_cap]
            items, link, _, _ = self._page(path, params, visible)
            repo = parse_search(params["q"]).repo
            out = [{"id": r["number"], "number": r["number"], "title": r["title"], "state": "closed",
                    "url": f"{self.base_url}/repos/{repo}/issues/{r['number']}",
                    "repository_url": f"{self.base_url}/repos/{repo}",
                    "user": self._user((r.get("author") or {}).get("login")),
                    "pull_request": {"url": f"{self.base_url}/repos/{repo}/pulls/{r['number']}", "merged_at": r["mergedAt"]}}
                   for r in items]
            return 200, link, {"total_count": len(hits), "incomplete_results": False, "items": out}
        if len(parts) >= 3 and parts[0] == "repos":
            repo = f"{parts[1]}/{parts[2]}"
            recs = self._by_number[repo]
            rest = parts[3:]
            if not rest:
                return 200, {}, {"id": 1, "name": parts[2], "full_name": repo, "url": f"{self.base_url}/repos/{repo}",
                                 "owner": self._user(parts[1]), "private": False}
            if len(rest) >= 2 and rest[0] in ("pulls", "issues") and rest[1].isdigit():
                rec = recs[int(rest[1])]
                tail = rest[2:]
                if rest[0] == "pulls" and not tail:
                    return 200, {}, self._rest_pull(repo, rec)
                if rest[0] == "pulls" and tail == ["files"]:
                    patches = rec.get("patches") or {}
                    files = [{"sha": f"{i:040x}", "filename": f["path"], "status": "modified",
                              "additions": f["additions"], "deletions": f["deletions"],
                              "changes": f["additions"] + f["deletions"],
                              **({"patch": patches[f["path"]]} if f["path"] in patches else {})}
                             for i, f in enumerate((rec.get("files") or [])[:FILE_LIST_CAP])]
                    items, link, _, _ = self._page(path, params, files)
                    return 200, link, items
                if rest[0] == "pulls" and tail == ["reviews"]:
                    revs = [{"id": i + 1, "user": self._user(r.get("author")), "state": r["state"], "body": r.get("body", ""),
                             "submitted_at": r.get("submittedAt")} for i, r in enumerate(rec.get("reviews") or [])]
                    items, link, _, _ = self._page(path, params, revs)
                    return 200, link, items
                if rest[0] == "pulls" and tail == ["comments"]:
                    comments = [{"id": i + 1, "path": t.get("path"), "body": c.get("body", ""), "user": self._user(c.get("author")),
                                 "created_at": c.get("createdAt")}
                                for i, (t, c) in enumerate((t, c) for t in rec.get("threads") or [] for c in t.get("comments") or [])]
                    items, link, _, _ = self._page(path, params, comments)
                    return 200, link, items
                if rest[0] == "issues" and tail == ["comments"]:
                    items, link, _, _ = self._page(path, params, [{"id": i + 1, "body": ""} for i in range(rec.get("commentCount", 0))])
                    return 200, link, items
        return 404, {}, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}


def records_in(fake: FakeGitHub, repo: str, start: datetime, end: datetime) -> Iterable[dict[str, Any]]:
    """The fake's merged records of ``repo`` in ``[start, end)`` (what a correct fetch returns)."""
    return [r for r in fake.repos.get(repo, []) if r.get("mergedAt") and start <= _instant(r["mergedAt"]) < end]
