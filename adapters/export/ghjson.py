"""The gh-JSON file source: ``gh pr list --json ...`` exports (plus ``coAuthors``) into domain PRs.

Input: a JSON array of records shaped like ``gh pr list --json number,title,author,mergedAt,url,
body,labels,files,additions,deletions,changedFiles,mergeCommit`` (see ../shared/README.md), optionally
with the PR thread: ``comments``, ``reviews`` and ``reviewThreads`` as lists (the threads export of
``../shared/data/vllm-threads/``; a ``comments`` count, as ``gh`` can give, is ignored). Required
per record: ``number`` (integer > 0), ``title`` (string), ``mergedAt`` (RFC 3339 with zone). Every
other field is optional; unknown fields are ignored. Files may be gzip-compressed (``.gz``) and
``-`` reads standard input.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import pickle
import sys
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from chatbot.errors import InputError
from chatbot.json_input import MAX_DEPTH, JsonDepthError, read_json
from chatbot.models import PullRequest

MAX_FILE_BYTES = 512 * 1024 * 1024
"""The largest export read whole (``prhub digest -i``; decompressed size for ``.gz``): 512 MiB, over
a thousand weeks of the threads export (a week of vLLM is 0.4 MB)."""
MAX_RECORD_BYTES = 16 * 1024 * 1024
"""The largest record ``prhub import`` streams (bytes of the file between its start and end, measured to
the reader's 64 KiB buffer): 16 MiB, 40× the largest PR thread of ../shared/data."""


_MISSING = object()

_RENAMED = {"merged_at": "mergedAt", "review_threads": "reviewThreads", "changed_files": "changedFiles", "co_authors": "coAuthors", "merge_commit": "mergeCommit"}

_MESSAGES = {
    "missing": "missing (required)",
    "int_type": "not an integer",
    "int_parsing": "not an integer",
    "string_type": "not a string",
    "greater_than": "must be greater than 0",
    "less_than_equal": "too large",
    "greater_than_equal": "must not be negative",
    "list_type": "not a list",
    "tuple_type": "not a list",
    "model_type": "not an object",
    "model_attributes_type": "not an object",
    "dict_type": "not an object",
    "bool_type": "not true/false",
    "bool_parsing": "not true/false",
    "datetime_parsing": "not a date",
    "datetime_from_date_parsing": "not a date",
    "datetime_type": "not a date",
    "timezone_aware": "date has no time zone (expected e.g. 2026-05-11T01:19:21Z)",
}


class _RecordError(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.text = f"{field}: {message}"


def _sum_files(files: Any, key: str) -> int | None:
    total = 0
    for f in files:
        v = f.get(key, 0) if isinstance(f, dict) else None
        if type(v) is not int:
            return None
        total += v
    return total


def normalize_record(rec: Any) -> dict[str, Any]:
    """Turn one gh record into the keyword shape of :class:`~chatbot.models.PullRequest`.

    Only known keys are copied (unknown ones are ignored); values keep their type so that
    validation reports wrong ones. Missing ``additions``/``deletions``/``changedFiles`` are
    derived from ``files``.

    Raises:
        _RecordError: the record is not an object, or ``mergedAt`` is not a string.
    """
    if not isinstance(rec, dict):
        raise _RecordError("(record)", "not an object")
    out: dict[str, Any] = {}
    for key in ("number", "title"):
        if key in rec:
            out[key] = rec[key]
    merged = rec.get("mergedAt", _MISSING)
    if merged is not _MISSING:
        if not isinstance(merged, str):
            raise _RecordError("mergedAt", "not a date")
        out["merged_at"] = merged
    for key in ("url", "body"):
        v = rec.get(key)
        if v is not None:
            out[key] = v
    author = rec.get("author")
    if isinstance(author, dict):
        a = {k: author[k] for k in ("login", "name", "is_bot") if k in author}
        login = a.get("login")
        if isinstance(login, str) and login.endswith("[bot]"):
            a["is_bot"] = True
        out["author"] = a
    elif author is not None:
        out["author"] = author
    labels = rec.get("labels")
    if isinstance(labels, list):
        out["labels"] = [lb.get("name") if isinstance(lb, dict) else lb for lb in labels]
    elif labels is not None:
        out["labels"] = labels
    files = rec.get("files")
    if isinstance(files, list):
        out["files"] = [{k: f[k] for k in ("path", "additions", "deletions") if k in f} if isinstance(f, dict) else f
                        for f in files]
    elif files is not None:
        out["files"] = files
    for src, dst in (("additions", "additions"), ("deletions", "deletions"), ("changedFiles", "changed_files")):
        v = rec.get(src)
        if v is not None:
            out[dst] = v
        elif isinstance(files, list):
            derived = len(files) if src == "changedFiles" else _sum_files(files, src)
            if derived is not None:
                out[dst] = derived
    co = rec.get("coAuthors")
    if co is not None:
        out["co_authors"] = co
    for src, dst in (("comments", "comments"), ("reviews", "reviews"), ("reviewThreads", "review_threads")):
        v = rec.get(src)
        if isinstance(v, list):
            out[dst] = [_THREAD_ITEMS[src](x) if isinstance(x, dict) else x for x in v]
        elif v is not None and not (src == "comments" and type(v) is int):
            out[dst] = v
    mc = rec.get("mergeCommit")
    if isinstance(mc, dict):
        if mc.get("oid") is not None:
            out["merge_commit"] = mc["oid"]
    elif mc is not None:
        out["merge_commit"] = mc
    return out


def _login(node: Any) -> tuple[str, bool]:
    """``(login, is_bot)`` of a thread actor ``{"login", "is_bot"}``; ("ghost", False) when absent."""
    if not isinstance(node, dict):
        return "ghost", False
    login = node.get("login")
    login = login if isinstance(login, str) and login else "ghost"
    return login, node.get("is_bot") is True or login.endswith("[bot]")


def _comment(c: dict[str, Any]) -> dict[str, Any]:
    login, bot = _login(c.get("author"))
    out: dict[str, Any] = {"author": login, "is_bot": bot, "body": c.get("body") or ""}
    when = _when(c.get("createdAt"))
    if when is not None:
        out["created_at"] = when
    return out


def _when(v: Any) -> Any:
    # Excerpts carry a date only ("2026-05-01"): read it as midnight UTC.
    if isinstance(v, str) and len(v) == 10:
        return f"{v}T00:00:00Z"
    return v


def _review(r: dict[str, Any]) -> dict[str, Any]:
    login, bot = _login(r.get("author"))
    out: dict[str, Any] = {"reviewer": login, "is_bot": bot, "body": r.get("body") or ""}
    if isinstance(r.get("state"), str):
        out["state"] = r["state"]
    when = _when(r.get("submittedAt"))
    if when is not None:
        out["submitted_at"] = when
    return out


def _thread(t: dict[str, Any]) -> dict[str, Any]:
    comments = [_comment(c) if isinstance(c, dict) else c for c in (t.get("comments") or [])]
    out: dict[str, Any] = {"comments": comments}
    for src, dst in (("path", "path"), ("line", "line"), ("isResolved", "is_resolved"), ("isOutdated", "is_outdated")):
        if t.get(src) is not None:
            out[dst] = t[src]
    first = comments[0] if comments and isinstance(comments[0], dict) else None
    if first is not None:
        out["author"] = first["author"]
        out["author_is_bot"] = first["is_bot"]
        out["first_comment"] = first["body"]
        if "created_at" in first:
            out["created_at"] = first["created_at"]
    return out


_THREAD_ITEMS = {"comments": _comment, "reviews": _review, "reviewThreads": _thread}


_PRS = TypeAdapter(list[PullRequest])
_PR = TypeAdapter(PullRequest)


def _describe(err: Any) -> tuple[int | None, str]:
    loc = list(err["loc"])
    index = loc.pop(0) if loc and isinstance(loc[0], int) else None
    field = ".".join(_RENAMED.get(p, p) if isinstance(p, str) else str(p) for p in loc)
    message = _MESSAGES.get(err["type"]) or str(err["msg"]).removeprefix("Value error, ")
    return index, f"{field or '(record)'}: {message}"


@dataclass(frozen=True)
class ParsedExport:
    """PRs from one or more exports, in input order, and how many records were skipped as invalid."""

    prs: list[PullRequest]
    skipped: int
    first_invalid: str = ""
    """Why the first skipped record was invalid, where: ``invalid record 17 in week.json: mergedAt:
    not a date`` (``""`` when none was skipped)."""


def _one(item: Any) -> PullRequest:
    return _PR.validate_python(normalize_record(item))


def parse_records(data: Any, source: str, *, skip_invalid: bool = False) -> ParsedExport:
    """Validate a decoded gh export (a list of dicts) into domain PRs, in one validation pass.

    Raises:
        InputError: ``data`` is not a list, or (without ``skip_invalid``) a record is invalid; the
            message names the source, the record's index in the array (0-based) and the field,
            e.g. ``invalid record 17 in week.json: mergedAt: not a date``.
    """
    if not isinstance(data, list):
        raise InputError(f"{source}: expected a JSON array of PR records (gh pr list --json ...), got {type(data).__name__}")
    error: str | None = None
    try:
        normalized = [normalize_record(item) for item in data]
        return ParsedExport(_PRS.validate_python(normalized), 0)
    except _RecordError:
        pass
    except ValidationError:
        pass
    prs: list[PullRequest] = []
    skipped = 0
    for index, item in enumerate(data):
        try:
            prs.append(_one(item))
        except _RecordError as exc:
            error = error or f"invalid record {index} in {source}: {exc.text}"
            skipped += 1
        except ValidationError as exc:
            error = error or f"invalid record {index} in {source}: {_describe(exc.errors()[0])[1]}"
            skipped += 1
        if error and not skip_invalid:
            raise InputError(f"{error} (fix the record or pass --skip-invalid)")
    return ParsedExport(prs, skipped, error or "")


@contextmanager
def _read_errors(name: str) -> Iterator[None]:
    """Turn the OS errors of opening or reading export ``name`` into one-line :class:`InputError`."""
    try:
        yield
    except FileNotFoundError:
        raise InputError(f"{name}: no such file: check the --input path") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory: pass a JSON file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read it ({exc.strerror or exc})") from None


def read_export(path: str, *, stdin: Any = None) -> Any:
    """Read and decode one export: a path (``.gz`` decompressed) or ``-`` for standard input, with
    :func:`chatbot.json_input.read_json` (at most :data:`MAX_DEPTH` levels deep and
    :data:`MAX_FILE_BYTES` long, decompressed).

    Raises:
        InputError: unreadable, too large, not gzip when named ``.gz``, nested too deep, or not JSON
            (with line and column).
    """
    name = "<stdin>" if path == "-" else path
    with _read_errors(name):
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = stream.read(MAX_FILE_BYTES + 1)
        else:
            with open(path, "rb") as f:
                raw = f.read(MAX_FILE_BYTES + 1)
    if path.endswith(".gz") or raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as gz:
                raw = gz.read(MAX_FILE_BYTES + 1)
        except (EOFError, OSError, zlib.error):
            raise InputError(f"{name}: not a valid gzip file") from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"{name}: over {MAX_FILE_BYTES // 2**20} MiB of JSON: split it into weeks "
                         "(one file per --input) or use prhub import, which streams")
    return read_json(raw, source=name, max_bytes=MAX_FILE_BYTES, hint="pass a PR export (gh pr list --json ...)")


IMPORT_FORMAT = "prhub-ghjson-1"
"""Salt of :func:`record_sha256`: bump it when :func:`normalize_record` or the PR model changes what a
raw record becomes, so that re-imports stop skipping records imported by an older prhub."""


def record_sha256(rec: Any) -> str:
    """SHA-256 (hex) of one raw export record as decoded: :data:`IMPORT_FORMAT` plus its pickle
    (protocol 4), computed once per record.

    Pickle is a faithful encoding of the decoded values (types kept: ``1``, ``1.0`` and ``true`` differ)
    and 4-8x cheaper than canonical JSON here, which is what makes a re-import cheap. Equal records
    decoded the same way hash equal; anything that changes the bytes (another key order, another
    parser's string sharing) can only make a record look changed, which costs a validation, never a
    wrong skip.
    """
    return hashlib.sha256(IMPORT_FORMAT.encode() + pickle.dumps(rec, protocol=4)).hexdigest()


def validate_record(item: Any, index: int, source: str) -> PullRequest:
    """One raw record as a domain PR.

    Raises:
        InputError: the record is invalid; the message names ``source``, the record's 0-based
            ``index`` and the field, as :func:`parse_records` (without the ``--skip-invalid`` hint).
    """
    try:
        return _one(item)
    except _RecordError as exc:
        raise InputError(f"invalid record {index} in {source}: {exc.text}") from None
    except ValidationError as exc:
        raise InputError(f"invalid record {index} in {source}: {_describe(exc.errors()[0])[1]}") from None


def _open_stream(path: str, stdin: Any) -> Any:
    with _read_errors("<stdin>" if path == "-" else path):
        raw = io.BufferedReader(stdin if stdin is not None else sys.stdin.buffer) if path == "-" else open(path, "rb")  # noqa: SIM115
    if path.endswith(".gz") or raw.peek(2)[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    return raw


class _CountingReader:
    """A binary stream that counts the bytes read from it (:func:`iter_export`'s record size guard)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.count = 0

    def read(self, n: int = -1) -> bytes:
        data: bytes = self.stream.read(n)
        self.count += len(data)
        return data


def _guarded(events: Iterator[tuple[str, Any]], counter: _CountingReader, name: str) -> Iterator[tuple[str, Any]]:
    """ijson's basic events, refused past :data:`MAX_DEPTH` levels of nesting or when one top-level
    record spans over :data:`MAX_RECORD_BYTES`. Building prefixes for events nested thousands deep
    cost memory in the square of the depth (issue 20: 200 KB of ``[`` took 21 GB), so the check runs
    on the basic events before ijson builds any prefix."""
    depth = 0
    record = -1
    start = 0
    for ev in events:
        kind = ev[0]
        if kind == "start_map" or kind == "start_array":
            depth += 1
            if depth == 2:
                record, start = record + 1, counter.count
            elif depth > MAX_DEPTH:
                raise JsonDepthError(f"{name}: record {record} is nested deeper than {MAX_DEPTH} levels: "
                                     "not a PR export (gh pr list --json ...)")
        elif kind == "end_map" or kind == "end_array":
            depth -= 1
        if depth >= 2 and counter.count - start > MAX_RECORD_BYTES:
            raise InputError(f"{name}: record {record} is over {MAX_RECORD_BYTES // 2**20} MiB: "
                             "not a PR export (gh pr list --json ...)")
        yield ev


def iter_export(path: str, *, stdin: Any = None) -> Iterator[Any]:
    """The raw records of one export (a JSON array), one at a time, without holding the file in memory
    (``ijson`` over the file or gzip stream): peak memory does not grow with the file, and a record
    nested deeper than :data:`MAX_DEPTH` levels or longer than :data:`MAX_RECORD_BYTES` is refused
    when reached (:func:`_guarded`).

    Records are what ``json.loads`` would give (ints stay ints, other numbers are floats).

    Raises:
        InputError: as :func:`read_export` (unreadable, bad gzip, not JSON, not an array, too deep, a
            record too large); the message of a JSON syntax error names its line and column. Raised
            when the bad part is reached: records before it have been yielded.
    """
    import ijson

    name = "<stdin>" if path == "-" else path
    stream = _open_stream(path, stdin)
    try:
        try:
            head = stream.peek(64) if hasattr(stream, "peek") else b""
        except (EOFError, OSError, zlib.error):
            raise InputError(f"{name}: not a valid gzip file") from None
        if head.lstrip()[:1] not in (b"[", b""):
            stream.close()
            if path == "-":  # the head is consumed: report what the start shows
                raise InputError(f"{name}: expected a JSON array of PR records (gh pr list --json ...)")
            parse_records(read_export(path), name)  # raises the exact error (not an array, bad JSON)
            raise InputError(f"{name}: expected a JSON array of PR records (gh pr list --json ...)")
        counter = _CountingReader(stream)
        try:
            events = _guarded(ijson.basic_parse(counter, use_float=True), counter, name)
            yield from ijson.items(ijson.parse(events), "item")
        except ijson.JSONError as exc:
            if path != "-":
                read_export(path)  # raises the message with line and column
            raise InputError(f"{name}: not valid JSON ({str(exc).splitlines()[0][:120]})") from None
        except UnicodeDecodeError:
            raise InputError(f"{name}: not UTF-8 JSON") from None
        except (EOFError, OSError, zlib.error):
            raise InputError(f"{name}: not a valid gzip file") from None
    finally:
        stream.close()


def load_exports(paths: Iterable[str], *, skip_invalid: bool = False, stdin: Any = None) -> ParsedExport:
    """Read, validate and concatenate several exports (``--input`` repeated), in order.

    Raises:
        InputError: as :func:`read_export` and :func:`parse_records`.
    """
    prs: list[PullRequest] = []
    skipped = 0
    first = ""
    for path in paths:
        parsed = parse_records(read_export(path, stdin=stdin), "<stdin>" if path == "-" else path,
                               skip_invalid=skip_invalid)
        prs.extend(parsed.prs)
        skipped += parsed.skipped
        first = first or parsed.first_invalid
    return ParsedExport(prs, skipped, first)
