"""GraphQL documents the GitHub source sends to ``POST /graphql`` (validated against GitHub's schema in tests).

One search page carries, per PR, everything the digest and the review-risk rules need: labels,
changed files with line counts, reviews, review threads (path, line and their first comments), the first conversation comments, closing
issue references and the merge commit message (for ``Co-authored-by`` trailers). Connections longer
than their first page are continued with :func:`followup_query`, batching many PRs per request.
"""

from __future__ import annotations

from dataclasses import dataclass

PAGE_INFO = "pageInfo { hasNextPage endCursor }"
THREAD_COMMENTS = 10
"""Comments read per review thread (the first ones: the finding and its first replies); not paginated."""
PR_COMMENTS = 30
"""Conversation comments read per PR (the oldest ones); not paginated, so the request count stays
``ceil(N/25)`` plus follow-ups of the paginated connections."""
ACTOR = "author { __typename login }"


RATE_LIMIT = "rateLimit { cost remaining resetAt }"
"""Asked in every query: what it cost in GraphQL points, what is left, when the window resets."""


@dataclass(frozen=True)
class Connection:
    """A paginated PR connection: GraphQL field name, first-page size, follow-up page size, node
    fields, and ``nested``: the connections each of its nodes opens (GitHub's score requests those
    once per node, so they multiply by ``first``)."""

    field: str
    first: int
    more: int
    nodes: str
    nested: int = 0


THREADS_FIRST = 10
"""Review threads in the bulk search page. Each thread opens its ``comments`` connection, which
GitHub's score counts once per thread asked: 50 threads a PR made a page of 50 PRs cost 29 points,
10 make it 9. PRs with more threads get the rest from a follow-up page (most have fewer)."""

CONNECTIONS: tuple[Connection, ...] = (
    Connection("labels", 20, 100, "name"),
    Connection("files", 100, 100, "path additions deletions"),
    Connection("reviews", 50, 100, f"state submittedAt body {ACTOR}"),
    Connection("reviewThreads", THREADS_FIRST, 50,
               f"isResolved isOutdated path line comments(first: {THREAD_COMMENTS}) {{ nodes {{ body createdAt {ACTOR} }} }}",
               nested=1),
    Connection("closingIssuesReferences", 10, 100, "number"),
)
"""Every paginated field of a PR the source reads, in query order."""

PLAIN_CONNECTIONS = 2
"""The PR's connections that are not paginated: ``commits(last: 1)`` and ``comments(first: 30)``."""


def search_requests(prs: int, searches: int = 1) -> int:
    """GitHub's connection-request count of a search request for ``prs`` PRs in ``searches`` aliased
    searches: each search 1, each PR its connections, each asked node of a connection with nested
    ones (review threads) those again."""
    per_pr = PLAIN_CONNECTIONS + sum(1 + c.first * c.nested for c in CONNECTIONS)
    return searches + prs * per_pr


def followup_requests(items: list[FollowUp]) -> int:
    """GitHub's connection-request count of :func:`followup_query` of ``items``."""
    return sum(1 + BY_FIELD[i.field].more * BY_FIELD[i.field].nested for i in items)

BY_FIELD = {c.field: c for c in CONNECTIONS}


def _connection(c: Connection, first: int, after: str | None = None) -> str:
    args = f"first: {first}" + (f", after: ${after}" if after else "")
    return f"{c.field}({args}) {{ {PAGE_INFO} nodes {{ {c.nodes} }} }}"


PULL_FIELDS = " ".join(
    [
        "number title body url mergedAt additions deletions changedFiles",
        "author { __typename login ... on User { name } }",
        "mergeCommit { oid message }",
        "commits(last: 1) { nodes { commit { committedDate } } }",
        f"comments(first: {PR_COMMENTS}) {{ nodes {{ body createdAt {ACTOR} }} }}",
        *(_connection(c, c.first) for c in CONNECTIONS),
    ]
)

SEARCH_QUERY = (
    "query PrhubMergedPulls($q: String!, $first: Int!, $after: String) {\n"
    "  search(type: ISSUE, query: $q, first: $first, after: $after) {\n"
    f"    issueCount {PAGE_INFO}\n"
    "    nodes { __typename ... on PullRequest { " + PULL_FIELDS + " } }\n"
    "  }\n"
    f"  {RATE_LIMIT}\n"
    "}\n"
)
"""One page of merged PRs. Variables: ``q`` (see :mod:`adapters.github.search`), ``first`` (1-100), ``after``."""


def search_query(parts: int) -> str:
    """One request holding ``parts`` searches (1 gives :data:`SEARCH_QUERY`), aliased ``s0``, ``s1``...

    Variables per search ``i``: ``q{i}``, ``first{i}``, ``after{i}``. The source packs the tail of one
    window's search with the head of the next so that a request carries at most one page of PRs in all.
    """
    if parts == 1:
        return SEARCH_QUERY
    decls = ", ".join(f"$q{i}: String!, $first{i}: Int!, $after{i}: String" for i in range(parts))
    fields = "\n".join(
        f"  s{i}: search(type: ISSUE, query: $q{i}, first: $first{i}, after: $after{i}) {{ issueCount {PAGE_INFO} "
        "nodes { __typename ...PrhubPull } }" for i in range(parts))
    return (f"query PrhubMergedPulls({decls}) {{\n{fields}\n  {RATE_LIMIT}\n}}\n"
            f"fragment PrhubPull on PullRequest {{ {PULL_FIELDS} }}\n")


@dataclass(frozen=True)
class FollowUp:
    """One more page of one PR's connection: PR number, connection field, cursor to continue after."""

    number: int
    field: str
    after: str


def followup_query(items: list[FollowUp]) -> tuple[str, dict[str, object]]:
    """A query fetching the next page of each item, aliased ``f0``, ``f1``... under ``repository``.

    Returns ``(query text, variables)``; the caller adds ``owner`` and ``name`` to the variables.
    """
    decls = ["$owner: String!", "$name: String!"]
    parts = []
    variables: dict[str, object] = {}
    for i, item in enumerate(items):
        c = BY_FIELD[item.field]
        decls.append(f"$c{i}: String")
        variables[f"c{i}"] = item.after
        parts.append(f"f{i}: pullRequest(number: {int(item.number)}) {{ number {_connection(c, c.more, f'c{i}')} }}")
    text = (
        f"query PrhubMorePages({', '.join(decls)}) {{\n"
        "  repository(owner: $owner, name: $name) {\n    "
        + "\n    ".join(parts)
        + f"\n  }}\n  {RATE_LIMIT}\n}}\n"
    )
    return text, variables
