"""The gh-JSON file source: ``gh pr list --json ...`` exports (plus ``coAuthors``) into domain PRs.

Input: a JSON array of records shaped like ``gh pr list --json number,title,author,mergedAt,url,
body,labels,files,additions,deletions,changedFiles,mergeCommit`` (see ../shared/README.md). Required
per record: ``number`` (integer > 0), ``title`` (string), ``mergedAt`` (RFC 3339 with zone). Every
other field is optional; unknown fields are ignored. Files may be gzip-compressed (``.gz``) and
``-`` reads standard input.
"""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

from chatbot.errors import InputError
from chatbot.models import Author, FileChange, PullRequest


def _parse_instant(value: Any) -> datetime:
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError("not a date") from None
    else:
        raise ValueError("not a date")
    if dt.tzinfo is None:
        raise ValueError("date has no time zone (expected e.g. 2026-05-11T01:19:21Z)")
    return dt.astimezone(timezone.utc)


Instant = Annotated[datetime, BeforeValidator(_parse_instant)]


class _External(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class GhAuthor(_External):
    """``author`` of a gh export: login (or the git author name in commit-built exports)."""

    login: str
    name: str | None = None
    is_bot: bool = False


class GhFile(_External):
    """One entry of ``files``."""

    path: str = Field(min_length=1)
    additions: int = Field(default=0, ge=0)
    deletions: int = Field(default=0, ge=0)


class GhLabel(_External):
    """One entry of ``labels``."""

    name: str


class GhCommitRef(_External):
    """``mergeCommit``."""

    oid: str | None = None


class GhRecord(_External):
    """One record of a gh export (external payload: unknown keys ignored)."""

    number: Annotated[int, Field(strict=True, gt=0)]
    title: Annotated[str, Field(strict=True)]
    mergedAt: Instant
    url: str | None = None
    body: str | None = None
    author: GhAuthor | None = None
    labels: list[GhLabel | str] | None = None
    files: list[GhFile] | None = None
    additions: int | None = Field(default=None, ge=0)
    deletions: int | None = Field(default=None, ge=0)
    changedFiles: int | None = Field(default=None, ge=0)
    mergeCommit: GhCommitRef | None = None
    coAuthors: list[str] | None = None

    def to_pull_request(self) -> PullRequest:
        """Map to the domain model; missing totals are summed from ``files``."""
        files = tuple(FileChange(path=f.path, additions=f.additions, deletions=f.deletions) for f in self.files or ())
        return PullRequest(
            number=self.number,
            title=self.title,
            url=self.url or "",
            body=self.body or "",
            author=Author(login=self.author.login, name=self.author.name, is_bot=self.author.is_bot or self.author.login.endswith("[bot]"))
            if self.author
            else None,
            merged_at=self.mergedAt,
            labels=tuple(lb if isinstance(lb, str) else lb.name for lb in self.labels or ()),
            files=files,
            additions=self.additions if self.additions is not None else sum(f.additions for f in files),
            deletions=self.deletions if self.deletions is not None else sum(f.deletions for f in files),
            changed_files=self.changedFiles if self.changedFiles is not None else len(files),
            co_authors=tuple(self.coAuthors or ()),
            merge_commit=self.mergeCommit.oid if self.mergeCommit else None,
        )


_RECORD = TypeAdapter(GhRecord)
_RECORDS = TypeAdapter(list[GhRecord])

_MESSAGES = {
    "missing": "missing (required)",
    "int_type": "not an integer",
    "int_parsing": "not an integer",
    "string_type": "not a string",
    "greater_than": "must be greater than 0",
    "greater_than_equal": "must not be negative",
    "list_type": "not a list",
    "model_type": "not an object",
    "model_attributes_type": "not an object",
    "bool_type": "not true/false",
    "bool_parsing": "not true/false",
}


def _describe(err: Any) -> tuple[int | None, str]:
    loc = list(err["loc"])
    index = loc.pop(0) if loc and isinstance(loc[0], int) else None
    # drop union branch names pydantic inserts (e.g. 'GhLabel', 'str')
    field = ".".join(str(p) for p in loc if not (isinstance(p, str) and p[:1].isupper() and p not in ("Z",)) and p != "str")
    message = _MESSAGES.get(err["type"]) or str(err["msg"]).removeprefix("Value error, ")
    return index, f"{field or '(record)'}: {message}"


@dataclass(frozen=True)
class ParsedExport:
    """PRs from one or more exports, in input order, and how many records were skipped as invalid."""

    prs: list[PullRequest]
    skipped: int


def parse_records(data: Any, source: str, *, skip_invalid: bool = False) -> ParsedExport:
    """Validate a decoded gh export (a list of dicts) into domain PRs.

    Raises:
        InputError: ``data`` is not a list, or (without ``skip_invalid``) a record is invalid; the
            message names the source, the record's index in the array (0-based) and the field,
            e.g. ``invalid record 17 in week.json: mergedAt: not a date``.
    """
    if not isinstance(data, list):
        raise InputError(f"{source}: expected a JSON array of PR records (gh pr list --json ...), got {type(data).__name__}")
    try:
        records = _RECORDS.validate_python(data)
        return ParsedExport([r.to_pull_request() for r in records], 0)
    except ValidationError as exc:
        if not skip_invalid:
            index, what = _describe(exc.errors()[0])
            where = f"record {index}" if index is not None else "record"
            raise InputError(f"invalid {where} in {source}: {what} (fix the record or pass --skip-invalid)") from None
    prs: list[PullRequest] = []
    skipped = 0
    for item in data:
        try:
            prs.append(_RECORD.validate_python(item).to_pull_request())
        except ValidationError:
            skipped += 1
    return ParsedExport(prs, skipped)


def read_export(path: str, *, stdin: Any = None) -> Any:
    """Read and decode one export: a path (``.gz`` decompressed) or ``-`` for standard input.

    Raises:
        InputError: unreadable, not gzip when named ``.gz``, or not JSON (with line and column).
    """
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = stream.read()
        else:
            raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{name}: no such file: check the --input path") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory: pass a JSON file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read it ({exc.strerror or exc})") from None
    if path.endswith(".gz") or raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error):
            raise InputError(f"{name}: not a valid gzip file") from None
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None


def load_exports(paths: Iterable[str], *, skip_invalid: bool = False, stdin: Any = None) -> ParsedExport:
    """Read, validate and concatenate several exports (``--input`` repeated), in order.

    Raises:
        InputError: as :func:`read_export` and :func:`parse_records`.
    """
    prs: list[PullRequest] = []
    skipped = 0
    for path in paths:
        parsed = parse_records(read_export(path, stdin=stdin), "<stdin>" if path == "-" else path,
                               skip_invalid=skip_invalid)
        prs.extend(parsed.prs)
        skipped += parsed.skipped
    return ParsedExport(prs, skipped)
