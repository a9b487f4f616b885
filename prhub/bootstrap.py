"""Wiring: from command-line choices to concrete sources, rules and services.

The only place that knows every package; importing it connects to nothing.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from importlib import resources
from pathlib import Path

from adapters.export.ghjson import ParsedExport, load_exports
from prhub.clock import SYSTEM_CLOCK
from chatbot.digest import input_window, repo_from_urls
from chatbot.models import PullRequest
from chatbot.weeks import IsoWeek, load_zone
from chatbot.errors import InputError
from chatbot.fetching import WeekFetchOutcome, fetch_weeks
from chatbot.rules import Rules, default_rules_for, load_rules
from prhub.options import SAMPLE_WEEK, DigestSource  # noqa: F401  (re-exported: bootstrap.DigestSource)

if TYPE_CHECKING:  # PyGithub is imported only when the GitHub source is used
    from adapters.github.source import GitHubPullRequestSource
    from adapters.storage import SqlStore  # SQLAlchemy and Alembic load only when the store is used

_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def sample_path() -> Path:
    """Path of the real vLLM week shipped with prhub (``prhub/data/2026-W20.json``)."""
    return Path(str(resources.files("prhub").joinpath("data", f"{SAMPLE_WEEK}.json")))


def check_repo(repo: str) -> str:
    """Validate an ``owner/name`` repository name.

    Raises:
        InputError: not of that form.
    """
    if not _REPO_RE.match(repo):
        raise InputError(f"invalid repository {repo!r}: use owner/name, e.g. vllm-project/vllm")
    return repo


def rules_for(repo: str, rules_file: str | None) -> Rules:
    """The rules file given with ``--rules``, else the shipped rules for ``repo`` (generic for others)."""
    if rules_file:
        return load_rules(rules_file)
    return default_rules_for(repo)


def read_inputs(paths: list[str], *, sample: bool, skip_invalid: bool) -> ParsedExport:
    """PRs from ``--input`` files (and the shipped sample week with ``--sample``); records skipped
    as invalid (``skip_invalid``) are told on stderr in one line (:func:`skipped_line`).

    Raises:
        InputError: no input at all, an input that cannot be read or validated, or (skipping) no
            valid record left.
    """
    all_paths = list(paths)
    if sample:
        all_paths.insert(0, str(sample_path()))
    if not all_paths:
        raise InputError("no input: pass --input FILE (a gh pr list --json export) or --sample")
    parsed = load_exports(all_paths, skip_invalid=skip_invalid)
    if parsed.skipped:
        line = skipped_line(parsed)
        if not parsed.prs:
            raise InputError(f"no valid PR record in the input: {line}")
        sys.stderr.write(f"note: {line}\n")
    return parsed


def skipped_line(parsed: ParsedExport) -> str:
    """What the invalid records skipped were, in one line: how many of how many, the first one's
    place and fault, and the fix (``prhub ask`` and ``prhub digest --skip-invalid`` say it alike)."""
    n, total = parsed.skipped, parsed.skipped + len(parsed.prs)
    return (f"skipped {n} of {total} record{'' if total == 1 else 's'} as invalid (the first: {parsed.first_invalid}); "
            "fix them in the export (number, title and mergedAt are required) to include them")


# -- the PR store ----------------------------------------------------------------------------------

CONTEXT_DAYS = 7
"""Days before a digest's window whose PRs are read too: context for reverts and follow-up fixes."""


def digest_source(source: DigestSource | None, *, has_input: bool) -> DigestSource:
    """The ``--source`` given, else ``file`` when ``--input``/``--sample`` is given, else ``store``.

    Raises:
        InputError: ``--input``/``--sample`` together with a source that is not ``file``.
    """
    if source is None:
        return DigestSource.file if has_input else DigestSource.store
    if has_input and source is not DigestSource.file:
        raise InputError(f"--input/--sample read files: drop them or use --source file (not --source {source.value})")
    return source


def default_database_path() -> Path:
    """``$XDG_DATA_HOME/prhub/prhub.db`` (``~/.local/share/prhub/prhub.db`` when unset or relative)."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "prhub" / "prhub.db"


def database_url(db: str | None) -> str:
    """The store's URL: ``--db``, else ``PRHUB_DATABASE_URL``, else the default SQLite file.

    The default file's directory is created.

    Raises:
        InputError: the default directory cannot be created.
    """
    url = db or os.environ.get("PRHUB_DATABASE_URL")
    if url:
        return url
    path = default_database_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {path.parent} for the PR store ({exc.strerror or exc}): pass --db URL") from None
    return f"sqlite:///{path}"


def open_store(db: str | None, *, connections: int | None = None) -> SqlStore:
    """Open (and migrate to head) the PR store named by :func:`database_url`; ``connections``: the
    threads that use it at once (``prhub serve``: its HTTP threads and reply workers), which the
    connection pool keeps open (default SQLAlchemy's 5).

    Raises:
        adapters.storage.StoreError: bad URL (naming ``PRHUB_DATABASE_URL`` when it came from
            there), unreachable database (password masked).
    """
    from adapters.storage import SqlStore, StoreError

    url = database_url(db)
    try:
        return SqlStore.open(url, clock=SYSTEM_CLOCK, pool_size=connections)
    except StoreError as exc:
        if db or not exc.user_message.startswith("unsupported database URL"):
            raise
        raise StoreError(f"PRHUB_DATABASE_URL is invalid: {exc.user_message}") from None


def read_store(repo: str | None, week: IsoWeek | None, tz: str, *, db: str | None) -> tuple[IsoWeek, ParsedExport]:
    """PRs of ``repo`` for the digest of ``week`` from the store: the week's window in ``tz`` plus
    the :data:`CONTEXT_DAYS` before it and the ``LATER_DAYS`` after it (UTC instants,
    :func:`chatbot.digest.input_window`). Without ``week``, the newest stored week.

    Returns:
        The week and the PRs (``skipped`` is 0).

    Raises:
        InputError: no ``repo``; the store holds no PRs of ``repo``; the week has no stored PRs and
            no recorded fetch (it was never imported or fetched).
        adapters.storage.StoreError: the store cannot be opened or read.
    """
    if repo is None:
        raise InputError("no input: pass --input FILE (a gh pr list --json export), --sample, "
                         "or --repo owner/name to build from the PR store")
    zone = load_zone(tz)
    with open_store(db) as store:
        if week is None:
            newest = store.newest_merged_at(repo)
            if newest is None:
                raise InputError(f"the PR store {store.url} holds no PRs of {repo}: run prhub import FILE... first")
            week = IsoWeek.containing(newest, zone)
        start, end = week.utc_window(zone)
        prs = store.merged_between(repo, *input_window(week, zone))  # with later weeks: reverted_by, fixed_by
        if not any(start <= p.merged_at < end for p in prs) and store.week_fetch(repo, str(week), tz) is None:
            raise InputError(f"the PR store {store.url} has no PRs of {repo} merged in {week}: "
                             "import that week first (prhub import FILE...)")
    return week, ParsedExport(prs, 0)


@dataclass(frozen=True)
class ImportCount:
    """What ``prhub import`` did to one repository's PRs: distinct PRs read, rows inserted/updated."""

    repo: str
    prs: int
    inserted: int
    updated: int

    @property
    def unchanged(self) -> int:
        """PRs already stored exactly as read."""
        return self.prs - self.inserted - self.updated


IMPORT_CHUNK = 500
"""Records validated and written per batch by ``prhub import`` (memory per batch, not per file)."""


def import_exports(paths: list[str], *, repo: str | None, skip_invalid: bool, store: SqlStore) -> tuple[list[ImportCount], int]:
    """Stream gh-JSON exports into ``store``, upserted by (repo, number), in one transaction.

    Each PR's repository is ``repo`` when given, else its own URL's, else the most common one of its
    file. Records are read one at a time (:func:`adapters.export.ghjson.iter_export`) and written in
    batches of :data:`IMPORT_CHUNK`, so memory does not grow with the input; a record whose raw SHA-256
    (:func:`~adapters.export.ghjson.record_sha256`) equals the one its row was imported from is skipped
    before validation or encoding. An invalid record (without ``skip_invalid``) rolls the whole import
    back: nothing is written. Records sharing a number are one PR (the later wins).

    Returns:
        Counts per repository (sorted by name) and the number of invalid records skipped.

    Raises:
        InputError: a file cannot be read or validated, or a PR's repository cannot be told.
        adapters.storage.StoreError: the store cannot write.
    """
    from adapters.export.ghjson import iter_export

    if not paths:
        raise InputError("no files: pass one or more gh pr list --json exports")
    with store.writer() as writer:
        importer = _Importer(writer, repo, skip_invalid)
        for path in paths:
            importer.read_file(path, iter_export(path))
    return importer.counts(), importer.skipped


class _Importer:
    """The state of one streamed import: per repository the numbers seen and the counts."""

    def __init__(self, writer: Any, repo: str | None, skip_invalid: bool) -> None:
        self.writer = writer
        self.repo = check_repo(repo) if repo else None
        self.skip_invalid = skip_invalid
        self.skipped = 0
        self.seen: dict[str, dict[int, str]] = {}  # repo -> number -> inserted | updated | unchanged

    def read_file(self, path: str, records: Any) -> None:
        from collections import Counter

        from chatbot.digest import repo_of_url

        name = "<stdin>" if path == "-" else path
        repos: Counter[str] = Counter()
        orphans: list[tuple[int, Any]] = []  # records without a URL, kept until the file's repository is known
        batch: dict[str, list[tuple[int, Any]]] = {}
        size = 0
        for index, rec in enumerate(records):
            url = rec.get("url") if isinstance(rec, dict) else None
            own = repo_of_url(url) if isinstance(url, str) else None
            if own is not None:
                repos[own] += 1
            target = self.repo or own
            if target is None:
                orphans.append((index, rec))
                continue
            batch.setdefault(target, []).append((index, rec))
            size += 1
            if size >= IMPORT_CHUNK:
                self._flush(batch, name)
                batch, size = {}, 0
        self._flush(batch, name)
        if orphans:
            if not repos:
                from adapters.export.ghjson import validate_record

                for index, rec in orphans:  # a bad record is reported before the missing repository
                    try:
                        validate_record(rec, index, name)
                    except InputError as exc:
                        if not self.skip_invalid:
                            raise InputError(f"{exc.user_message} (fix the record or pass --skip-invalid)") from None
                raise InputError(f"{path}: cannot tell the repository (its PRs have no URLs): pass --repo owner/name")
            file_repo = min(repos, key=lambda r: (-repos[r], r))
            for i in range(0, len(orphans), IMPORT_CHUNK):
                self._flush({file_repo: orphans[i:i + IMPORT_CHUNK]}, name)

    def _flush(self, batch: dict[str, list[tuple[int, Any]]], name: str) -> None:
        from adapters.export.ghjson import record_sha256, validate_record

        for target, items in batch.items():
            repo = check_repo(target)
            latest: dict[Any, tuple[int, Any, str]] = {}
            for index, rec in items:  # the later record of a number wins
                number = rec.get("number") if isinstance(rec, dict) else None
                key = number if type(number) is int else ("invalid", index)
                latest.pop(key, None)
                latest[key] = (index, rec, record_sha256(rec))
            stored = self.writer.source_hashes(repo, [k for k in latest if type(k) is int])
            seen = self.seen.setdefault(repo, {})
            todo: list[tuple[PullRequest, str]] = []
            for key, (index, rec, digest) in latest.items():
                if type(key) is int and key in stored and stored[key] == digest:
                    seen.setdefault(key, "unchanged")  # imported before from this record: nothing to validate or write
                    continue
                try:
                    pr = validate_record(rec, index, name)
                except InputError as exc:
                    self.skipped += 1
                    if not self.skip_invalid:
                        raise InputError(f"{exc.user_message} (fix the record or pass --skip-invalid)") from None
                    continue
                todo.append((pr, digest))
            outcomes = self.writer.upsert(repo, todo)
            for (pr, _), outcome in zip(todo, outcomes):
                before = seen.get(pr.number)
                if before is None or (before == "unchanged" and outcome != "unchanged"):
                    seen[pr.number] = "updated" if before == "unchanged" else outcome
                # a number written earlier in this import keeps its first outcome (the later record wins the row)

    def counts(self) -> list[ImportCount]:
        out = []
        for r in sorted(self.seen):
            states = list(self.seen[r].values())
            out.append(ImportCount(r, len(states), states.count("inserted"), states.count("updated")))
        return out


# -- the GitHub source -----------------------------------------------------------------------------

GITHUB_TOKEN_ENV = "GITHUB_TOKEN"
GITHUB_URL_ENV = "GITHUB_API_URL"


GITHUB_POINTS_ENV = "PRHUB_GITHUB_POINTS_BUDGET"


def points_budget(value: int | None = None) -> int:
    """The GraphQL points budget per hour: ``value`` (``--points-budget``), else
    ``PRHUB_GITHUB_POINTS_BUDGET``, else 1,000.

    Raises:
        InputError: not a whole number from 1 to 10,000 (one line naming the option or variable).
    """
    from adapters.github.points import DEFAULT_POINTS_BUDGET, check_budget

    if value is not None:
        return check_budget(value, "--points-budget")
    env = os.environ.get(GITHUB_POINTS_ENV, "").strip()
    return check_budget(env, GITHUB_POINTS_ENV) if env else DEFAULT_POINTS_BUDGET


def github_source(*, base_url: str | None = None, progress: Callable[[Any], None] | None = None,
                  patches: bool = False, points: int | None = None, wait_for_points: bool = False) -> GitHubPullRequestSource:
    """The GitHub source: token from ``GITHUB_TOKEN``, base URL from ``base_url``, else
    ``GITHUB_API_URL``, else ``https://api.github.com`` (Enterprise: ``https://HOST/api/v3``);
    GraphQL points budget from :func:`points_budget` (``points``, else the environment); with
    ``wait_for_points`` a spent budget waits for GitHub's reset however far (``prhub fetch``), else
    at most the retry policy's cap (the bot's jobs: then a rate-limit error, retried by the job).

    Raises:
        InputError: ``GITHUB_TOKEN`` is not set (GitHub's GraphQL API needs a token), a bad URL or budget.
    """
    from adapters.github.source import GitHubPullRequestSource
    from adapters.github.transport import DEFAULT_BASE_URL as DEFAULT_GITHUB_URL

    token = os.environ.get(GITHUB_TOKEN_ENV, "").strip()
    if not token:
        raise InputError(f"set {GITHUB_TOKEN_ENV} to a GitHub token with read access to the repository "
                         "(GitHub's GraphQL API needs one)")
    url = base_url or os.environ.get(GITHUB_URL_ENV) or DEFAULT_GITHUB_URL
    if not re.match(r"^https?://[^/\s:]+(:\d+)?(/\S*)?$", url):
        where = "--github-url" if base_url else GITHUB_URL_ENV
        raise InputError(f"{where} {url!r} is not an http(s) URL: use e.g. https://api.github.com "
                         "or https://HOST/api/v3 for GitHub Enterprise")
    return GitHubPullRequestSource(token, clock=SYSTEM_CLOCK, base_url=url, progress=progress, patches=patches,
                                   points_budget=points_budget(points), wait_for_budget=wait_for_points)


def read_store_range(repo: str, weeks: list[IsoWeek], tz: str, *, db: str | None) -> ParsedExport:
    """PRs of ``repo`` for the digests of ``weeks`` (consecutive) from the store, in one query: the range's
    window in ``tz`` plus the :data:`CONTEXT_DAYS` before it.

    Raises:
        InputError: the store holds no PR of ``repo`` merged in the range.
        adapters.storage.StoreError: the store cannot be opened or read.
    """
    zone = load_zone(tz)
    start, end = weeks[0].utc_window(zone)[0], weeks[-1].utc_window(zone)[1]
    with open_store(db) as store:
        prs = store.merged_between(repo, start - timedelta(days=CONTEXT_DAYS), end)
        if not any(start <= p.merged_at < end for p in prs):
            raise InputError(f"the PR store {store.url} has no PRs of {repo} merged in {weeks[0]}..{weeks[-1]}: "
                             "import those weeks first (prhub import FILE... or prhub fetch --from --to)")
    return ParsedExport(prs, 0)


def week_range(first: IsoWeek, last: IsoWeek) -> list[IsoWeek]:
    """Weeks ``first`` .. ``last`` inclusive.

    Raises:
        InputError: ``last`` is before ``first``, or the range is longer than 520 weeks.
    """
    if last < first:
        raise InputError(f"--to {last} is before --from {first}")
    weeks = [first]
    while weeks[-1] < last:
        weeks.append(weeks[-1].next())
        if len(weeks) > 520:
            raise InputError("--from/--to span more than 520 weeks: fetch in smaller ranges")
    return weeks


def fetch_github_weeks(repo: str, weeks: list[IsoWeek], tz: str, *, db: str | None, refresh: bool = False,
                       base_url: str | None = None, patches: bool = False, points: int | None = None,
                       wait_for_points: bool = False,
                       on_week: Callable[[WeekFetchOutcome], None] | None = None) -> list[WeekFetchOutcome]:
    """``prhub fetch``: each week from GitHub into the store (final weeks: 0 requests), with progress.

    Raises:
        InputError: no ``GITHUB_TOKEN``, bad repo/zone.
        RateLimitedError / SourcePermissionError / SourceError / StoreError: see the adapters.
    """
    from prhub.progress import fetch_progress

    load_zone(tz)
    outcomes = []
    label = f"{repo} {weeks[0]}" + (f"..{weeks[-1]}" if len(weeks) > 1 else "")
    with open_store(db) as store, fetch_progress(label) as cb:
        # one source: the page size and the points budget carry over between weeks
        source = github_source(base_url=base_url, progress=cb, patches=patches, points=points,
                               wait_for_points=wait_for_points)
        for outcome in fetch_weeks(source, store, repo, weeks, tz, refresh=refresh, clock=SYSTEM_CLOCK):
            outcomes.append(outcome)
            if on_week is not None:
                on_week(outcome)
    return outcomes


def read_github(repo: str | None, week: IsoWeek | None, tz: str, *, db: str | None, refresh: bool = False) -> tuple[IsoWeek, ParsedExport]:
    """``prhub digest --source github``: fetch the week into the store (0 requests when final), then
    read it with :func:`read_store` (the week plus its context days).

    Raises:
        InputError: no ``--repo`` or ``--week``, or no ``GITHUB_TOKEN``.
        RateLimitedError / SourcePermissionError / SourceError / StoreError: see the adapters.
    """
    if repo is None or week is None:
        raise InputError("--source github needs --repo owner/name and --week YYYY-Www")
    fetch_github_weeks(check_repo(repo), [week], tz, db=db, refresh=refresh)
    return read_store(repo, week, tz, db=db)
