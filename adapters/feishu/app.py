"""The Feishu/Lark side of the chat bot: an event dispatcher behind a thin Flask (WSGI) app.

Handlers, named after the events they take::

    on_im_message_receive_v1   im.message.receive_v1: p2p messages always, group messages only when
                               they mention the bot (``@_user_N`` resolved through ``mentions``)
    on_card_action_trigger     card.action.trigger: a button of our cards (:mod:`chatbot.actions`); a toast
                               at once, the answer card as a reply in the card's thread

The WSGI endpoint checks ``X-Lark-Signature`` and its timestamp *before* anything is decrypted
(:func:`signed`; every forgery gets the same 401), then :class:`FeishuDispatcher` decrypts the body
with the encrypt key (Feishu's AES-256-CBC, :func:`decrypt`), checks the verification token and calls
a handler by ``header.event_type``; the URL-verification challenge (unsigned) is answered only with the
right token. lark-oapi is not imported on this path (its package costs ~2 s CPU and 150 MiB at
start-up); the long connection (:mod:`adapters.feishu.long_connection`) uses its ws client and hands
the same handlers the same JSON objects. Handlers return at once
(Feishu wants an answer within 3 s): the answer is computed and sent on a worker thread, as a
reply in the message's thread (``im.v1.message.reply``).

Each event becomes an :class:`chatbot.inbound.InboundMessage` (:mod:`adapters.feishu.inbound`) and
goes through the core's one chat pipeline (:class:`chatbot.inbound.ChatService`). De-duplication:
Feishu re-pushes unanswered events at about 15 s, 5 min, 1 h and 6 h, sometimes with a new
``event_id``; the key is the ``message_id``, claimed in the persistent event log only for a
message accepted for processing.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from flask import Flask, Response, make_response, request
from pydantic import ValidationError

from adapters.feishu.messages import cards_to_feishu
from adapters.feishu.delivery import FeishuDelivery, feishu_uuid
from adapters.feishu.inbound import DIRECT_CHAT_TYPE, Mention, event_key, message_text, strip_mentions
from chatbot.cards import Action
from chatbot.errors import DeliveryError, InputError, PrhubError
from chatbot.i18n import tr
from chatbot.inbound import ChatService, InboundMessage
from chatbot.ports import Destination
from chatbot.json_input import read_json

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
        delivery: sends the replies (its Open API client also asks the bot's open_id).
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

    def check(self) -> None:
        """Connection check (``GET /open-apis/bot/v3/info``); the open_id it answers is kept for
        :meth:`bot_ids` unless ``FEISHU_BOT_OPEN_ID`` gave one, so the first message asks no more.

        Raises:
            DeliveryError: the call failed.
        """
        open_id = self.delivery.bot_open_id()
        with self._lock:
            if self._bot_open_id is None:
                self._bot_open_id = open_id

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

    def _answer(self, msg: InboundMessage, message_id: str, in_thread: bool, uuid_key: str = "") -> None:
        """Answer ``msg`` as replies to ``message_id``; each part's uuid (Feishu's 1-hour send de-dup) is
        keyed on ``uuid_key`` (what identifies the question: the card action's event id or token) or
        on ``message_id`` for a message, so a second press on the same card is a new send."""
        card = self.chat.answer(msg)
        key = uuid_key or message_id
        payload = {"message_id": message_id, "in_thread": in_thread,
                   "parts": [{"card": c, "uuid": feishu_uuid(f"reply:{key}:{i + 1}")}
                             for i, c in enumerate(cards_to_feishu([card]))]}
        rest = self.resend(payload)
        if rest is None:
            self.chat.answered(msg)
        else:
            self.chat.reply_failed(msg, rest, str(rest["error"]))
            return
        if card.attachment is not None:  # the full report as a file message, a reply to the question
            dest = Destination(platform=PLATFORM, target=msg.channel, workspace=msg.workspace)
            self.chat.attach(msg, card, lambda f: self.delivery.upload_file(dest, f, thread=message_id,
                                                                            delivery_key=f"reply:{key}:file"))

    def resend(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Post a reply payload ``{"message_id", "in_thread", "parts": [{"card", "uuid"} ...]}`` in order
        (each part's ``uuid`` makes Feishu drop a repeat within the hour, so a part sent before a
        failure is never shown twice).

        Returns:
            None when every part was posted; else the payload of the parts left, with ``error`` (the
            failure in one line; never a secret).
        """
        parts = list(payload.get("parts") or [])
        for i, part in enumerate(parts):
            try:
                self.delivery.reply(str(payload["message_id"]), part["card"], str(part["uuid"]),
                                    in_thread=bool(payload.get("in_thread")))
            except DeliveryError as exc:
                return {**payload, "parts": parts[i:], "error": f"reply: {exc.reason}"}
            except Exception as exc:  # noqa: BLE001 - never let a worker thread die silently
                return {**payload, "parts": parts[i:], "error": f"reply: {type(exc).__name__}"}
        return None

    # -- handlers (called by FeishuDispatcher and the long connection) ------------------------------------------

    def on_im_message_receive_v1(self, data: dict[str, Any]) -> None:
        """``im.message.receive_v1`` (the callback's JSON object, schema 2.0): filter, de-duplicate, and
        answer on a worker thread.

        Raises:
            Unavailable: the event log cannot be written (the endpoint answers 503; Feishu re-pushes).
        """
        header = _obj(data.get("header"))
        event = _obj(data.get("event"))
        m = _obj(event.get("message"))
        if not m:
            return
        sender = _obj(event.get("sender"))
        if sender.get("sender_type") not in (None, "", "user"):
            return  # apps and bots, including ourselves
        event_id = header.get("event_id")
        mentions = [Mention(key=str(x.get("key") or ""), id=str(_obj(x.get("id")).get("open_id") or ""),
                            name=str(x.get("name") or ""))
                    for x in map(_obj, m.get("mentions") or []) if x.get("key")]
        text, mentioned = strip_mentions(message_text(str(m.get("message_type") or ""), str(m.get("content") or "")),
                                         bot_ids=self.bot_ids(), mentions=mentions)
        user = str(_obj(sender.get("sender_id")).get("open_id") or "")
        message_id = str(m.get("message_id") or "")
        key = event_key(message_id or None, event_id)
        msg = InboundMessage(platform=PLATFORM,
                             workspace=str(header.get("tenant_key") or sender.get("tenant_key") or ""),
                             channel=str(m.get("chat_id") or ""), user=user, text=text,
                             is_direct=(m.get("chat_type") or "") == DIRECT_CHAT_TYPE, addressed_to_bot=mentioned,
                             dedup_key=key, where=f"event {event_id} {key}")
        try:
            accepted = self.chat.accept(msg)
        except PrhubError as exc:  # database down: a non-200 makes Feishu push the event again later
            log.warning("feishu %s: cannot record it (%s): answering 503 so that Feishu re-pushes", msg.where,
                        exc.user_message)
            raise Unavailable(UNAVAILABLE) from None
        if accepted and message_id:
            self.executor.submit(self._answer, msg, message_id, not msg.is_direct)

    def on_card_action_trigger(self, data: dict[str, Any]) -> dict[str, Any]:
        """``card.action.trigger`` (the callback's JSON object): a toast at once (the returned object is
        the callback's answer); a button of our cards (callback value ``{"action": ID, "value": VALUE}``)
        is answered by the core on a worker thread, as a reply in the card's thread. A value that is not
        of that shape gets an error toast."""
        event = _obj(data.get("event"))
        value = _obj(_obj(event.get("action")).get("value"))
        context = _obj(event.get("context"))
        if not context:
            return {}
        lang = self.chat.default_lang
        try:
            pressed = Action(id=str(value.get("action") or ""), value=str(value.get("value") or ""))
        except ValidationError:
            return {"toast": {"type": "error", "content": tr(lang, "card.action.unknown")}}
        event_id = _obj(data.get("header")).get("event_id")
        operator = _obj(event.get("operator"))
        msg = InboundMessage(platform=PLATFORM, workspace=str(operator.get("tenant_key") or ""),
                             channel=str(context.get("open_chat_id") or ""), user=str(operator.get("open_id") or ""),
                             is_direct=True, addressed_to_bot=True, dedup_key=f"action:{event_id}" if event_id else "",
                             where=f"card action {event_id} {pressed.id}", action=pressed)
        if not self.chat.accept(msg):
            return {}
        if context.get("open_message_id"):
            press = f"action:{event_id}" if event_id else f"action-token:{event.get('token') or ''}"
            self.executor.submit(self._answer, msg, str(context["open_message_id"]), True, press)
        return {"toast": {"type": "info", "content": tr(lang, "card.action.working")}}


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}`` (untrusted callback JSON)."""
    return value if isinstance(value, dict) else {}


def decrypt(encrypt_key: str, encrypted: str) -> str:
    """Feishu's event encryption undone: base64 → 16-byte IV + AES-256-CBC with key SHA-256(``encrypt_key``),
    PKCS#7 padding (Feishu's "encrypt the event" rule).

    Raises:
        ValueError: not base64, not whole blocks, bad padding or not UTF-8.
    """
    from Crypto.Cipher import AES

    try:
        raw = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("encrypt is not base64") from None
    if len(raw) < 32 or len(raw) % 16:
        raise ValueError("encrypt is not whole AES blocks")
    plain = AES.new(hashlib.sha256(encrypt_key.encode("utf-8")).digest(), AES.MODE_CBC, raw[:16]).decrypt(raw[16:])
    pad = plain[-1]
    if not 1 <= pad <= 16 or plain[-pad:] != bytes([pad]) * pad:
        raise ValueError("bad padding")
    return plain[:-pad].decode("utf-8")


class FeishuDispatcher:
    """Decrypts a callback body, checks its verification token and calls :class:`FeishuChat`'s handler
    for its ``header.event_type`` (``im.message.receive_v1``, ``card.action.trigger``).

    Args:
        chat: the handlers.
        encrypt_key: ``FEISHU_ENCRYPT_KEY`` (``""`` when events are not encrypted).
        verification_token: ``FEISHU_VERIFICATION_TOKEN`` (``""``: not checked).
    """

    def __init__(self, chat: FeishuChat, *, encrypt_key: str, verification_token: str) -> None:
        self.chat = chat
        self._key = encrypt_key
        self._token = verification_token

    def payload(self, raw: bytes) -> dict[str, Any] | None:
        """The callback's JSON object (decrypted when it is ``{"encrypt": ...}``), or None when it does
        not parse or decrypt."""
        try:
            body = read_json(raw, source="feishu callback", max_bytes=len(raw))
            if isinstance(body, dict) and isinstance(body.get("encrypt"), str) and self._key:
                plain = decrypt(self._key, body["encrypt"])
                body = read_json(plain, source="feishu callback", max_bytes=len(plain))
        except (InputError, ValueError):
            return None
        return body if isinstance(body, dict) else None

    def token_ok(self, payload: dict[str, Any]) -> bool:
        """The payload's token (``header.token``, schema 2.0; ``token`` before) equals the verification token."""
        if not self._token:
            return True
        token = _obj(payload.get("header")).get("token", payload.get("token"))
        return isinstance(token, str) and hmac.compare_digest(token, self._token)

    def challenge(self, raw: bytes) -> dict[str, Any] | None:
        """``{"challenge": ...}`` for a URL-verification request with the right token, else None."""
        payload = self.payload(raw)
        if payload is None or payload.get("type") != "url_verification" or not self.token_ok(payload):
            return None
        challenge = payload.get("challenge")
        return {"challenge": challenge} if isinstance(challenge, str) else None

    def handle(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        """``(HTTP status, JSON answer)`` for a signed callback body: 200 with the handler's answer, 400
        (not JSON, not decryptable, unknown event type), 401 (wrong token), 503 (:class:`Unavailable`)."""
        payload = self.payload(raw)
        if payload is None:
            return 400, {"msg": "bad request"}
        if not self.token_ok(payload):
            return 401, {"msg": "unauthorized"}
        if payload.get("type") == "url_verification":
            return (200, {"challenge": payload["challenge"]}) if isinstance(payload.get("challenge"), str) \
                else (400, {"msg": "bad request"})
        kind = _obj(payload.get("header")).get("event_type")
        try:
            if kind == "im.message.receive_v1":
                self.chat.on_im_message_receive_v1(payload)
                return 200, {"msg": "success"}
            if kind == "card.action.trigger":
                return 200, self.chat.on_card_action_trigger(payload)
        except Unavailable:
            return 503, {"msg": "temporarily unavailable"}
        return 400, {"msg": "bad request"}


def create_feishu_dispatcher(chat: FeishuChat, *, encrypt_key: str, verification_token: str) -> FeishuDispatcher:
    """The dispatcher for :class:`FeishuChat`'s handlers.

    Args:
        encrypt_key: ``FEISHU_ENCRYPT_KEY`` (``""`` when events are not encrypted).
        verification_token: ``FEISHU_VERIFICATION_TOKEN``.
    """
    return FeishuDispatcher(chat, encrypt_key=encrypt_key, verification_token=verification_token)


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


def create_feishu_wsgi(dispatcher: FeishuDispatcher, *, encrypt_key: str,
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
    flask_app.config["PROPAGATE_EXCEPTIONS"] = True  # exceptions reach prhub.guard.RequestGuard (one line, JSON 500), not an HTML page

    def endpoint() -> Response:
        raw = request.get_data(cache=True)
        if not signed(request.headers, raw, encrypt_key, clock()):
            challenge = None if request.headers.get("X-Lark-Signature") else dispatcher.challenge(raw)
            return make_response(challenge, 200) if challenge is not None else make_response({"msg": "unauthorized"}, 401)
        status, answer = dispatcher.handle(raw)
        return make_response(answer, status)

    for path in FEISHU_PATHS:
        flask_app.add_url_rule(path, endpoint=path, view_func=endpoint, methods=["POST"])
    return flask_app


__all__ = ["FEISHU_PATHS", "FeishuChat", "FeishuDispatcher", "create_feishu_dispatcher", "decrypt", "create_feishu_wsgi", "signed"]
