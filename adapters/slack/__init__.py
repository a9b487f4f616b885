"""Slack edge: Block Kit rendering (``blocks``), inbound events (``inbound``), the bolt app
(``app``), delivery, Socket Mode, the App Home, the app manifest and ``prhub doctor``'s checks.

This ``__init__`` is the platform's one register line: :class:`adapters.platform.Platform` named
``slack``, each part imported only when the wiring calls it (no SDK is imported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adapters.platform import Check, Connection, Mount, Platform, SettingsError, register

if TYPE_CHECKING:
    from chatbot.cards import Card
    from chatbot.inbound import ChatService
    from chatbot.ports import ChatDelivery


def _delivery(settings: Any) -> ChatDelivery:
    from adapters.slack.delivery import SlackDelivery, web_client

    return SlackDelivery(web_client(settings.secret("slack_bot_token"), base_url=settings.slack_api_url))


def _mount(settings: Any, chat: ChatService, options: Mapping[str, Any]) -> Mount:
    settings.require_slack()
    from adapters.slack.app import check_slack, create_slack_app, create_slack_wsgi, resend_reply

    bolt = create_slack_app(bot_token=settings.secret("slack_bot_token"),
                            signing_secret=settings.secret("slack_signing_secret"), chat=chat,
                            api_url=settings.slack_api_url, listener_executor=options.get("executor"),
                            pool_size=options.get("pool_size", 8))
    http = create_slack_wsgi(bolt) if settings.slack_signing_secret else None  # Socket Mode needs no secret
    return Mount(prefix="/slack/", app=http, handle=bolt, check=lambda: check_slack(bolt),
                 resend=lambda payload: resend_reply(bolt.client, payload))


def _connect(settings: Any, bolt: Any, ping_seconds: float | None) -> Connection | None:
    """Socket Mode over the mounted bolt App when :attr:`Settings.slack_socket_mode` (``timing``:
    the health-check interval in seconds, default 10).

    Raises:
        SettingsError: ``SLACK_APP_TOKEN`` missing, or refused by ``apps.connections.open`` (the
            message names Slack's error code).
    """
    if not settings.slack_socket_mode:
        return None
    settings.require("SLACK_APP_TOKEN")
    from adapters.slack.socket_mode import SlackSocketMode

    sm = SlackSocketMode(bolt, app_token=settings.secret("slack_app_token"),
                         ping_interval=10.0 if ping_seconds is None else ping_seconds)
    try:
        sm.start()
    except Exception as exc:  # SlackApiError: the token was refused
        sm.stop()
        error = getattr(getattr(exc, "response", None), "get", lambda *_: None)("error") or type(exc).__name__
        raise SettingsError(f"SLACK_APP_TOKEN was refused by apps.connections.open ({error}): use the app-level "
                            "token (xapp-...) with the connections:write scope") from None
    return sm


def _payload(cards: Sequence[Card]) -> dict[str, Any]:
    from adapters.slack.messages import card_to_messages

    return {"messages": card_to_messages(cards)}


def _doctor(settings: Any, targets: Sequence[str]) -> list[Check]:
    from adapters.slack.doctor import slack_checks

    return slack_checks(settings, targets)


def _cli() -> Any:
    from adapters.slack.cli import slack_app

    return slack_app



def _settings() -> type:
    from adapters.slack.settings import SlackSettings

    return SlackSettings


CHAT_KEYS = {"slack_api_url": "slack_api_url", "slack_mode": "prhub_slack_mode"}
"""The config file's ``chat:`` keys -> the SlackSettings field each sets (here, not in
``settings``: registering must not import pydantic-settings, 0.16 s of ``import prhub.cli``)."""


register(Platform(name="slack", credentials="SLACK_BOT_TOKEN", can_send=lambda s: bool(s.slack_bot_token),
                  delivery=_delivery,
                  wants_inbound=lambda s: bool(s.slack_bot_token or s.slack_signing_secret or s.slack_app_token),
                  mount=_mount, admins=lambda s: frozenset(s.prhub_slack_admins), admins_field="prhub_slack_admins",
                  settings=_settings, chat_keys=CHAT_KEYS, inbound_problem=lambda s: s.slack_problem(),
                  missing=lambda s: () if s.slack_bot_token else ("SLACK_BOT_TOKEN",),
                  doctor=_doctor, connect=_connect, payload=_payload,
                  loggers=("slack_bolt", "adapters.slack.bolt"), cli=_cli, title="Slack"))
