"""The Feishu/Lark side of the chat bot: lark-oapi's event dispatcher behind a thin Flask (WSGI) app.

Handlers, named after the events they take::

    on_im_message_receive_v1   im.message.receive_v1: p2p messages always, group messages only when
                               they mention the bot (``@_user_N`` resolved through ``mentions``)
    on_card_action_trigger     card.action.trigger: a ``query`` button answers its value; a toast at once

The WSGI endpoint checks ``X-Lark-Signature`` and its timestamp *before* anything is decrypted
(:func:`signed`; every forgery gets the same 401), then lark-oapi's dispatcher
(``lark.EventDispatcherHandler``) decrypts the body with the encrypt key, checks the
verification token and calls a handler; the URL-verification challenge (unsigned) is answered
only with the right token. Handlers return at once
(Feishu wants an answer within 3 s): the answer is computed and sent on a worker thread, as a
reply in the message's thread (``im.v1.message.reply``).

Each event becomes an :class:`chatbot.inbound.InboundMessage` (:mod:`adapters.feishu.inbound`) and
goes through the core's one chat pipeline (:class:`chatbot.inbound.ChatService`). De-duplication:
Feishu re-pushes unanswered events at about 15 s, 5 min, 1 h and 6 h, sometimes with a new
``event_id``; the key is the ``message_id``, claimed in the persistent event log only for a
message accepted for processing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor

import lark_oapi as lark
from flask import Flask, Response, make_response, request
from lark_oapi.adapter.flask import parse_req, parse_resp
from lark_oapi.api.im.v1 import P2ImMessageReceiveV1
from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTrigger, P2CardActionTriggerResponse

from adapters.feishu.cards import cards_to_feishu
from adapters.feishu.delivery import FeishuDelivery, feishu_uuid
from adapters.feishu.inbound import DIRECT_CHAT_TYPE, Mention, event_key, message_text, strip_mentions
from chatbot.errors import DeliveryError, PrhubError
from chatbot.i18n import tr
from chatbot.inbound import ChatService, InboundMessage

log = logging.getLogger(__name__)

PLATFORM = "feishu"
FEISHU_PATHS = ("/feishu/events", "/feishu/card")


UNAVAILABLE = "prhub_unavailable"


class Unavailable(Exception):
    """The event cannot be recorded (database down): the endpoint answers 503 and Feishu re-pushes."""


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
        try:
            accepted = self.chat.accept(msg)
        except PrhubError as exc:  # database down: a non-200 makes Feishu push the event again later
            log.warning("feishu %s: cannot record it (%s): answering 503 so that Feishu re-pushes", msg.where,
                        exc.user_message)
            raise Unavailable(UNAVAILABLE) from None
        if accepted and m.message_id:
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


SIGNATURE_WINDOW_SECONDS = 300
"""A signed request whose ``X-Lark-Request-Timestamp`` is further than this from now is refused
(5 minutes, as Slack's): a captured request cannot be replayed after the event log forgot it."""


def signed(headers: Mapping[str, str], body: bytes, encrypt_key: str, now: float,
           window: float = SIGNATURE_WINDOW_SECONDS) -> bool:
    """Whether a callback carries Feishu's signature: ``X-Lark-Signature`` = hex SHA-256 of
    ``timestamp + nonce + encrypt_key + body`` (Feishu's "verify the request's source" rule), with
    ``X-Lark-Request-Timestamp`` (Unix seconds) within ``window`` seconds of ``now``."""
    ts = headers.get("X-Lark-Request-Timestamp") or ""
    nonce = headers.get("X-Lark-Request-Nonce") or ""
    sig = headers.get("X-Lark-Signature") or ""
    if not (ts.isdigit() and sig and encrypt_key) or abs(now - int(ts)) > window:
        return False
    want = hashlib.sha256((ts + nonce + encrypt_key).encode("utf-8") + body).hexdigest()
    return hmac.compare_digest(want, sig.strip().lower())


def _url_verification(dispatcher: lark.EventDispatcherHandler, raw: bytes) -> Response | None:
    """An unsigned request may only be the URL-verification challenge (Feishu does not sign it):
    the dispatcher decrypts it and checks its token; anything else is None (401, whatever failed)."""
    resp = dispatcher.do(parse_req())
    if resp.status_code != 200:
        return None
    try:
        data = json.loads(resp.content or b"{}")
    except ValueError:
        return None
    if not (isinstance(data, dict) and set(data) == {"challenge"}):
        return None
    return make_response(data, 200)


def create_feishu_wsgi(dispatcher: lark.EventDispatcherHandler, *, encrypt_key: str,
                       clock: Callable[[], float] = time.time) -> Flask:
    """A Flask (WSGI) app serving the dispatcher at ``/feishu/events`` (events, URL verification)
    and ``/feishu/card`` (card callbacks), POST.

    The signature (:func:`signed`) is checked before anything is decrypted or parsed, so every
    forgery (no headers, a wrong key, an old timestamp, a bad or good AES padding) gets the same
    401 and reaches no handler; the only unsigned request answered is the URL-verification
    challenge with the right token. A signed body that does not parse, or that the dispatcher
    rejects for another reason, is 400; a wrong verification token is 401.

    Args:
        dispatcher: see :func:`create_feishu_dispatcher`.
        encrypt_key: ``FEISHU_ENCRYPT_KEY`` (required: without it Feishu signs nothing).
        clock: Unix seconds now (for the timestamp window).

    Raises:
        ValueError: ``encrypt_key`` is empty.
    """
    if not encrypt_key:
        raise ValueError("the Feishu HTTP endpoint needs FEISHU_ENCRYPT_KEY: Feishu signs callbacks only with it")
    flask_app = Flask("prhub.feishu", static_folder=None)

    def endpoint() -> Response:
        raw = request.get_data(cache=True)
        if not signed(request.headers, raw, encrypt_key, clock()):
            challenge = None
            if not request.headers.get("X-Lark-Signature"):
                challenge = _url_verification(dispatcher, raw)
            return challenge if challenge is not None else make_response({"msg": "unauthorized"}, 401)
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return make_response({"msg": "body is not JSON"}, 400)
        if not isinstance(body, dict):
            return make_response({"msg": "body is not a JSON object"}, 400)
        out = dispatcher.do(parse_req())
        if out.status_code == 500:
            try:
                msg = str(json.loads(out.content or b"{}").get("msg", ""))
            except ValueError:
                msg = ""
            if "verification_token" in msg:
                return make_response({"msg": "unauthorized"}, 401)
            if UNAVAILABLE in msg:
                return make_response({"msg": "temporarily unavailable"}, 503)
            return make_response({"msg": "bad request"}, 400)
        resp: Response = parse_resp(out)
        return resp

    for path in FEISHU_PATHS:
        flask_app.add_url_rule(path, endpoint=path, view_func=endpoint, methods=["POST"])
    return flask_app


__all__ = ["FEISHU_PATHS", "FeishuChat", "create_feishu_dispatcher", "create_feishu_wsgi", "signed"]
