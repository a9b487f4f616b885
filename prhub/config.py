"""The one configuration of prhub: one YAML file for everything that is not a secret, the
environment for the secrets.

``load(path)`` reads both and gives a :class:`Config`:

* the file, named by ``--config FILE`` or ``PRHUB_CONFIG``: repositories (rules, week zone, schedule,
  destinations), admins, subscriptions, delivery, server, the LLM writer and ``chat:`` (the chat
  bot's public URL, default language, platform API URLs, connection modes, event retention). The
  models live in :mod:`scheduler.config` and here (``extra="forbid"``: a misspelt key is an error
  naming it and its line);
* the environment (pydantic-settings, :class:`Settings`): the secrets — ``SLACK_BOT_TOKEN``,
  ``SLACK_SIGNING_SECRET``, ``SLACK_APP_TOKEN``, ``FEISHU_APP_ID``/``FEISHU_APP_SECRET``,
  ``FEISHU_VERIFICATION_TOKEN``, ``FEISHU_ENCRYPT_KEY``, ``GITHUB_WEBHOOK_SECRET``, the LLM key,
  ``PRHUB_DATABASE_URL`` — and, for a deployment without a file, the documented variables of the
  ``chat:`` keys (``PRHUB_PUBLIC_URL``, ``PRHUB_DEFAULT_LANG``, ``SLACK_API_URL`` ...).

Precedence: an environment variable wins over the file's ``chat:`` key it names, which wins over the
default. A secret in the file is an error (the file is not a secret store). Without a file (chat
only: ``prhub web``/tests), ``PRHUB_DEFAULT_REPO`` (default vllm-project/vllm) and ``PRHUB_TZ``
(default UTC) make a one-repository configuration with the shipped rules; with a file they are
not used — the chat serves every ``repositories[]`` entry with its ``rules`` and ``week_tz``.

Destinations may be written ``{<platform>: <target>, lang: zh}`` (``{slack: C0123}``,
``{feishu: oc_...}``), expanded here to ``{platform: slack, target: C0123, lang: zh}``; every
destination's ``platform`` and every ``admins`` key must be a registered platform
(:mod:`prhub.platforms`).

Every problem is one :class:`chatbot.errors.InputError` line (the CLI exits 2): what, where
(``FILE:LINE: key.path`` or the variable's name) and how to fix it; never a secret's value.
"""
from __future__ import annotations

import contextvars
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, InitSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from chatbot.admins import check_scoped
from chatbot.errors import InputError
from chatbot.i18n import DEFAULT_LANG, Lang
from chatbot.rules import Rules, default_rules_for, load_rules, shipped_rules, shipped_rules_names
from chatbot.weeks import load_zone
from chatbot.yamlfile import load_yaml
from adapters.platform import SettingsError, check_public_url
from prhub import platforms
from scheduler.config import BotConfig, DestinationConfig, LoadedConfig, RepositoryConfig

log = logging.getLogger(__name__)

CONFIG_ENV = "PRHUB_CONFIG"
"""Environment variable naming the config file when ``--config`` is not given."""

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")

def secret_fields() -> frozenset[str]:
    """Settings that are secrets (``SecretStr`` fields of :func:`settings_class`, the platforms'
    included): environment only, never shown."""
    return frozenset(n for n, f in settings_class().model_fields.items() if "SecretStr" in repr(f.annotation))


# -- the file's chat: section ----------------------------------------------------------------------


class ChatSection(BaseModel):
    """``chat:`` in the config file: the chat bot's settings that are not secrets. Each key has an
    environment variable that wins over it (named in brackets).

    Attributes:
        public_url: base of "Full report" links and of HTTP-mode request URLs (``PRHUB_PUBLIC_URL``).
        default_lang: language of answers that give no words to tell it by (``PRHUB_DEFAULT_LANG``).
        event_retention_hours: how long inbound event ids are remembered, hours, >= 7
            (``PRHUB_EVENT_RETENTION_HOURS``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    public_url: str | None = None
    default_lang: Lang | None = None
    event_retention_hours: float | None = Field(default=None, ge=7.0, le=24 * 30)

    def as_settings(self) -> dict[str, Any]:
        """The keys given, under their :class:`Settings` field names."""
        fields = chat_fields()
        return {fields[k]: v for k, v in self.model_dump(exclude_none=True).items()}


_CORE_CHAT_FIELDS = {"public_url": "prhub_public_url", "default_lang": "prhub_default_lang",
                     "event_retention_hours": "prhub_event_retention_hours"}


def chat_fields() -> dict[str, str]:
    """Every ``chat:`` key of the file -> the :class:`Settings` field it sets: the core's, then each
    registered platform's (``Platform.chat_keys``)."""
    out = dict(_CORE_CHAT_FIELDS)
    for p in platforms.registry().values():
        out.update(p.chat_keys)
    return out


class FileConfig(BotConfig):
    """The whole config file: :class:`scheduler.config.BotConfig` (what the scheduler reads) and the
    chat bot's ``chat:`` section."""

    chat: ChatSection = ChatSection()


# -- the environment ---------------------------------------------------------------------------------


class Settings(BaseSettings):
    """The environment's settings (pydantic-settings): every field is read from the variable of the
    same name in upper case (``PRHUB_PUBLIC_URL``...), over the file's ``chat:`` keys
    (:meth:`ChatSection.as_settings`, handed in by :func:`load_settings`). The core's fields are
    here; each platform's (``SLACK_BOT_TOKEN``...) come from its settings class, a base of
    :func:`settings_class`, which :func:`load_settings` builds.

    Secrets are :class:`pydantic.SecretStr`: their repr is ``'**********'`` and no error, log line or
    card ever shows their value. ``PRHUB_DEFAULT_REPO``/``PRHUB_TZ`` are used only without a config
    file (:func:`chat_repositories`).
    """

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", frozen=True, env_ignore_empty=True)

    github_webhook_secret: SecretStr | None = None
    prhub_public_url: str | None = None
    prhub_default_repo: str = "vllm-project/vllm"
    prhub_default_lang: Lang = DEFAULT_LANG
    prhub_tz: str = "UTC"
    prhub_database_url: str | None = None
    prhub_event_retention_hours: float = Field(default=8.0, ge=7.0, le=24 * 30)

    @field_validator("prhub_public_url")
    @classmethod
    def _public_url(cls, v: str | None) -> str | None:
        try:
            return check_public_url(v)
        except InputError:
            raise ValueError("not an http(s) URL such as https://prhub.example.com") from None

    @field_validator("prhub_default_repo")
    @classmethod
    def _repo(cls, v: str) -> str:
        if not _REPO.match(v.strip()):
            raise ValueError("use owner/name, e.g. vllm-project/vllm")
        return v.strip()

    @field_validator("prhub_tz")
    @classmethod
    def _tz(cls, v: str) -> str:
        try:
            load_zone(v)
        except InputError:
            raise ValueError("not a known IANA time zone such as Asia/Shanghai") from None
        return v

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # constructor values (tests) > the environment > the file's chat: keys > defaults
        return (init_settings, env_settings, InitSettingsSource(settings_cls, init_kwargs=dict(_FILE_VALUES.get())))

    # -- derived -------------------------------------------------------------------------------

    def require(self, *names: str) -> None:
        """Check that settings are present.

        Args:
            names: field names (``slack_bot_token``) or variable names (``SLACK_BOT_TOKEN``).

        Raises:
            SettingsError: the first one missing, named as its environment variable.
        """
        for name in names:
            value = getattr(self, name.lower())
            if value is None or value == "" or (isinstance(value, SecretStr) and not value.get_secret_value()):
                raise SettingsError(f"{name.upper()} is not set: export it")

    def admins(self, platform: str) -> frozenset[str]:
        """User ids allowed to subscribe a channel on ``platform`` (its ``Platform.admins``).

        Raises:
            chatbot.errors.InputError: no such platform.
        """
        return platforms.get(platform).admins(self)

    def secret(self, name: str) -> str:
        """The plain value of a secret field (``""`` when unset); only for handing to an SDK."""
        value = getattr(self, name)
        return value.get_secret_value() if isinstance(value, SecretStr) else ""


_COMPOSED: dict[tuple[type, ...], type[Settings]] = {}


def settings_class() -> type[Settings]:
    """:class:`Settings` with every registered platform's settings class as a base
    (``Platform.settings``: ``SlackSettings`` brings ``SLACK_BOT_TOKEN``...), built once per set of
    platforms; :func:`load_settings` instantiates it."""
    mixins = tuple(p.settings() for p in platforms.registry().values() if p.settings is not None)
    cls = _COMPOSED.get(mixins)
    if cls is None:
        cls = _COMPOSED[mixins] = type("Settings", (Settings, *mixins), {"__module__": __name__})
    return cls


_FILE_CONFIGS: dict[tuple[tuple[str, str], ...], type[FileConfig]] = {}


def file_config_class() -> type[FileConfig]:
    """:class:`FileConfig` whose ``chat:`` also takes every registered platform's keys
    (``Platform.chat_keys``, typed as the settings field each sets, optional), built once per set."""
    from pydantic import create_model

    keys = tuple((k, f) for p in platforms.registry().values() for k, f in p.chat_keys.items())
    cls = _FILE_CONFIGS.get(keys)
    if cls is None:
        fields = settings_class().model_fields
        doc = (ChatSection.__doc__ or "").rstrip() + "".join(
            f"\n        {k}: a chat platform's, sets ``{f.upper()}``." for k, f in keys)
        chat: Any = create_model("ChatSection", __base__=ChatSection, __doc__=doc,
                                 **{k: (fields[f].annotation | None, None) for k, f in keys})  # type: ignore[call-overload]
        cls = _FILE_CONFIGS[keys] = create_model("FileConfig", __base__=FileConfig, __doc__=FileConfig.__doc__,
                                                 chat=(chat, chat()))
    return cls




def _settings_message(err: Mapping[str, Any], from_file: Mapping[str, Any], source: str) -> str:
    loc = err.get("loc") or ("?",)
    field = str(loc[0])
    var = field.upper()
    if err.get("type") == "missing":
        return f"{var} is not set"
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if field in secret_fields():
        return f"{var} is invalid: {msg}"
    value = err.get("input")
    shown = f" {value!r}" if isinstance(value, (str, int, float)) and len(str(value)) <= 200 else ""
    if field in from_file and field not in {k.lower() for k, v in os.environ.items() if v}:
        key = {v: k for k, v in chat_fields().items()}[field]
        line = _line_of(_read(source), ("chat", key)) if source else None
        return f"config {source}{f':{line}' if line else ''}: chat.{key}{shown}: {msg} (or set {var})"
    return f"{var}{shown} is invalid: {msg}"


def load_settings(file_values: Mapping[str, Any] | None = None, *, source: str = "", **overrides: Any) -> Settings:
    """The environment's settings, over the file's ``chat:`` values.

    Args:
        file_values: :class:`Settings` field -> value from the config file (below the environment).
        source: the config file's name (errors about its values name it).
        overrides: values that win over both (tests).

    Raises:
        SettingsError: an invalid value; one line naming the variable (or ``chat.<key>`` of the file),
            never its value when it is a secret.
    """
    values = dict(file_values or {})
    token = _FILE_VALUES.set(values)
    try:
        return settings_class()(**overrides)
    except ValidationError as exc:
        raise SettingsError(_settings_message(exc.errors()[0], values, source)) from None
    finally:
        _FILE_VALUES.reset(token)


_FILE_VALUES: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("prhub_file_values", default={})
"""The file's ``chat:`` values while :func:`load_settings` builds a :class:`Settings`."""


# -- the file ----------------------------------------------------------------------------------------


def _loc(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(x) for x in loc) or "(top level)"


class _ConfigProblem(ValueError):
    def __init__(self, loc: tuple[int | str, ...], msg: str) -> None:
        super().__init__(msg)
        self.loc = loc
        self.msg = msg


def expand_destination(value: Any, loc: tuple[int | str, ...]) -> Any:
    """``{slack: C0123, lang: zh}`` -> ``{platform: slack, target: C0123, lang: zh}``; a mapping
    that already has ``platform`` (or is not a mapping) is returned as it is.

    Raises:
        _ConfigProblem: two platform keys, or neither ``platform`` nor a platform key.
    """
    if not isinstance(value, dict) or "platform" in value:
        return value
    keys = [k for k in value if k in platforms.registry()]
    if len(keys) != 1:
        choices = " or ".join(f"{n}: ID" for n in platforms.names())
        raise _ConfigProblem(loc, f"give exactly one of {choices} (or platform: NAME, target: ID)")
    out = {k: v for k, v in value.items() if k != keys[0]}
    return {"platform": keys[0], "target": value[keys[0]], **out}


def _prepare(data: dict[str, Any]) -> dict[str, Any]:
    repos = data.get("repositories")
    if isinstance(repos, list):
        data = dict(data, repositories=[
            dict(r, destinations=[expand_destination(d, ("repositories", i, "destinations", j))
                                  for j, d in enumerate(r["destinations"])])
            if isinstance(r, dict) and isinstance(r.get("destinations"), list) else r
            for i, r in enumerate(repos)])
    return data


def _check_platforms(cfg: BotConfig) -> None:
    for i, r in enumerate(cfg.repositories):
        for j, d in enumerate(r.destinations):
            if d.platform not in platforms.registry():
                raise _ConfigProblem(("repositories", i, "destinations", j, "platform"),
                                     f"unknown chat platform {d.platform!r} (known: {', '.join(platforms.names())})")
    for name, ids in cfg.admins.items():
        if name not in platforms.registry():
            raise _ConfigProblem(("admins", name), f"unknown chat platform (known: {', '.join(platforms.names())})")
        for i, x in enumerate(ids):
            try:
                check_scoped(x)
            except ValueError as exc:
                raise _ConfigProblem(("admins", name, i), str(exc)) from None


def _read(name: str) -> str:
    """The text of the config file ``name`` ("" when it cannot be read: only for error lines)."""
    try:
        return Path(name).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _line_of(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The 1-based line of the key path ``loc`` in YAML ``text`` (the deepest part found)."""
    try:
        node: Any = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if str(k.value) == str(part)), None)
            if hit is None:
                break
            line, node = hit[0].start_mark.line + 1, hit[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def parse_config(text: str, source: str) -> FileConfig:
    """Validate YAML ``text`` (named ``source`` in errors).

    Raises:
        InputError: invalid YAML or an invalid/unknown key (one line ``config FILE:LINE: key.path:
            what``, e.g. ``repositories.0.schedule.cron``), an unknown chat platform, or a secret
            written in the file.
    """
    try:
        data: Any = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"config {source}{where}: invalid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"config {source}: expected a mapping with repositories: at the top")

    def where(loc: tuple[int | str, ...]) -> str:
        line = _line_of(text, loc)
        return f"config {source}{f':{line}' if line else ''}: {_loc(loc)}"

    for key in data:
        if str(key).lower() in secret_fields() or str(key).lower() in {"github_token", "prhub_database_url"}:
            raise InputError(f"{where((key,))}: a secret does not belong in the file: remove it and "
                             f"export {str(key).upper()} instead")
    try:
        cfg = file_config_class().model_validate(_prepare(data))
        _check_platforms(cfg)
        return cfg
    except _ConfigProblem as exc:
        raise InputError(f"{where(exc.loc)}: {exc.msg}") from None
    except ValidationError as exc:
        errs = _faults(exc.errors())
        e = errs[0]
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key: check its spelling against config.example.yaml (prhub config schema lists every key)"
        elif e["type"] == "missing" and e["loc"] and e["loc"][-1] in MISSING_HINTS:
            msg = f"{msg}: add {MISSING_HINTS[e['loc'][-1]]}"
        more = f" (and {len(errs) - 1} more error{'s' if len(errs) > 2 else ''})" if len(errs) > 1 else ""
        raise InputError(f"{where(tuple(e['loc']))}: {msg}{more}") from None


MISSING_HINTS = {"schedule": 'schedule: {cron: "0 9 * * mon", timezone: UTC} (or {weekly: "mon 09:00"})',
                 "destinations": "destinations: [{slack: C0123456789}] (or {feishu: oc_...})",
                 "repo": "repo: owner/name"}
"""How to fix a required key that is missing, by key (shown after pydantic's "Field required")."""


def _faults(errs: list[Any]) -> list[Any]:
    """pydantic's errors as faults: an error at a location that is a prefix of another error's (a
    list left too short because an entry failed) is a consequence, not a fault of its own; a
    missing key is reported after the wrong values. Never empty when ``errs`` is not."""
    locs = [tuple(e["loc"]) for e in errs]
    own = [e for e, loc in zip(errs, locs) if not any(o != loc and o[:len(loc)] == loc for o in locs)]
    return sorted(own or errs, key=lambda e: e["type"] == "missing")


def config_path(path: str | Path | None) -> str:
    """``path``, else ``$PRHUB_CONFIG``, else ``""`` (no file)."""
    return str(path) if path else os.environ.get(CONFIG_ENV, "")


def load_config(path: str | Path | None) -> LoadedConfig:
    """Read and validate the config file ``path`` (else ``$PRHUB_CONFIG``).

    Raises:
        InputError: no path given, the file cannot be read, or it does not validate.
    """
    name = config_path(path)
    if not name:
        raise InputError(f"no config: pass --config FILE or set {CONFIG_ENV}")
    p = Path(name).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"config {name}: cannot read ({exc.strerror or exc}): check the path "
                         f"(--config or {CONFIG_ENV})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"config {name}: not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    return LoadedConfig(config=parse_config(text, name), base_dir=p.resolve().parent, source=name)


# -- the one configuration ---------------------------------------------------------------------------


def repo_rules(loaded: LoadedConfig, cfg: RepositoryConfig) -> Rules:
    """The repository's rules: a shipped rules name (``generic``), a file relative to the config, or
    the shipped rules for the repository.

    Raises:
        RulesError: the file cannot be read or does not validate.
    """
    if cfg.rules is None:
        return default_rules_for(cfg.repo)
    if cfg.rules in shipped_rules_names() and not loaded.resolve(cfg.rules).exists():
        return shipped_rules(cfg.rules)
    return load_rules(loaded.resolve(cfg.rules))


@dataclass(frozen=True)
class ChatRepository:
    """One repository the chat answers about.

    Attributes:
        repo: ``owner/name``.
        rules: its rules (the config's ``rules``, else the shipped ones).
        tz: IANA zone of its week windows (the config's ``week_tz``).
        destinations: ``(platform, target)`` of the chats bound to it: there, questions are about it.
        top_risks: risky PRs its risks answer shows (the config's ``cards.top_risks``, default 8).
    """

    repo: str
    rules: Rules
    tz: str
    destinations: tuple[tuple[str, str], ...] = ()
    top_risks: int = 8


@dataclass(frozen=True)
class Config:
    """The one configuration: the file (None without one) and the environment.

    Attributes:
        file: the validated config file and its directory, or None (chat only, zero-config).
        env: the environment's settings over the file's ``chat:`` keys, with the file's ``admins``
            added to each platform's (``Platform.admins_field``: ``PRHUB_SLACK_ADMINS``...).
    """

    file: LoadedConfig | None
    env: Settings

    @cached_property
    def chat_repositories(self) -> tuple[ChatRepository, ...]:
        """Every configured repository with its rules, zone and bound destinations, in file order
        (the first answers direct messages); without a file, ``PRHUB_DEFAULT_REPO`` with the shipped
        rules and ``PRHUB_TZ``.

        Raises:
            RulesError: a repository's rules file cannot be read or does not validate.
        """
        if self.file is None:
            repo = self.env.prhub_default_repo
            return (ChatRepository(repo=repo, rules=default_rules_for(repo), tz=self.env.prhub_tz),)
        return tuple(ChatRepository(repo=r.repo, rules=repo_rules(self.file, r), tz=r.week_tz,
                                    destinations=tuple((d.platform, d.target) for d in r.destinations),
                                    top_risks=r.cards.top_risks)
                     for r in self.file.config.repositories)


def settings_of(loaded: LoadedConfig | None, source: str = "") -> Settings:
    """The environment's settings over ``loaded``'s ``chat:`` keys, with its ``admins`` added.

    Raises:
        SettingsError: an invalid variable or ``chat:`` value.
    """
    if loaded is None:
        return load_settings()
    unused = [v for v in ("PRHUB_DEFAULT_REPO", "PRHUB_TZ") if os.environ.get(v)]
    if unused:
        log.warning("%s: not used with a config file (the chat serves its repositories, each in its week_tz)",
                    " and ".join(unused))
    cfg = loaded.config
    chat = cfg.chat.as_settings() if isinstance(cfg, FileConfig) else {}
    base = load_settings(chat, source=source or loaded.source or str(loaded.base_dir))
    admins = cfg.admins
    return base.model_copy(update={
        p.admins_field: tuple(dict.fromkeys((*getattr(base, p.admins_field), *admins.get(name, ()))))
        for name, p in platforms.registry().items() if p.admins_field})


def load(path: str | Path | None = None, *, require_file: bool = False) -> Config:
    """The one loader: the config file ``path`` (else ``$PRHUB_CONFIG``; none: zero-config) and the
    environment.

    Raises:
        InputError: ``require_file`` and no file named, or the file is unreadable or invalid.
        SettingsError: an invalid environment variable or ``chat:`` value.
    """
    loaded = load_config(path) if (require_file or config_path(path)) else None
    return Config(file=loaded, env=settings_of(loaded, config_path(path)))


def config_schema() -> dict[str, Any]:
    """The JSON schema of the config file (``prhub config schema``): destinations in either form
    (``{platform, target}`` or the ``{<platform>: <target>}`` shorthand), admins by platform."""
    schema = file_config_class().model_json_schema()
    defs = schema.setdefault("$defs", {})
    full = DestinationConfig.model_json_schema()
    extra = {k: v for k, v in full["properties"].items() if k not in ("platform", "target")}
    full["properties"]["platform"]["enum"] = list(platforms.names())
    shorthands = [{"type": "object", "additionalProperties": False, "required": [n],
                   "properties": {n: {"type": "string", "minLength": 1, "title": f"{n} target id"}, **extra}}
                  for n in platforms.names()]
    defs["DestinationConfig"] = {"title": "DestinationConfig", "description": full.get("description", ""),
                                 "anyOf": [{k: v for k, v in full.items() if k != "$defs"}, *shorthands]}
    schema["properties"]["admins"] = {
        "type": "object", "additionalProperties": False, "title": "Admins",
        "description": "Admin user ids per chat platform (told about failed deliveries; may subscribe channels).",
        "properties": {n: {"type": "array", "items": {"type": "string"}} for n in platforms.names()}}
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "prhub configuration"
    return schema
