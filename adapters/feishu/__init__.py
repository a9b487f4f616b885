"""Feishu edge: card JSON 2.0 (``cards``), inbound text (``inbound``), the HTTP app (``app``), the
Open API client (``openapi``), delivery, the long connection and ``prhub doctor``'s checks.

This ``__init__`` is the platform's one register line: :class:`adapters.platform.Platform` named
``feishu``, each part imported only when the wiring calls it (no SDK is imported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adapters.platform import Check, Connection, Mount, Platform, register

if TYPE_CHECKING:
    from chatbot.cards import Card
    from chatbot.inbound import ChatService
    from chatbot.ports import ChatDelivery


def _delivery(settings: Any) -> ChatDelivery:
    from adapters.feishu.delivery import FeishuDelivery, lark_client

    assert settings.feishu_app_id is not None
    return FeishuDelivery(lark_client(settings.feishu_app_id, settings.secret("feishu_app_secret"),
                                      domain=settings.feishu_api_url))


def _mount(settings: Any, chat: ChatService, options: Mapping[str, Any]) -> Mount:
    settings.require_feishu()
    from adapters.feishu.app import FeishuChat, create_feishu_dispatcher, create_feishu_wsgi

    delivery: Any = _delivery(settings)
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


def _connect(settings: Any, handlers: Any, backoff: Any) -> Connection | None:
    """The long connection over the mounted handlers when :attr:`Settings.feishu_long_connection`
    (``timing``: a :class:`adapters.feishu.long_connection.Backoff`; None: the server's)."""
    if not settings.feishu_long_connection:
        return None
    from adapters.feishu.long_connection import Backoff, FeishuLongConnection, lark_dispatcher

    assert settings.feishu_app_id is not None
    lc = FeishuLongConnection(lark_dispatcher(handlers), app_id=settings.feishu_app_id,
                              app_secret=settings.secret("feishu_app_secret"), domain=settings.feishu_api_url,
                              backoff=backoff or Backoff())
    lc.start()
    return lc


def _payload(cards: Sequence[Card]) -> dict[str, Any]:
    from adapters.feishu.messages import cards_to_feishu

    return {"cards": cards_to_feishu(cards)}


def _doctor(settings: Any, targets: Sequence[str]) -> list[Check]:
    from adapters.feishu.doctor import feishu_checks

    return feishu_checks(settings, targets)


def _missing(settings: Any) -> tuple[str, ...]:
    return tuple(name for name, value in (("FEISHU_APP_ID", settings.feishu_app_id),
                                          ("FEISHU_APP_SECRET", settings.feishu_app_secret)) if not value)



def _settings() -> type:
    from adapters.feishu.settings import FeishuSettings

    return FeishuSettings


CHAT_KEYS = {"feishu_api_url": "feishu_api_url", "feishu_bot_open_id": "feishu_bot_open_id",
             "feishu_mode": "prhub_feishu_mode"}
"""The config file's ``chat:`` keys -> the FeishuSettings field each sets (here, not in
``settings``: registering must not import pydantic-settings, 0.16 s of ``import prhub.cli``)."""


register(Platform(name="feishu", credentials="FEISHU_APP_ID and FEISHU_APP_SECRET", can_send=lambda s: s.feishu_enabled,
                  delivery=_delivery, wants_inbound=lambda s: bool(s.feishu_app_id or s.feishu_app_secret),
                  mount=_mount, admins=lambda s: frozenset(s.prhub_feishu_admins), admins_field="prhub_feishu_admins",
                  settings=_settings, chat_keys=CHAT_KEYS,
                  inbound_problem=lambda s: s.feishu_problem() or s.feishu_deaf(),
                  missing=_missing, doctor=_doctor, connect=_connect, payload=_payload,
                  loggers=("Lark",), request_loggers=("Lark",), title="Feishu"))
