"""The Feishu/Lark side of the chat bot: lark-oapi's event dispatcher behind a thin Flask (WSGI) app.

Handlers, named after the events they take::

    on_im_message_receive_v1   im.message.receive_v1: p2p messages always, group messages only when
                               they mention the bot (``@_user_N`` resolved through ``mentions``)
    on_card_action_trigger     card.action.trigger: a ``query`` button answers its value; a toast at once

The dispatcher (``lark.EventDispatcherHandler``) answers the URL-verification challenge, decrypts
bodies with the encrypt key, checks the verification token and the ``X-Lark-Signature``; a
request that fails those checks gets HTTP 401 and reaches no handler. Handlers return at once
(Feishu wants an answer within 3 s): the answer is computed and sent on a worker thread, as a
reply in the message's thread (``im.v1.message.reply``).

Each event becomes an :class:`chatbot.inbound.InboundMessage` (:mod:`adapters.feishu.inbound`) and
goes through the core's one chat pipeline (:class:`chatbot.inbound.ChatService`). De-duplication:
Feishu re-pushes unanswered events at about 15 s, 5 min, 1 h and 6 h, sometimes with a new
``event_id``; the key is the ``message_id``, claimed in the persistent event log only for a
message accepted for processing.
"""

from __future__ import annotations

import json
import logging
import threading
from concurrent.futures import Executor, ThreadPoolExecutor

import lark_oapi as lark
from flask import Flask, Response, make_response
from lark_oapi.adapter.flask import parse_req, parse_resp
from lark_oapi.api.im.v1 import P2ImMessageReceiveV1
from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTrigger, P2CardActionTriggerResponse

from adapters.feishu.cards import cards_to_feishu
from adapters.feishu.delivery import FeishuDelivery, feishu_uuid
from adapters.feishu.inbound import DIRECT_CHAT_TYPE, Mention, event_key, message_text, strip_mentions
from chatbot.errors import DeliveryError
from chatbot.i18n import tr
from chatbot.inbound import ChatService, InboundMessage

log = logging.getLogger(__name__)

PLATFORM = "feishu"
FEISHU_PATHS = ("/feishu/events", "/feishu/card")
_AUTH_FAILURES = ("invalid verification_token", "signature verification failed", "encrypt_key not found",
                  "webhook credentials provider failed", "invalid ciphertext", "invalid PKCS7")


class FeishuChat:
    """The bot's Feishu handlers: each turns its event into an :class:`InboundMessage` for the
    core's :class:`ChatService` and replies with the answer as card JSON 2.0.

    Args:
        delivery: sends the replies (its lark client also asks the bot's open_id).
        chat: the chat pipeline (filter, de-dup, route, answer, catch-all).
        bot_open_id: the bot's open_id (``FEISHU_BOT_OPEN_ID``); asked from ``bot/v3/info`` when None.
        executor: where answers are computed and sent (default: 4 threads).
    """

    def __init__(self, *, delivery: FeishuDelivery, chat: ChatService, bot_open_id: str | None = None,
                 executor: Executor | None = None) -> None:
        self.delivery = delivery
        self.chat = chat
        self._bot_open_id = bot_open_id
        self._lock = threading.Lock()
        self.executor = executor or ThreadPoolExecutor(max_workers=4, thread_name_prefix="prhub-feishu")

    def bot_ids(self) -> frozenset[str]:
        """The bot's open_id (asked once from ``GET /open-apis/bot/v3/info``; empty when that fails)."""
        with self._lock:
            if self._bot_open_id is None:
                try:
                    self._bot_open_id = self.delivery.bot_open_id()
                except DeliveryError as exc:
                    log.warning("feishu: cannot learn the bot's open_id: %s", exc.reason)
                    return frozenset()
            return frozenset({self._bot_open_id})

    def _answer(self, msg: InboundMessage, message_id: str, in_thread: bool) -> None:
        card = self.chat.answer(msg)
        try:
            for i, c in enumerate(cards_to_feishu([card])):
                self.delivery.reply(message_id, c, feishu_uuid(f"reply:{message_id}:{i + 1}"), in_thread=in_thread)
        except DeliveryError as exc:
            log.warning("feishu %s: reply failed: %s", msg.where, exc.reason)
        except Exception:  # noqa: BLE001 - never let a worker thread die silently
            log.exception("feishu %s: reply failed", msg.where)

    # -- handlers (called by the lark-oapi dispatcher) ------------------------------------------

    def on_im_message_receive_v1(self, data: P2ImMessageReceiveV1) -> None:
        """``im.message.receive_v1``: filter, de-duplicate, and answer on a worker thread."""
        header = data.header
        event = data.event
        if event is None or event.message is None:
            return
        sender = event.sender
        if sender is not None and sender.sender_type not in (None, "", "user"):
            return  # apps and bots, including ourselves
        m = event.message
        event_id = getattr(header, "event_id", None)
        mentions = [Mention(key=x.key or "", id=(x.id.open_id or "") if x.id else "", name=x.name or "")
                    for x in (m.mentions or []) if x.key]
        text, mentioned = strip_mentions(message_text(m.message_type or "", m.content or ""), bot_ids=self.bot_ids(),
                                         mentions=mentions)
        user = ""
        if sender is not None and sender.sender_id is not None:
            user = sender.sender_id.open_id or ""
        key = event_key(m.message_id, event_id)
        msg = InboundMessage(platform=PLATFORM,
                             workspace=getattr(header, "tenant_key", None) or (sender.tenant_key if sender else "") or "",
                             channel=m.chat_id or "", user=user, text=text,
                             is_direct=(m.chat_type or "") == DIRECT_CHAT_TYPE, addressed_to_bot=mentioned,
                             dedup_key=key, where=f"event {event_id} {key}")
        if self.chat.accept(msg) and m.message_id:
            self.executor.submit(self._answer, msg, m.message_id, not msg.is_direct)

    def on_card_action_trigger(self, data: P2CardActionTrigger) -> P2CardActionTriggerResponse:
        """``card.action.trigger``: a toast at once; a ``{"action": "query", "value": TEXT}``
        button is answered on a worker thread, in the card's thread."""
        event = data.event
        action = event.action if event else None
        value = action.value if action and isinstance(action.value, dict) else {}
        if value.get("action") != "query" or not value.get("value") or event is None or event.context is None:
            return P2CardActionTriggerResponse({})
        event_id = getattr(data.header, "event_id", None)
        operator = event.operator
        text, _ = strip_mentions(str(value["value"]), bot_ids=self.bot_ids())
        msg = InboundMessage(platform=PLATFORM, workspace=(operator.tenant_key if operator else "") or "",
                             channel=event.context.open_chat_id or "",
                             user=operator.open_id if operator and operator.open_id else "", text=text,
                             is_direct=True, addressed_to_bot=True, dedup_key=f"action:{event_id}" if event_id else "",
                             where=f"card action {event_id}")
        if not self.chat.accept(msg):
            return P2CardActionTriggerResponse({})
        if event.context.open_message_id:
            self.executor.submit(self._answer, msg, event.context.open_message_id, True)
        lang = self.chat.default_lang
        return P2CardActionTriggerResponse({"toast": {"type": "info", "content": tr(lang, "card.action.working")}})


def create_feishu_dispatcher(chat: FeishuChat, *, encrypt_key: str, verification_token: str) -> lark.EventDispatcherHandler:
    """lark-oapi's dispatcher with :class:`FeishuChat`'s handlers registered.

    Args:
        encrypt_key: ``FEISHU_ENCRYPT_KEY`` (``""`` when events are not encrypted).
        verification_token: ``FEISHU_VERIFICATION_TOKEN``.
    """
    return (lark.EventDispatcherHandler.builder(encrypt_key, verification_token)
            .register_p2_im_message_receive_v1(chat.on_im_message_receive_v1)
            .register_p2_card_action_trigger(chat.on_card_action_trigger)
            .build())


def create_feishu_wsgi(dispatcher: lark.EventDispatcherHandler) -> Flask:
    """A Flask (WSGI) app serving the dispatcher at ``/feishu/events`` (events, URL verification)
    and ``/feishu/card`` (card callbacks), POST.

    The dispatcher answers 500 for every failure; failed authentication (token, signature,
    encryption) is turned into 401 here, and no handler has run.
    """
    flask_app = Flask("prhub.feishu")

    def endpoint() -> Response:
        raw = dispatcher.do(parse_req())
        if raw.status_code == 500:
            try:
                msg = str(json.loads(raw.content or b"{}").get("msg", ""))
            except ValueError:
                msg = ""
            if any(m in msg for m in _AUTH_FAILURES):
                return make_response({"msg": "unauthorized"}, 401)
            return make_response({"msg": "error"}, 500)
        resp: Response = parse_resp(raw)
        return resp

    for path in FEISHU_PATHS:
        flask_app.add_url_rule(path, endpoint=path, view_func=endpoint, methods=["POST"])
    return flask_app


__all__ = ["FEISHU_PATHS", "FeishuChat", "create_feishu_dispatcher", "create_feishu_wsgi"]
