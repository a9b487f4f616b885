"""The shape of a chat platform and the registry of them (:data:`PLATFORMS`).

Each platform package registers its one :class:`Platform` in its ``__init__``
(``adapters/slack/__init__.py``: ``register(Platform(name="slack", ...))``); :mod:`prhub.platforms`
imports the packages (the built-in ones and those named by ``PRHUB_PLATFORMS``) and the wiring in
``prhub/`` loops over the registry: settings, ``config check``/``doctor``, endpoints, outbound
connections, payload formats, reply pools, SDK loggers and CLI commands all come from these fields.

A lower module than both the registry and the configuration: :class:`Platform`'s callables take
the environment's settings (:class:`prhub.config.Settings`, which checks destinations against the
registry) without this module importing it. Importing it imports no SDK.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from chatbot.errors import InputError

if TYPE_CHECKING:
    from chatbot.cards import Card
    from chatbot.inbound import ChatService
    from chatbot.ports import ChatDelivery

__all__ = ["PLATFORMS", "Check", "Connection", "Mount", "Platform", "SettingsError", "register"]

Settings = Any
"""The environment's settings (:class:`prhub.config.Settings`) a platform's callables read."""

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class SettingsError(InputError):
    """A missing or invalid setting; ``user_message`` names the variable (or the file key) and never
    shows a secret."""


@dataclass(frozen=True)
class Check:
    """One line of ``prhub doctor``: ``ok`` or not, what was checked, and the fix when not ok."""

    ok: bool
    what: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        return f"{mark} {self.what}: {self.detail}" + (f" -> {self.fix}" if not self.ok and self.fix else "")


class Connection(Protocol):
    """A started outbound connection: ``stop()`` ends it, ``describe()`` says how it is."""

    def stop(self) -> None: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Mount:
    """A platform's inbound endpoints: every path under ``prefix`` goes to ``app`` (None when the
    platform receives events over an outbound connection only: Socket Mode, the long connection);
    ``handle`` is the platform object its ``connect`` and tests use (the bolt App, the Feishu
    handlers)."""

    prefix: str
    app: WSGIApp | None
    handle: Any = None
    check: Callable[[], None] | None = None
    """Connection check run (and retried with backoff) at start; raises while the platform cannot
    be reached. None: the platform is not checked (see ``status``)."""
    status: str = ""
    """Without a ``check``: ``off: why`` when the endpoints are not up although asked for (for
    ``/healthz``); ``""`` when nothing is to be reported."""
    resend: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    """Posts a reply payload the platform's listeners queued in the reply outbox (``prhub/outbox.py``):
    None when all of it was posted, else the payload of what is left (with its ``error``)."""


def _no_doctor(settings: Settings, targets: Sequence[str]) -> list[Check]:
    return []


@dataclass(frozen=True)
class Platform:
    """One chat platform: what the wiring in ``prhub/`` asks of it, each as data or a callable that
    imports the SDK only when called.

    Attributes:
        name: registry name, also the key of the YAML shorthand (``{slack: C0123}``), of ``admins``
            in the config, of ``--format NAME`` (with ``payload``) and of its CLI group (with ``cli``).
        title: its display name (``Slack``), in help texts; default the name.
        credentials: the environment variables it needs to post, for error messages.
        can_send: the settings hold the credentials to post.
        delivery: builds its :class:`ChatDelivery` (called only when ``can_send``).
        wants_inbound: any of its inbound settings is set (chat endpoints are to be mounted).
        mount: builds its inbound endpoints around the shared chat pipeline (options: ``executor``,
            where replies run; ``pool_size``, the API connections to keep alive); raises
            :class:`SettingsError` when half configured. None: post-only platform.
        admins: user ids from the environment allowed to subscribe a channel.
        inbound_problem: why, with these settings, ``prhub serve`` would refuse this platform's
            inbound endpoints or run them deaf, as ``(what, fix)``; None when events can arrive
            (asked by ``config check`` and ``doctor`` when ``wants_inbound``).
        missing: the variables a destination on it needs that are not set (``config check``).
        doctor: ``prhub doctor``'s lines for it, asking the service (``targets``: the configured
            destinations' targets on it, in file order); ``[]`` when it is not configured.
        connect: opens its outbound event connection over the mounted ``handle`` when the settings
            choose one (Socket Mode, the long connection), else returns None; ``timing`` is the
            platform's own test override (None: its defaults). Raises :class:`SettingsError`
            when the service refuses the credentials.
        payload: cards -> the JSON object of its payloads in posting order (``prhub digest
            --format NAME``, ``prhub ask --format NAME``); None: no such format.
        loggers: its SDKs' logger names, set to WARNING and cut to one line per record.
        request_loggers: those of ``loggers`` dropped while a request is served (they log
            internal text for forged requests).
        cli: builds its command group (``prhub NAME ...``, a :class:`typer.Typer`); None: none.
        settings: returns its settings class, a ``pydantic_settings.BaseSettings`` whose fields are
            read from the environment (secrets as ``SecretStr``) and whose methods its callables
            use; :class:`prhub.config.Settings` is built with it as a base. None: no settings.
        chat_keys: the config file's ``chat:`` keys it adds -> the settings field each sets (the
            environment variable wins over the key).
        admins_field: the settings field holding its admin ids (``PRHUB_SLACK_ADMINS``); the
            config file's ``admins: {NAME: [...]}`` are added to it.
    """

    name: str
    credentials: str
    can_send: Callable[[Settings], bool]
    delivery: Callable[[Settings], ChatDelivery]
    wants_inbound: Callable[[Settings], bool] = lambda s: False
    mount: Callable[[Settings, ChatService, Mapping[str, Any]], Mount] | None = None
    admins: Callable[[Settings], frozenset[str]] = field(default=lambda s: frozenset())
    inbound_problem: Callable[[Settings], tuple[str, str] | None] = lambda s: None
    missing: Callable[[Settings], tuple[str, ...]] = lambda s: ()
    doctor: Callable[[Settings, Sequence[str]], list[Check]] = _no_doctor
    connect: Callable[[Settings, Any, Any], Connection | None] | None = None
    payload: Callable[[Sequence[Card]], dict[str, Any]] | None = None
    loggers: tuple[str, ...] = ()
    request_loggers: tuple[str, ...] = ()
    cli: Callable[[], Any] | None = None
    title: str = ""
    settings: Callable[[], type] | None = None
    chat_keys: Mapping[str, str] = field(default_factory=dict)
    admins_field: str | None = None


PLATFORMS: dict[str, Platform] = {}
"""The registry, by name, in registration order (filled by the platform packages' ``__init__``;
:func:`prhub.platforms.registry` imports them)."""


REGISTERED_BY: dict[str, str] = {}
"""Platform name -> the module that registered it (its package's ``__init__``): the registry lists
platforms in the order of their packages, whichever was imported first."""


def register(platform: Platform) -> Platform:
    """Add (or replace) ``platform`` in the registry, noting the calling module; returns it."""
    PLATFORMS[platform.name] = platform
    REGISTERED_BY[platform.name] = sys._getframe(1).f_globals.get("__name__", "")
    return platform


def check_public_url(value: str | None) -> str | None:
    """A ``PRHUB_PUBLIC_URL`` value without its trailing slash; None when empty.

    Raises:
        InputError: not an http(s) URL (the message names ``PRHUB_PUBLIC_URL``).
    """
    from chatbot.render.escape import safe_url

    base = (value or "").strip()
    if not base:
        return None
    if not safe_url(base):
        raise InputError(f"PRHUB_PUBLIC_URL {base!r}: not an http(s) URL such as https://prhub.example.com")
    return base.rstrip("/")


def split_ids(value: Any) -> Any:
    """``"T1:U1, T2:U2"`` (an environment variable) -> ``("T1:U1", "T2:U2")``; other values as given."""
    if isinstance(value, str):
        return tuple(v for v in (p.strip() for p in value.split(",")) if v)
    return value


def check_api_url(value: str) -> str:
    """A platform API root, stripped.

    Raises:
        ValueError: not an http(s) URL (pydantic turns it into the setting's one-line error).
    """
    from chatbot.render.escape import safe_url

    value = value.strip()
    if not safe_url(value):
        raise ValueError("not an http(s) URL")
    return value


def is_set(value: object) -> bool:
    """A setting is given: not None, not empty (a ``SecretStr`` by its value)."""
    secret = getattr(value, "get_secret_value", None)
    return bool(secret()) if callable(secret) else bool(value)
