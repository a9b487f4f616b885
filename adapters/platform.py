"""The shape of a chat platform, as the wiring (:mod:`prhub.platforms`, the registry) asks for it.

A lower module than both the registry and the configuration: :class:`Platform`'s callables take
the environment's settings (:class:`prhub.config.Settings`, which checks destinations against the
registry) without this module importing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatbot.inbound import ChatService
    from chatbot.ports import ChatDelivery

Settings = Any
"""The environment's settings (:class:`prhub.config.Settings`) a platform's callables read."""

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@dataclass(frozen=True)
class Mount:
    """A platform's inbound endpoints: every path under ``prefix`` goes to ``app`` (None when the
    platform receives events over an outbound connection only: Socket Mode, the long connection);
    ``handle`` is the platform object :mod:`prhub.connections` and tests use (the bolt App, the
    Feishu handlers)."""

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


@dataclass(frozen=True)
class Platform:
    """One chat platform.

    Attributes:
        name: registry name, also the key of the YAML shorthand (``{slack: C0123}``).
        credentials: the environment variables it needs to post, for error messages.
        can_send: the settings hold the credentials to post.
        delivery: builds its :class:`ChatDelivery` (called only when ``can_send``).
        wants_inbound: any of its inbound settings is set (chat endpoints are to be mounted).
        mount: builds its inbound endpoints around the shared chat pipeline (options: ``executor``,
            where replies run; ``pool_size``, the API connections to keep alive); raises
            :class:`prhub.config.SettingsError` when half configured. None: post-only platform.
        admins: user ids from the environment allowed to subscribe a channel.
        inbound_problem: why, with these settings, ``prhub serve`` would refuse this platform's
            inbound endpoints or run them deaf, as ``(what, fix)``; None when events can arrive
            (asked by ``config check`` and ``doctor`` when ``wants_inbound``).
    """

    name: str
    credentials: str
    can_send: Callable[[Settings], bool]
    delivery: Callable[[Settings], ChatDelivery]
    wants_inbound: Callable[[Settings], bool] = lambda s: False
    mount: Callable[[Settings, ChatService, Mapping[str, Any]], Mount] | None = None
    admins: Callable[[Settings], frozenset[str]] = field(default=lambda s: frozenset())
    inbound_problem: Callable[[Settings], tuple[str, str] | None] = lambda s: None
