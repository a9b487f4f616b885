"""``FeishuDelivery``: the :class:`chatbot.ports.ChatDelivery` port on Feishu's Open API
(:mod:`adapters.feishu.openapi`, plain HTTP: lark-oapi stays unimported on this path).

Cards go out as ``msg_type="interactive"`` with ``content`` = the card JSON string, through
``im.v1.message.create`` (a new message) or ``im.v1.message.reply`` (``reply_in_thread``, parts
2..n in part 1's thread). Every send carries a ``uuid`` derived from the delivery key: Feishu
de-duplicates sends with the same ``uuid`` for one hour, so a retry after a timeout cannot post
twice (and :meth:`FeishuDelivery.find_sent` may answer None).

Feishu answers API errors with a non-zero ``code`` (sometimes with HTTP 200). Every call checks it; throttling (code ``230020``/``99991400`` or HTTP
429) becomes :class:`chatbot.errors.DeliveryError` with ``retry_after``.

:meth:`FeishuDelivery.upload_image` uploads the weekly chart with ``im.v1.image.create``
(``image_type="message"``); the returned ``image_key`` goes into the first card as an ``img``
element (``img_key``), so the image is uploaded before that card is sent.

:meth:`FeishuDelivery.upload_file` posts the full report (a PDF) when no public URL can link to it:
``im.v1.file.create`` (``POST /open-apis/im/v1/files``, multipart ``file_type``, ``file_name``,
``file``) answers a ``file_key``, then a ``msg_type="file"`` message carrying it goes to the chat
(a reply in part 1's thread when given), with the delivery key's ``uuid``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from adapters.feishu.cards import card_json, request_body
from adapters.feishu.messages import cards_to_feishu
from adapters.feishu.openapi import FeishuApi, FeishuResponse, TokenError
from chatbot.cards import Card
from chatbot.errors import DeliveryError
from chatbot.ports import Destination, FileUpload, SentMessage

log = logging.getLogger(__name__)

DEFAULT_DOMAIN = "https://open.feishu.cn"
UUID_MAX = 50
MAX_FILE_BYTES = 30 * 1024 * 1024
"""Feishu's ``im/v1/files`` takes files up to 30 MB (and none of 0 bytes)."""
FILE_TYPES = frozenset({"opus", "mp4", "pdf", "doc", "xls", "ppt"})
"""The ``file_type`` values ``im/v1/files`` knows; any other file goes as ``stream``."""
THROTTLED = frozenset({230020, 99991400})
PERMANENT = frozenset({
    230001, 230002, 230006, 230011, 230013, 230017, 230025, 230099, 11310,
    99991661, 99991663, 99991668, 99991672, 99992402, 10003, 10014,
})


def lark_client(app_id: str, app_secret: str, *, domain: str | None = None, timeout: float = 15.0) -> FeishuApi:
    """The Open API client of a self-built app at ``domain`` (``FEISHU_API_URL``; default
    ``https://open.feishu.cn``, Lark's is ``https://open.larksuite.com``; tests: a fake). The tenant token
    (``auth/v3/tenant_access_token/internal``) is fetched and cached by :class:`FeishuApi`."""
    return FeishuApi(app_id, app_secret, domain=domain or DEFAULT_DOMAIN, timeout=timeout)


def feishu_uuid(key: str) -> str:
    """The ``uuid`` of a send: ``prhub-`` + 32 hex chars of SHA-256(``key``) (Feishu allows 50)."""
    return ("prhub-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32])[:UUID_MAX]


def receive_id_type(target: str) -> str:
    """The ``receive_id_type`` of a target id: ``oc_`` chat_id, ``ou_`` open_id, ``on_`` union_id,
    an e-mail address email, anything else user_id."""
    if target.startswith("oc_"):
        return "chat_id"
    if target.startswith("ou_"):
        return "open_id"
    if target.startswith("on_"):
        return "union_id"
    return "email" if "@" in target else "user_id"


def response_error(resp: FeishuResponse, action: str) -> DeliveryError:
    """A failed Open API answer as :class:`DeliveryError` (reason = the Feishu code, else ``http_<status>``)."""
    status = resp.status
    code = resp.code
    msg = " ".join(resp.msg.split())[:200]
    retry_after: float | None = None
    if status == 429 or code in THROTTLED:
        value = resp.header("x-ogw-ratelimit-reset") or resp.header("Retry-After")
        try:
            retry_after = float(value) if value is not None else 1.0
        except ValueError:
            retry_after = 1.0
    reason = str(code) if code else f"http_{status}"
    permanent = retry_after is None and (code in PERMANENT or (400 <= status < 500 and status != 429 and not code))
    return DeliveryError(f"Feishu {action} failed: {reason} {msg}".strip(), reason=reason, retry_after=retry_after,
                         permanent=permanent)


class FeishuDelivery:
    """Posts cards to Feishu chats and users.

    Args:
        client: the Open API client (see :func:`lark_client`).
    """

    platform = "feishu"
    dedup_window_seconds = 3300.0
    """Feishu drops a second send with the same ``uuid`` query parameter for 1 hour (55 min used)."""
    rate_limit_reasons = frozenset({"230020", "99991400"})
    """Feishu's rate-limit codes: 230020 (chat send frequency), 99991400 (app request frequency)."""
    images_in_cards = True
    """An uploaded image is shown by putting its ``image_key`` in a card (an ``img`` element)."""
    max_file_bytes = MAX_FILE_BYTES
    """Feishu's limit on one uploaded file (:data:`MAX_FILE_BYTES`)."""

    def __init__(self, client: FeishuApi) -> None:
        self.client = client

    def _execute(self, action: str, call: Callable[[], FeishuResponse]) -> FeishuResponse:
        try:
            resp = call()
        except TokenError as exc:
            raise DeliveryError(f"Feishu {action} failed: cannot get a tenant token ({exc.code})",
                                reason=f"token_{exc.code}", permanent=exc.code in PERMANENT) from None
        except OSError as exc:  # requests' ConnectionError/Timeout are OSErrors
            raise DeliveryError(f"Feishu {action} failed: {type(exc).__name__} (network)", reason="network") from None
        if not resp.success():
            err = response_error(resp, action)
            log.warning("feishu %s failed: %s", action, err.reason)
            raise err
        return resp

    def create(self, target: str, card: dict[str, Any], uuid: str, *, msg_type: str = "interactive") -> str:
        """Send a card (or, with ``msg_type``, another content object such as ``{"file_key": …}``)
        as a new message (``im.v1.message.create``); returns its ``message_id``.

        Raises:
            DeliveryError: Feishu refused or throttled the send.
        """
        body = {"receive_id": target, "msg_type": msg_type, "content": card_json(card), "uuid": uuid}
        resp = self._execute("im.v1.message.create", lambda: self.client.call(
            "POST", "/open-apis/im/v1/messages", params={"receive_id_type": receive_id_type(target)},
            body=request_body(body)))
        return str(resp.data.get("message_id"))

    def reply(self, message_id: str, card: dict[str, Any], uuid: str, *, in_thread: bool = True,
              msg_type: str = "interactive") -> str:
        """Reply to ``message_id`` with a card (or another ``msg_type``'s content object)
        (``im.v1.message.reply``, ``reply_in_thread``); returns the reply's ``message_id``.

        Raises:
            DeliveryError: Feishu refused or throttled the send.
        """
        body = {"msg_type": msg_type, "content": card_json(card), "reply_in_thread": in_thread, "uuid": uuid}
        resp = self._execute("im.v1.message.reply", lambda: self.client.call(
            "POST", f"/open-apis/im/v1/messages/{quote(message_id, safe='')}/reply", body=request_body(body)))
        return str(resp.data.get("message_id"))

    def send(self, destination: Destination, card: object, *, thread: str | None, delivery_key: str) -> SentMessage:
        """Post one card: ``im.v1.message.create`` to ``destination.target`` (``oc_`` chat,
        ``ou_`` user), or ``im.v1.message.reply`` in ``thread`` (a message id) when given.

        Args:
            destination: the chat or user.
            card: a :class:`chatbot.cards.Card`, or a ready card JSON 2.0 object.
            thread: the first part's ``message_id``, or None for a new message.
            delivery_key: stable key of this part; its hash is the send ``uuid``.

        Returns:
            The (first) message's id, and the thread the following parts go to.

        Raises:
            DeliveryError: refused (``230099`` bad card, ``230002`` bot not in chat: permanent) or
                throttled (``230020``/HTTP 429, ``retry_after`` seconds) or unreachable.
        """
        if isinstance(card, Card):
            cards = cards_to_feishu([card])
        elif isinstance(card, dict):
            cards = [card]
        else:
            raise TypeError(f"FeishuDelivery.send takes a Card or a card object, not {type(card).__name__}")
        first: str | None = None
        for i, c in enumerate(cards):
            uuid = feishu_uuid(delivery_key if i == 0 else f"{delivery_key}#{i + 1}")
            parent = thread or first
            mid = self.reply(parent, c, uuid) if parent else self.create(destination.target, c, uuid)
            first = first or mid
        assert first is not None
        log.info("feishu posted %s to %s (%d card(s))", delivery_key, destination.target, len(cards))
        return SentMessage(message_id=first, thread_id=thread or first)

    def upload_image(self, destination: Destination, png: bytes, *, title: str, thread: str | None) -> str:
        """Upload a PNG with ``im.v1.image.create`` (``POST /open-apis/im/v1/images``, multipart,
        ``image_type="message"``) for use in a card sent to ``destination``.

        Args:
            destination: the chat or user the card will go to (an image key works in any chat of
                the app; the argument is kept for the port).
            png: the image bytes (Feishu accepts at most 10 MB).
            title: unused by Feishu (the card's ``img`` element carries the alt text).
            thread: ignored: the image shows where the card referencing it is sent.

        Returns:
            The ``image_key`` (``img_v2_…``) to use as ``img_key`` in a card.

        Raises:
            DeliveryError: Feishu refused the upload or failed (HTTP 5xx, network).
        """
        resp = self._execute("im.v1.image.create", lambda: self.client.call(
            "POST", "/open-apis/im/v1/images", data={"image_type": "message"},
            files={"image": ("prhub-chart.png", png, "image/png")}))
        key = str(resp.data.get("image_key") or "")
        if not key:
            raise DeliveryError("Feishu im.v1.image.create failed: no image_key in the answer", reason="bad_response")
        log.info("feishu uploaded image %s (%d bytes) for %s", key, len(png), destination.target)
        return key

    def upload_file(self, destination: Destination, file: FileUpload, *, thread: str | None, delivery_key: str) -> str:
        """Upload ``file`` with ``im.v1.file.create`` and post it as a ``file`` message to
        ``destination`` (``im.v1.message.reply`` in ``thread`` when given, else ``im.v1.message.create``).

        The message's ``uuid`` comes from ``delivery_key``, so a second post of the same file within
        the hour is dropped by Feishu; the upload itself has no such key (an unused ``file_key`` is
        only storage).

        Returns:
            The ``message_id`` of the file message.

        Raises:
            DeliveryError: larger than :attr:`max_file_bytes` or empty (``file_too_large`` /
                ``file_empty``, permanent; nothing sent), or Feishu refused or failed either call.
        """
        if not file.data or len(file.data) > self.max_file_bytes:
            reason = "file_empty" if not file.data else "file_too_large"
            raise DeliveryError(f"Feishu im.v1.file.create refused: {len(file.data)} bytes (Feishu takes 1 byte to "
                                f"{self.max_file_bytes} bytes)", reason=reason, permanent=True)
        file_type = file.kind if file.kind in FILE_TYPES else "stream"
        resp = self._execute("im.v1.file.create", lambda: self.client.call(
            "POST", "/open-apis/im/v1/files", data={"file_type": file_type, "file_name": file.filename},
            files={"file": (file.filename, file.data, "application/octet-stream")}))
        key = str(resp.data.get("file_key") or "")
        if not key:
            raise DeliveryError("Feishu im.v1.file.create failed: no file_key in the answer", reason="bad_response")
        uuid = feishu_uuid(delivery_key)
        content = {"file_key": key}
        mid = self.reply(thread, content, uuid, msg_type="file") if thread else \
            self.create(destination.target, content, uuid, msg_type="file")
        log.info("feishu posted file %s %s (%d bytes) to %s as %s", key, file.filename, len(file.data),
                 destination.target, mid)
        return mid

    def find_sent(self, destination: Destination, delivery_key: str, around: datetime,
                  thread: str | None = None) -> SentMessage | None:
        """Always None: a re-send with the same ``uuid`` within an hour is de-duplicated by Feishu
        (``im.v1.message.create`` answers with the first message), which is the reconciliation."""
        return None

    def bot_open_id(self) -> str:
        """The bot's own ``open_id`` (``GET /open-apis/bot/v3/info``).

        Raises:
            DeliveryError: the call failed.
        """
        resp = self._execute("bot.v3.info", lambda: self.client.call("GET", "/open-apis/bot/v3/info"))
        try:
            return str(resp.body["bot"]["open_id"])
        except (KeyError, TypeError):
            raise DeliveryError("Feishu bot.v3.info failed: no bot.open_id in the answer", reason="bad_response") from None
