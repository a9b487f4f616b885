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

De-duplication: Feishu re-pushes unanswered events at about 15 s, 5 min, 1 h and 6 h, sometimes
with a new ``event_id``; the key is the ``message_id`` (:func:`chatbot.events.feishu_event_key`),
claimed in the persistent :class:`EventLog` only for a message accepted for processing.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Collection
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import datetime
import lark_oapi as lark
from flask import Flask, Response, make_response
from lark_oapi.adapter.flask import parse_req, parse_resp
from lark_oapi.api.im.v1 import P2ImMessageReceiveV1
from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTrigger, P2CardActionTriggerResponse

from adapters.feishu.cards import cards_to_feishu
from adapters.feishu.delivery import FeishuDelivery, feishu_uuid
from adapters.feishu.inbound import message_text
from chatbot.cards import Card
from chatbot.errors import DeliveryError, PrhubError
from chatbot.events import EventLog, feishu_event_key
from chatbot.i18n import tr
from chatbot.queries import Mention, Responder, bot_mentioned, should_answer
from chatbot.subscriptions import Requester

log = logging.getLogger(__name__)

PLATFORM = "feishu"
FEISHU_PATHS = ("/feishu/events", "/feishu/card")
_AUTH_FAILURES = ("invalid verification_token", "signature verification failed", "encrypt_key not found",
                  "webhook credentials provider failed", "invalid ciphertext", "invalid PKCS7")


class FeishuChat:
    """The bot's Feishu handlers.

    Args:
        delivery: sends the replies (its lark client also asks the bot's open_id).
        responder: parses and answers messages (one repository).
        events: persistent de-duplication (the store's ``claim_event``).
        clock: ``now()`` -> aware datetime (the de-dup record's time).
        admins: open_ids allowed to subscribe a chat.
        bot_open_id: the bot's open_id (``FEISHU_BOT_OPEN_ID``); asked from ``bot/v3/info`` when None.
        executor: where answers are computed and sent (default: 4 threads).
    """

    def __init__(self, *, delivery: FeishuDelivery, responder: Responder, events: EventLog,
                 clock: Callable[[], datetime], admins: Collection[str] = (), bot_open_id: str | None = None,
                 executor: Executor | None = None) -> None:
        self.delivery = delivery
        self.responder = responder
        self.events = events
        self.clock = clock
        self.admins = frozenset(admins)
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

    def _card(self, text: str, mentions: list[Mention], requester: Requester, where: str) -> Card:
        try:
            return self.responder.reply(text, bot_ids=self.bot_ids(), mentions=mentions, requester=requester)
        except PrhubError as exc:
            log.warning("feishu %s: %s", where, exc.user_message)
            return self.responder.error_card(exc.user_message)
        except Exception:  # noqa: BLE001 - the one catch-all of this inbound path
            log.exception("feishu %s: answering failed", where)
            return self.responder.error_card(tr(self.responder.default_lang, "card.error.internal"))

    def _answer(self, text: str, mentions: list[Mention], requester: Requester, message_id: str, in_thread: bool,
                where: str) -> None:
        card = self._card(text, mentions, requester, where)
        try:
            for i, c in enumerate(cards_to_feishu([card])):
                self.delivery.reply(message_id, c, feishu_uuid(f"reply:{message_id}:{i + 1}"), in_thread=in_thread)
        except DeliveryError as exc:
            log.warning("feishu %s: reply failed: %s", where, exc.reason)
        except Exception:  # noqa: BLE001 - never let a worker thread die silently
            log.exception("feishu %s: reply failed", where)

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
        msg = event.message
        event_id = getattr(header, "event_id", None)
        text = message_text(msg.message_type or "", msg.content or "")
        mentions = [Mention(key=m.key or "", id=(m.id.open_id or "") if m.id else "", name=m.name or "")
                    for m in (msg.mentions or []) if m.key]
        bot_ids = self.bot_ids()
        mentioned = bot_mentioned(text, bot_ids=bot_ids, mentions=mentions)
        chat_type = msg.chat_type or ""
        if not should_answer(chat_type, mentioned=mentioned):
            return  # group chatter not addressed to us: nothing recorded
        key = feishu_event_key(msg.message_id, event_id)
        where = f"event {event_id} {key}"
        if key and not self.events.claim_event(PLATFORM, key, self.clock()):
            log.info("feishu %s: duplicate, ignored", where)
            return
        user = ""
        if sender is not None and sender.sender_id is not None:
            user = sender.sender_id.open_id or ""
        tenant = getattr(header, "tenant_key", None) or (sender.tenant_key if sender else "") or ""
        requester = Requester(platform="feishu", workspace=tenant, user=user, channel=msg.chat_id or "",
                              is_admin=user in self.admins, repo=self.responder.repo)
        if msg.message_id:
            self.executor.submit(self._answer, text, mentions, requester, msg.message_id, chat_type != "p2p", where)

    def on_card_action_trigger(self, data: P2CardActionTrigger) -> P2CardActionTriggerResponse:
        """``card.action.trigger``: a toast at once; a ``{"action": "query", "value": TEXT}``
        button is answered on a worker thread, in the card's thread."""
        event = data.event
        action = event.action if event else None
        value = action.value if action and isinstance(action.value, dict) else {}
        if value.get("action") != "query" or not value.get("value") or event is None or event.context is None:
            return P2CardActionTriggerResponse({})
        event_id = getattr(data.header, "event_id", None)
        key = f"action:{event_id}" if event_id else ""
        if key and not self.events.claim_event(PLATFORM, key, self.clock()):
            return P2CardActionTriggerResponse({})
        user = event.operator.open_id if event.operator and event.operator.open_id else ""
        requester = Requester(platform="feishu", workspace=(event.operator.tenant_key if event.operator else "") or "",
                              user=user, channel=event.context.open_chat_id or "", is_admin=user in self.admins,
                              repo=self.responder.repo)
        if event.context.open_message_id:
            self.executor.submit(self._answer, str(value["value"]), [], requester, event.context.open_message_id,
                                 True, f"card action {event_id}")
        lang = self.responder.default_lang
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
