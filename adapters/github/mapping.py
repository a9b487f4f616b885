"""GitHub GraphQL payloads into domain PRs: pure functions, no I/O.

Input is one ``PullRequest`` node as :data:`adapters.github.queries.SEARCH_QUERY` selects it, with
follow-up pages already appended to each connection's ``nodes``; optionally the REST
``GET /repos/{owner}/{repo}/pulls/{n}/files`` entries (for patches). Output is a
:class:`chatbot.models.PullRequest`. GitHub names bot actors ``dependabot`` with ``__typename: Bot``;
the domain uses the REST/gh form ``dependabot[bot]`` so both sources agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from chatbot.models import Author, Comment, FileChange, PullRequest, Review, ReviewThread

_TRAILER_RE = re.compile(r"^\s*co-authored-by:\s*(?P<name>.+?)\s*(?:<[^>]*>)?\s*$", re.IGNORECASE | re.MULTILINE)
_ASSERT_RE = re.compile(r"^\+(?!\+\+)\s*assert\b")
_TEST_PATH_RE = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_test\.py$|(^|/)conftest\.py$")


class _External(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class GqlActor(_External):
    """An ``Actor``: ``login`` and ``__typename`` (``User``, ``Bot``, ``Mannequin``...); ``name`` for users."""

    typename: str = Field(default="User", alias="__typename")
    login: str
    name: str | None = None

    @property
    def is_bot(self) -> bool:
        """True for ``Bot`` actors and ``[bot]`` logins."""
        return self.typename == "Bot" or self.login.endswith("[bot]")

    @property
    def domain_login(self) -> str:
        """The login as REST and ``gh`` spell it: bots get the ``[bot]`` suffix."""
        if self.typename == "Bot" and not self.login.endswith("[bot]"):
            return f"{self.login}[bot]"
        return self.login


def _instant(value: Any) -> Any:
    if isinstance(value, str):
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return dt.astimezone(timezone.utc)
    return value


class GqlFile(_External):
    """A ``PullRequestChangedFile``."""

    path: str
    additions: int = 0
    deletions: int = 0


class GqlReview(_External):
    """A ``PullRequestReview`` (``author`` is null for deleted accounts)."""

    state: str
    submittedAt: datetime | None = None
    body: str | None = None
    author: GqlActor | None = None

    _t = field_validator("submittedAt", mode="before")(_instant)


class GqlComment(_External):
    """A ``PullRequestReviewComment`` of a thread, or an ``IssueComment`` of the conversation."""

    body: str | None = None
    createdAt: datetime | None = None
    author: GqlActor | None = None

    _t = field_validator("createdAt", mode="before")(_instant)


class _Nodes(_External):
    nodes: list[Any] = Field(default_factory=list)


class GqlThread(_External):
    """A ``PullRequestReviewThread`` with its first comments."""

    isResolved: bool = False
    isOutdated: bool = False
    path: str | None = None
    line: int | None = None
    comments: _Nodes | None = None


class GqlLabel(_External):
    """A ``Label``."""

    name: str


class GqlIssueRef(_External):
    """An ``Issue`` a PR closes."""

    number: int


class GqlCommit(_External):
    """The merge ``Commit``: oid and message (``Co-authored-by`` trailers)."""

    oid: str | None = None
    message: str | None = None


class GqlLastCommit(_External):
    """A ``PullRequestCommit`` node: its ``commit`` with the ``committedDate``."""

    commit: dict[str, Any] | None = None

    @property
    def committed_at(self) -> datetime | None:
        """The commit's ``committedDate`` (aware UTC), None when absent."""
        value = _instant((self.commit or {}).get("committedDate"))
        return value if isinstance(value, datetime) else None


class GqlPullRequest(_External):
    """A ``PullRequest`` node as the search query selects it (external payload: unknown keys ignored)."""

    number: int = Field(gt=0)
    title: str
    body: str | None = None
    url: str | None = None
    mergedAt: datetime | None = None
    additions: int = 0
    deletions: int = 0
    changedFiles: int = 0
    author: GqlActor | None = None
    mergeCommit: GqlCommit | None = None
    comments: _Nodes | None = None
    labels: _Nodes | None = None
    files: _Nodes | None = None
    reviews: _Nodes | None = None
    reviewThreads: _Nodes | None = None
    closingIssuesReferences: _Nodes | None = None
    commits: _Nodes | None = None

    _t = field_validator("mergedAt", mode="before")(_instant)


def co_authors(message: str | None) -> tuple[str, ...]:
    """Names (or logins) of the ``Co-authored-by:`` trailers of a commit message, in order, unique.

    ``"Fix\\n\\nCo-authored-by: Roger Wang <r@x>"`` -> ``("Roger Wang",)``.
    """
    if not message:
        return ()
    seen: dict[str, None] = {}
    for m in _TRAILER_RE.finditer(message):
        seen.setdefault(m.group("name").strip(), None)
    return tuple(seen)


def is_test_path(path: str) -> bool:
    """True for test files: under ``tests/``/``test/``, ``test_*``, ``*_test.py`` or ``conftest.py``."""
    return bool(_TEST_PATH_RE.search(path))


def added_asserts(files: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """Paths of non-test Python files whose ``patch`` adds an ``assert`` line, in input order.

    ``files`` are REST ``pulls/{n}/files`` entries (``filename``, optional ``patch``; GitHub omits the
    patch of binary and very large files, which then count as no assert).
    """
    out: list[str] = []
    for f in files:
        path = str(f.get("filename") or f.get("path") or "")
        patch = f.get("patch")
        if not path.endswith(".py") or is_test_path(path) or not isinstance(patch, str):
            continue
        if any(_ASSERT_RE.match(line) for line in patch.splitlines()) and path not in out:
            out.append(path)
    return tuple(out)


def _actor(node: Any) -> GqlActor | None:
    return GqlActor.model_validate(node) if isinstance(node, Mapping) else None


def _comments(nodes: Iterable[Any]) -> tuple[Comment, ...]:
    out = []
    for n in nodes:
        if not n:
            continue
        c = GqlComment.model_validate(n)
        out.append(Comment(author=c.author.domain_login if c.author else "ghost", is_bot=c.author.is_bot if c.author else False,
                           body=c.body or "", created_at=c.createdAt))
    return tuple(out)


def to_pull_request(node: Mapping[str, Any], *, patch_files: Iterable[Mapping[str, Any]] | None = None) -> PullRequest:
    """Map one GraphQL ``PullRequest`` node (follow-up pages merged in) to the domain model.

    Args:
        node: the node's JSON (``number``, ``title``, ``mergedAt`` required; everything else optional).
        patch_files: REST file entries with patches, when fetched; fills ``added_asserts``.

    Raises:
        pydantic.ValidationError: the node lacks ``number``/``title`` or has wrong types.
        ValueError: ``mergedAt`` is null (not a merged PR).
    """
    pr = GqlPullRequest.model_validate(node)
    if pr.mergedAt is None:
        raise ValueError(f"PR #{pr.number} is not merged")
    files = tuple(
        FileChange(path=f.path, additions=f.additions, deletions=f.deletions)
        for f in (GqlFile.model_validate(n) for n in (pr.files.nodes if pr.files else ()) if n)
    )
    reviews = []
    for n in pr.reviews.nodes if pr.reviews else ():
        if not n:
            continue
        r = GqlReview.model_validate(n)
        reviews.append(Review(
            reviewer=r.author.domain_login if r.author else "ghost",
            is_bot=r.author.is_bot if r.author else False,
            state=r.state,
            submitted_at=r.submittedAt,
            body=r.body or "",
        ))
    threads = []
    for n in pr.reviewThreads.nodes if pr.reviewThreads else ():
        if not n:
            continue
        t = GqlThread.model_validate(n)
        comments = _comments(t.comments.nodes if t.comments else ())
        first = comments[0] if comments else None
        threads.append(ReviewThread(
            path=t.path,
            line=t.line,
            is_resolved=t.isResolved,
            is_outdated=t.isOutdated,
            author=first.author if first else None,
            author_is_bot=first.is_bot if first else False,
            first_comment=first.body if first else "",
            created_at=first.created_at if first else None,
            comments=comments,
        ))
    author = pr.author
    return PullRequest(
        number=pr.number,
        title=pr.title,
        url=pr.url or "",
        body=pr.body or "",
        author=Author(login=author.domain_login, name=author.name, is_bot=author.is_bot) if author else None,
        merged_at=pr.mergedAt,
        labels=tuple(GqlLabel.model_validate(n).name for n in (pr.labels.nodes if pr.labels else ()) if n),
        files=files,
        additions=pr.additions,
        deletions=pr.deletions,
        changed_files=max(pr.changedFiles, len(files)),
        co_authors=co_authors(pr.mergeCommit.message if pr.mergeCommit else None),
        merge_commit=pr.mergeCommit.oid if pr.mergeCommit else None,
        reviews=tuple(reviews),
        review_threads=tuple(threads),
        comments=_comments(pr.comments.nodes if pr.comments else ()),
        closing_issues=tuple(GqlIssueRef.model_validate(n).number
                             for n in (pr.closingIssuesReferences.nodes if pr.closingIssuesReferences else ()) if n),
        added_asserts=added_asserts(patch_files) if patch_files is not None else (),
        last_commit_at=next((c.committed_at for c in (GqlLastCommit.model_validate(n) for n in
                                                       (pr.commits.nodes if pr.commits else ()) if n)), None),
    )
