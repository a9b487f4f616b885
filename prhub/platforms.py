"""The chat-platform registry: the one place that knows which chat platforms exist.

Each :class:`adapters.platform.Platform` names its adapter's parts as the core needs them — a
:class:`chatbot.ports.ChatDelivery` for weekly posts (which also states the platform's delivery
policy), and optionally the inbound endpoints that turn its events into
:class:`chatbot.inbound.InboundMessage` for the shared :class:`chatbot.inbound.ChatService` —
and how to build them from the settings. Configuration destinations ``{platform, target}``
(and the shorthand ``{slack: C0123}``), admins and subscriptions are checked against this
registry; the core and the scheduler only ever see the name.

To add a platform: write ``adapters/<name>/`` (inbound event -> InboundMessage, Card -> payload,
a ChatDelivery) and :func:`register` one :class:`Platform` below. SDKs are imported only when a
platform is configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from adapters.platform import Mount, Platform

if TYPE_CHECKING:
    from chatbot.inbound import ChatService
    from chatbot.ports import ChatDelivery

__all__ = ["PLATFORMS", "Mount", "Platform", "get", "names", "register"]

PLATFORMS: dict[str, Platform] = {}
"""The registry, by name, in registration order."""


def register(platform: Platform) -> Platform:
    """Add (or replace) ``platform`` in the registry; returns it."""
    PLATFORMS[platform.name] = platform
    return platform


def names() -> tuple[str, ...]:
    """The registered platform names, sorted."""
    return tuple(sorted(PLATFORMS))


def get(name: str) -> Platform:
    """The platform called ``name``.

    Raises:
        chatbot.errors.InputError: no such platform (the message lists the known ones).
    """
    from chatbot.errors import InputError

    try:
        return PLATFORMS[name]
    except KeyError:
        raise InputError(f"unknown chat platform {name!r} (known: {', '.join(names())})") from None


# -- Slack ------------------------------------------------------------------------------------------


def _slack_delivery(settings: Any) -> ChatDelivery:
    from adapters.slack.delivery import SlackDelivery, web_client

    return SlackDelivery(web_client(settings.secret("slack_bot_token"), base_url=settings.slack_api_url))


def _slack_mount(settings: Any, chat: ChatService, options: Mapping[str, Any]) -> Mount:
    settings.require_slack()
    from adapters.slack.app import check_slack, create_slack_app, create_slack_wsgi, resend_reply

    bolt = create_slack_app(bot_token=settings.secret("slack_bot_token"),
                            signing_secret=settings.secret("slack_signing_secret"), chat=chat,
                            api_url=settings.slack_api_url, listener_executor=options.get("executor"),
                            pool_size=options.get("pool_size", 8))
    http = create_slack_wsgi(bolt) if settings.slack_signing_secret else None  # Socket Mode needs no secret
    return Mount(prefix="/slack/", app=http, handle=bolt, check=lambda: check_slack(bolt),
                 resend=lambda payload: resend_reply(bolt.client, payload))


# -- Feishu / Lark ----------------------------------------------------------------------------------


def _feishu_delivery(settings: Any) -> ChatDelivery:
    from adapters.feishu.delivery import FeishuDelivery, lark_client

    assert settings.feishu_app_id is not None
    return FeishuDelivery(lark_client(settings.feishu_app_id, settings.secret("feishu_app_secret"),
                                      domain=settings.feishu_api_url))


def _feishu_mount(settings: Any, chat: ChatService, options: Mapping[str, Any]) -> Mount:
    settings.require_feishu()
    from adapters.feishu.app import FeishuChat, create_feishu_dispatcher, create_feishu_wsgi

    delivery: Any = _feishu_delivery(settings)
    handlers = FeishuChat(delivery=delivery, chat=chat, bot_open_id=settings.feishu_bot_open_id,
                          executor=options.get("executor"))
    dispatcher = create_feishu_dispatcher(handlers, encrypt_key=settings.secret("feishu_encrypt_key"),
                                          verification_token=settings.secret("feishu_verification_token"))
    encrypt_key = settings.secret("feishu_encrypt_key")
    # HTTP callbacks need the encrypt key (Feishu signs only with it); the long connection needs neither key nor token
    http = create_feishu_wsgi(dispatcher, encrypt_key=encrypt_key) if encrypt_key else None
    if encrypt_key or not settings.feishu_verification_token:
        return Mount(prefix="/feishu/", app=http, handle=handlers, check=handlers.check, resend=handlers.resend)
    return Mount(prefix="/feishu/", app=None, handle=handlers, resend=handlers.resend,
                 status=("off: FEISHU_ENCRYPT_KEY is not set (Feishu signs callbacks only with it): "
                         "the /feishu endpoints are not mounted"))


register(Platform(name="slack", credentials="SLACK_BOT_TOKEN", can_send=lambda s: bool(s.slack_bot_token),
                  delivery=_slack_delivery,
                  wants_inbound=lambda s: bool(s.slack_bot_token or s.slack_signing_secret or s.slack_app_token),
                  mount=_slack_mount, admins=lambda s: s.admins("slack"), inbound_problem=lambda s: s.slack_problem()))
register(Platform(name="feishu", credentials="FEISHU_APP_ID and FEISHU_APP_SECRET", can_send=lambda s: s.feishu_enabled,
                  delivery=_feishu_delivery, wants_inbound=lambda s: bool(s.feishu_app_id or s.feishu_app_secret),
                  mount=_feishu_mount, admins=lambda s: s.admins("feishu"),
                  inbound_problem=lambda s: s.feishu_problem() or s.feishu_deaf()))
