"""The bot's configuration file, read and checked against the chat-platform registry.

One YAML file (``--config FILE`` or ``PRHUB_CONFIG``) holds everything that is not a secret:
repositories (rules, week zone, schedule, destinations), admins, subscriptions, delivery and
server settings; the models live in :mod:`scheduler.config` (``extra="forbid"``: a misspelt key is
an error naming it). Secrets stay in the environment (:mod:`prhub.settings`).

This module adds what only the wiring knows, the chat platforms (:mod:`prhub.platforms`):

* a destination may be written ``{<platform>: <target>, lang: zh}`` (``{slack: C0123}``,
  ``{feishu: oc_...}``), expanded here to ``{platform: slack, target: C0123, lang: zh}``;
* every destination's ``platform`` and every ``admins`` key must be a registered platform.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from chatbot.admins import check_scoped
from chatbot.errors import InputError
from chatbot.yamlfile import load_yaml
from prhub import platforms
from scheduler.config import BotConfig, DestinationConfig, LoadedConfig

CONFIG_ENV = "PRHUB_CONFIG"
"""Environment variable naming the config file when ``--config`` is not given."""


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
    keys = [k for k in value if k in platforms.PLATFORMS]
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
            if d.platform not in platforms.PLATFORMS:
                raise _ConfigProblem(("repositories", i, "destinations", j, "platform"),
                                     f"unknown chat platform {d.platform!r} (known: {', '.join(platforms.names())})")
    for name, ids in cfg.admins.items():
        if name not in platforms.PLATFORMS:
            raise _ConfigProblem(("admins", name), f"unknown chat platform (known: {', '.join(platforms.names())})")
        for i, x in enumerate(ids):
            try:
                check_scoped(x)
            except ValueError as exc:
                raise _ConfigProblem(("admins", name, i), str(exc)) from None


def parse_config(text: str, source: str) -> BotConfig:
    """Validate YAML ``text`` (named ``source`` in errors).

    Raises:
        InputError: invalid YAML or an invalid/unknown key (one line naming the key path, e.g.
            ``repositories.0.schedule.cron``), or an unknown chat platform.
    """
    try:
        data: Any = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"config {source}:{where} invalid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"config {source}: expected a mapping with repositories: at the top")
    try:
        cfg = BotConfig.model_validate(_prepare(data))
        _check_platforms(cfg)
        return cfg
    except _ConfigProblem as exc:
        raise InputError(f"config {source}: {_loc(exc.loc)}: {exc.msg}") from None
    except ValidationError as exc:
        errs = exc.errors()
        e = errs[0]
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        more = f" (and {len(errs) - 1} more errors)" if len(errs) > 1 else ""
        raise InputError(f"config {source}: {_loc(e['loc'])}: {msg}{more}") from None


def load_config(path: str | Path | None) -> LoadedConfig:
    """Read and validate the config file ``path`` (else ``$PRHUB_CONFIG``).

    Raises:
        InputError: no path given, the file cannot be read, or it does not validate.
    """
    name = str(path) if path else os.environ.get(CONFIG_ENV, "")
    if not name:
        raise InputError(f"no config: pass --config FILE or set {CONFIG_ENV}")
    p = Path(name).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"config {name}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"config {name}: not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    return LoadedConfig(config=parse_config(text, name), base_dir=p.resolve().parent)


def config_schema() -> dict[str, Any]:
    """The JSON schema of the config file (``prhub config schema``): destinations in either form
    (``{platform, target}`` or the ``{<platform>: <target>}`` shorthand), admins by platform."""
    schema = BotConfig.model_json_schema()
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
