"""The bot's configuration file: repositories, destinations, schedules, admins, delivery settings.

One YAML file (``--config FILE`` or ``PRHUB_CONFIG``) validated with pydantic (``extra="forbid"``:
a misspelt key is an error naming it). Secrets (tokens, signing secrets, database passwords) never
live here: they stay in the environment (see ``prhub/config.py`` ``Settings``).

Schedules are a 5-field crontab string with **crontab's** weekday numbering (0 or 7 = Sunday,
1 = Monday ... 6 = Saturday) or ``weekly: "mon 09:00"``. Numeric weekdays are mapped to names
before APScheduler sees them: APScheduler's own numbering is 0 = Monday, so
``CronTrigger.from_crontab("0 9 * * 1")`` would fire on Tuesdays (BR-11).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from apscheduler.triggers.cron import CronTrigger
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from chatbot.errors import InputError
from chatbot.i18n import DEFAULT_LANG, Lang
from chatbot.subscriptions import PLATFORM_NAME
from chatbot.yamlfile import load_yaml
from chatbot.weeks import load_zone

CONFIG_ENV = "PRHUB_CONFIG"
"""Environment variable naming the config file when ``--config`` is not given."""

DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
"""Crontab weekday numbers 0..6 as APScheduler's weekday names (7 is Sunday too)."""

_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_WEEKLY_RE = re.compile(r"^\s*([A-Za-z]{3})[a-z]*\s+(\d{1,2}):(\d{2})\s*$")



def _check_zone(v: str) -> str:
    try:
        load_zone(v)
    except InputError as exc:
        raise ValueError(exc.user_message) from None
    return v


Zone = Annotated[str, AfterValidator(_check_zone)]
"""An IANA time zone name, checked when the config loads."""

class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------------------------
# Crontab -> APScheduler CronTrigger
# --------------------------------------------------------------------------------------------


def _dow_number(token: str, expr: str) -> int:
    t = token.strip().lower()
    if t.isdigit():
        n = int(t)
        if not 0 <= n <= 7:
            raise ValueError(f"weekday {token!r} in {expr!r} is out of range: use 0-7 (0 and 7 = Sunday) or mon..sun")
        return n % 7
    if t[:3] in DAY_NAMES and len(t) >= 3:
        return DAY_NAMES.index(t[:3])
    raise ValueError(f"weekday {token!r} in {expr!r}: use 0-7 (0 and 7 = Sunday) or mon..sun")


def crontab_weekdays(expr: str) -> str:
    """A crontab day-of-week field as an APScheduler ``day_of_week`` expression of day names.

    Crontab numbering: 0 and 7 are Sunday, 1 Monday ... 6 Saturday; names (``mon``) are accepted.
    Lists, ranges and steps are expanded to an explicit comma list (``1-5`` ->
    ``mon,tue,wed,thu,fri``; ``*/2`` -> ``sun,tue,thu,sat``), so APScheduler's own numbering
    (0 = Monday) never applies.

    Raises:
        ValueError: a malformed field or a weekday out of range.
    """
    expr = expr.strip().lower()
    if expr in ("*", "?"):
        return "*"
    days: set[int] = set()
    for item in expr.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"empty item in weekday field {expr!r}")
        rng, _, step_s = item.partition("/")
        step = 1
        if step_s:
            if not step_s.isdigit() or int(step_s) < 1:
                raise ValueError(f"bad step {step_s!r} in weekday field {expr!r}")
            step = int(step_s)
        if rng == "*":
            lo, hi = 0, 6
        elif "-" in rng:
            a, b = rng.split("-", 1)
            lo, hi = _dow_number(a, expr), _dow_number(b, expr)
            if b.strip() == "7":
                hi = 7
            if hi < lo:
                raise ValueError(f"weekday range {rng!r} in {expr!r} runs backwards")
        else:
            lo = _dow_number(rng, expr)
            hi = 6 if step_s else lo
        days.update(n % 7 for n in range(lo, hi + 1, step))
    return ",".join(DAY_NAMES[d] for d in sorted(days, key=lambda d: (d - 1) % 7))


def cron_trigger(crontab: str, timezone: str) -> CronTrigger:
    """A :class:`CronTrigger` for a 5-field crontab string in IANA ``timezone`` (crontab weekdays).

    Raises:
        ValueError: not 5 fields, a bad field, both day-of-month and day-of-week restricted (crontab
            would OR them, APScheduler ANDs them: give one), or an unknown time zone.
    """
    fields = crontab.split()
    if len(fields) != 5:
        raise ValueError(f"crontab {crontab!r} must have 5 fields: minute hour day-of-month month day-of-week")
    minute, hour, dom, month, dow = fields
    if dom not in ("*", "?") and dow not in ("*", "?"):
        raise ValueError(f"crontab {crontab!r} restricts both day-of-month and day-of-week: give only one")
    try:
        zone = load_zone(timezone)
    except InputError as exc:
        raise ValueError(exc.user_message) from None
    try:
        return CronTrigger(minute=minute, hour=hour, day=dom, month=month, day_of_week=crontab_weekdays(dow), timezone=zone)
    except ValueError as exc:
        raise ValueError(f"crontab {crontab!r}: {exc}") from None


def weekly_crontab(weekly: str) -> str:
    """``"mon 09:00"`` as the crontab ``"0 9 * * mon"``.

    Raises:
        ValueError: not ``DAY HH:MM`` with a valid day name and time.
    """
    m = _WEEKLY_RE.match(weekly)
    if not m or m.group(1).lower() not in DAY_NAMES:
        raise ValueError(f"weekly {weekly!r}: use DAY HH:MM, e.g. 'mon 09:00'")
    hour, minute = int(m.group(2)), int(m.group(3))
    if hour > 23 or minute > 59:
        raise ValueError(f"weekly {weekly!r}: time out of range")
    return f"{minute} {hour} * * {m.group(1).lower()}"


# --------------------------------------------------------------------------------------------
# The file's models
# --------------------------------------------------------------------------------------------


class Schedule(_Model):
    """When a repository's digest is posted.

    Attributes:
        cron: 5-field crontab (crontab weekdays: 0/7 = Sunday, 1 = Monday), e.g. ``"0 9 * * 1"``.
        weekly: instead of ``cron``: ``"mon 09:00"``.
        timezone: IANA zone the schedule is read in (default ``UTC``).
        misfire_grace_seconds: a firing up to this late still runs (APScheduler ``misfire_grace_time``).
        catch_up_grace_seconds: at start, a missed firing whose week was not delivered runs once if
            it is at most this old; None (default): until the next firing.
    """

    cron: str | None = None
    weekly: str | None = None
    timezone: Zone = "UTC"
    misfire_grace_seconds: int = Field(default=3600, ge=1)
    catch_up_grace_seconds: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one(self) -> Schedule:
        if (self.cron is None) == (self.weekly is None):
            raise ValueError("give exactly one of cron (e.g. '0 9 * * 1') or weekly (e.g. 'mon 09:00')")
        self.trigger()  # validates
        return self

    @property
    def crontab(self) -> str:
        """The schedule as a crontab string (``weekly`` converted)."""
        return self.cron if self.cron is not None else weekly_crontab(self.weekly or "")

    def trigger(self) -> CronTrigger:
        """The APScheduler trigger (weekday numbers mapped to names).

        Raises:
            ValueError: an invalid schedule.
        """
        return cron_trigger(self.crontab, self.timezone)


class DestinationConfig(_Model):
    """One chat that receives a repository's digest.

    In the YAML file a destination is usually written in the shorthand ``{<platform>: <target>}``
    (``{slack: C0123}``); ``prhub/config.py`` expands it and checks ``platform`` against the
    platform registry (``prhub/platforms.py``) before this model sees it.

    Attributes:
        platform: the chat platform's registry name.
        target: the channel or chat id on that platform.
        lang: language of the cards (``en`` or ``zh``).
        workspace: the platform's workspace or tenant id (optional).
    """

    platform: str = Field(pattern=PLATFORM_NAME)
    target: str
    lang: Lang = DEFAULT_LANG
    workspace: str = ""

    @field_validator("target")
    @classmethod
    def _target(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("empty channel/chat id")
        return v


class CardsConfig(_Model):
    """How a repository's cards (weekly posts and chat answers) are cut.

    Attributes:
        top_risks: risky PRs shown with their reasons in the weekly digest's risk card and in the
            chat's risks answer ("8 of 102 shown"; the rest in the report), 1-50, default 8
            (issue 11, Build 5).
    """

    top_risks: int = Field(default=8, json_schema_extra={"minimum": 1, "maximum": 50})

    @field_validator("top_risks")
    @classmethod
    def _top_risks(cls, v: int) -> int:
        if not 1 <= v <= 50:
            raise ValueError(f"{v}: use 1-50 (risky PRs the weekly post and chat show; the rest are in the report)")
        return v


class RepositoryConfig(_Model):
    """One repository: where its PRs come from, its rules, its schedule and destinations.

    Attributes:
        repo: ``owner/name``.
        rules: rules YAML path (relative to the config file); default: the shipped rules for the repo.
        source: ``github`` (the GitHub API, token in ``GITHUB_TOKEN``) or ``file``.
        path: with ``source: file``: a gh-JSON export path pattern with ``{week}`` (``data/{week}.json``),
            relative to the config file.
        week_tz: IANA zone of the ISO-week windows (default ``UTC``).
        schedule: when the digest is posted.
        destinations: chats that receive it (at least one).
        sync_every_minutes: with ``source: github``, fetch the PRs merged since the last sync this
            often, so chat answers about the current week are current (0: off; default 60).
        approval: the weekly post goes to the admins first, as a preview with Approve / Skip, and
            is posted on approval (``scheduler/approval.py``).
        approval_deadline: with ``approval``: when the post goes out without a decision, as
            ``"Mon 12:00"`` (the first such time after the scheduled run, in the schedule's zone)
            or minutes after the scheduled run (``180``); None: only on approval.
        cards: how its cards are cut (``cards.top_risks``).
    """

    repo: str
    rules: str | None = None
    source: Literal["github", "file"] = "github"
    path: str | None = None
    week_tz: Zone = "UTC"
    schedule: Schedule
    destinations: tuple[DestinationConfig, ...] = Field(min_length=1)
    sync_every_minutes: int = Field(default=60, ge=0, le=24 * 60)
    approval: bool = False
    approval_deadline: str | int | None = None
    cards: CardsConfig = CardsConfig()

    @field_validator("approval_deadline")
    @classmethod
    def _deadline(cls, v: str | int | None) -> str | int | None:
        if isinstance(v, int) and not 1 <= v <= 7 * 24 * 60:
            raise ValueError(f"approval_deadline {v} minutes: use 1-10080 (a week), or a time like \"Mon 12:00\"")
        if isinstance(v, str):
            m = _WEEKLY_RE.match(v)
            if not m or m.group(1).lower() not in DAY_NAMES or int(m.group(2)) > 23 or int(m.group(3)) > 59:
                raise ValueError(f"approval_deadline {v!r}: use a weekday and a time like \"Mon 12:00\", or minutes (180)")
        return v

    @field_validator("repo")
    @classmethod
    def _repo(cls, v: str) -> str:
        if not _REPO_RE.match(v):
            raise ValueError(f"{v!r} is not owner/name")
        return v

    @model_validator(mode="after")
    def _source(self) -> RepositoryConfig:
        if self.source == "file":
            if not self.path or "{week}" not in self.path:
                raise ValueError("source: file needs path: a pattern with {week}, e.g. data/{week}.json")
        elif self.path is not None:
            raise ValueError("path is only for source: file")
        if self.approval_deadline is not None and not self.approval:
            raise ValueError("approval_deadline is only for approval: true")
        return self

    @property
    def job_id(self) -> str:
        """The stable APScheduler job id ``digest:<owner>/<name>``."""
        return f"digest:{self.repo}"


class SubscriptionSettings(_Model):
    """Per-module subscription slices sent after the weekly post.

    Attributes:
        enabled: send slices at all.
        when_empty: ``skip`` (default) or ``send`` a "nothing in your modules" message when a
            subscriber's modules had no PRs that week.
        lang: language of slices (default: the language of the repository's first destination on
            the subscriber's platform, else ``en``).
    """

    enabled: bool = True
    when_empty: Literal["skip", "send"] = "skip"
    lang: Lang | None = None


class DeliverySettings(_Model):
    """Retries and the delivery log.

    Attributes:
        max_attempts: platform calls per message part at most (429/5xx/timeouts are retried).
        backoff_seconds: first wait when the platform gave no ``Retry-After`` (doubles each time).
        max_backoff_seconds: cap of that wait.
        max_retry_after_seconds: a ``Retry-After`` longer than this gives up (failed, not waited).
        lease_seconds: a ``sending`` row untouched this long belongs to a dead process and is taken over.
        heartbeat_seconds: while a part waits out a ``Retry-After`` or backoff, its owner renews the
            lease this often (default: a third of ``lease_seconds``).
        reconcile_seconds: how often ``prhub serve`` looks for stale ``sending`` parts (a dead
            process's, or handed back at shutdown) and sends those the platform does not have (0: never).
        github_retry_margin_seconds: delay after a GitHub rate-limit reset before the one retry.
    """

    max_attempts: int = Field(default=4, ge=1, le=10)
    backoff_seconds: float = Field(default=1.0, ge=0)
    max_backoff_seconds: float = Field(default=60.0, ge=0)
    max_retry_after_seconds: float = Field(default=300.0, ge=0)
    lease_seconds: float = Field(default=600.0, ge=1)
    heartbeat_seconds: float | None = Field(default=None, gt=0)
    reconcile_seconds: float = Field(default=300.0, ge=0)
    github_retry_margin_seconds: float = Field(default=30.0, ge=0)

    @model_validator(mode="after")
    def _beat(self) -> DeliverySettings:
        if self.heartbeat_seconds is not None and self.heartbeat_seconds >= self.lease_seconds:
            raise ValueError(f"heartbeat_seconds {self.heartbeat_seconds:g} must be under lease_seconds "
                             f"{self.lease_seconds:g} (default: a third of it)")
        return self


class ServerSettings(_Model):
    """``prhub serve``: where the HTTP server listens and what it accepts.

    Attributes:
        host, port: the listening address.
        threads: waitress worker threads.
        max_request_bytes: request body limit in bytes (default 1 MiB); a larger body is answered
            413 before it is read.
        platform_retry_seconds: first wait before a chat platform that could not be reached at
            start is tried again (doubling up to 300 s); the others start meanwhile.
        reply_workers: threads answering chat questions per platform (default 2 × ``threads``): a
            reply mostly waits on the store and the platform's API, so more workers than CPU cores
            keep the queue short (issue 20: 8 left 15–18% of a 20–50-sender crowd answered "busy").
        reply_queue: chat replies queued or running per platform at most (default 4 ×
            ``reply_workers``); when full, half the HTTP threads wait 0.5 s for a place, then the bot
            answers "busy, try again in a minute".
        connection_limit: connections held open at most (default 1,000; slow clients each hold one).
        request_deadline_seconds: a request must arrive whole (headers and body) within this many
            seconds of its first byte, else its connection is closed (default 10).
    """

    host: str = "0.0.0.0"
    port: int = Field(default=8080, ge=0, le=65535)
    threads: int = Field(default=8, ge=1, le=64)
    max_request_bytes: int = Field(default=1024 * 1024, ge=1024, le=64 * 1024 * 1024)
    platform_retry_seconds: float = Field(default=5.0, gt=0, le=300)
    reply_workers: int | None = Field(default=None, ge=1, le=256)
    reply_queue: int | None = Field(default=None, ge=1, le=10_000)
    connection_limit: int = Field(default=1000, ge=10, le=100_000)
    request_deadline_seconds: float = Field(default=10.0, gt=0, le=600)

    @property
    def workers(self) -> int:
        """Reply workers per platform: ``reply_workers``, else 2 × ``threads``."""
        return self.reply_workers or 2 * self.threads

    @property
    def queue(self) -> int:
        """Replies queued or running per platform at most: ``reply_queue``, else 4 × :attr:`workers`."""
        return self.reply_queue or 4 * self.workers


class LLMSettings(_Model):
    """The optional LLM writer (off when absent; the digest is complete without it).

    Args:
        base_url: an OpenAI-compatible API root (``http://127.0.0.1:8000/v1`` for ``vllm serve``).
        model: the served model name.
        api_key_env: the environment variable holding the key (never the key itself).
        timeout_s: wall-clock seconds per request (connect and the whole answer, not per read).
        budget_s: wall-clock seconds for all the model calls of one digest (per language); past it
            nothing more is asked and the rest is rule-written, so the model delays a post by at
            most this much.
        max_input_tokens: the prompt's budget in the model's tokens (counted by the server's
            ``/tokenize`` where it has one, else estimated; :mod:`chatbot.factsheet`).
        max_answer_bytes: the cap on one answer's HTTP body; a larger one is dropped unread.
    """

    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    api_key_env: str = Field(default="PRHUB_LLM_API_KEY", pattern=r"^[A-Z_][A-Z0-9_]*$")
    timeout_s: float = Field(default=60.0, gt=0, le=600)
    budget_s: float = Field(default=300.0, gt=0, le=3600)
    max_input_tokens: int = Field(default=8000, ge=1000, le=1_000_000)
    max_answer_bytes: int = Field(default=1024 * 1024, ge=4096, le=64 * 1024 * 1024)


class BotConfig(_Model):
    """The whole configuration file.

    Attributes:
        repositories: the repositories to digest (unique ``repo``).
        admins: admin ids per platform registry name, each scoped to its workspace
            (``WORKSPACE:USER``, see :mod:`chatbot.admins`; checked when the file loads).
        subscriptions: slice settings.
        delivery: retries and the delivery log.
        server: ``prhub serve`` listening address.
        llm: the optional LLM writer (None: rule-written text only).
    """

    repositories: tuple[RepositoryConfig, ...] = Field(min_length=1)
    admins: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    subscriptions: SubscriptionSettings = SubscriptionSettings()
    delivery: DeliverySettings = DeliverySettings()
    server: ServerSettings = ServerSettings()
    llm: LLMSettings | None = None

    @model_validator(mode="after")
    def _unique(self) -> BotConfig:
        seen: set[str] = set()
        for r in self.repositories:
            if r.repo in seen:
                raise ValueError(f"repository {r.repo} is listed twice")
            seen.add(r.repo)
        return self

    def repository(self, repo: str) -> RepositoryConfig:
        """The configured repository ``repo``.

        Raises:
            InputError: not in the config.
        """
        for r in self.repositories:
            if r.repo == repo:
                return r
        names = ", ".join(r.repo for r in self.repositories)
        raise InputError(f"repository {repo} is not in the config (configured: {names})")


class LoadedConfig(_Model):
    """A validated config, the directory its relative paths are resolved against and the file's
    name as given (for error lines; ``""`` when built in memory)."""

    config: BotConfig
    base_dir: Path
    source: str = ""

    def resolve(self, path: str) -> Path:
        """``path`` relative to the config file's directory (absolute paths unchanged)."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.base_dir / p
