"""``SlackDelivery``: the :class:`chatbot.ports.ChatDelivery` port on slack_sdk's ``WebClient``.

One ``send`` posts one card (``chat.postMessage``; a card too large for one message becomes
several consecutive messages in the same thread). Every message carries the delivery key in its
``metadata`` (``{"event_type": "prhub_delivery", "event_payload": {"key": ...}}``) so that
:meth:`SlackDelivery.find_sent` can tell, after a crash, whether a part was posted
(``conversations.history`` with ``include_all_metadata``). It never retries: Slack has no
idempotency key, a blind retry could post twice; the scheduler decides, using
:class:`chatbot.errors.DeliveryError` (``retry_after`` from HTTP 429 ``Retry-After``).

:meth:`SlackDelivery.upload_image` shares the weekly chart into a digest's thread with
``files_upload_v2`` (``files.getUploadURLExternal``, a POST of the bytes to the returned upload
URL, then ``files.completeUploadExternal`` with ``channel_id`` and ``thread_ts``);
:meth:`SlackDelivery.upload_file` shares the full report (a PDF) the same way when no public URL
can link to it.
"""

from __future__ import annotations

import logging
import socket
import urllib.error
from urllib.request import Request
from datetime import datetime, timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError, SlackRequestError

from adapters.slack.messages import card_to_messages
from chatbot.cards import Card
from chatbot.errors import DeliveryError
from chatbot.ports import Destination, FileUpload, SentMessage

log = logging.getLogger(__name__)

METADATA_EVENT_TYPE = "prhub_delivery"
MAX_FILE_BYTES = 1024 ** 3
"""Slack takes files up to 1 GB."""
PERMANENT_ERRORS = frozenset({
    "not_authed", "invalid_auth", "account_inactive", "token_revoked", "token_expired", "no_permission",
    "missing_scope", "channel_not_found", "not_in_channel", "is_archived", "user_not_found", "invalid_blocks",
    "invalid_blocks_format", "msg_too_long", "msg_blocks_too_long", "no_text", "invalid_arguments",
    "invalid_metadata_format", "invalid_metadata_schema", "restricted_action", "cannot_dm_bot", "user_disabled",
    "team_access_not_granted", "ekm_access_denied", "invalid_charset", "too_many_attachments",
    "file_too_large",
})


class KeepAliveWebClient(WebClient):
    """slack_sdk's ``WebClient`` with its Web API calls on one keep-alive connection pool.

    slack_sdk's synchronous client sends each call with ``urllib.request.urlopen``, which opens a
    new TCP (and TLS) connection per call and closes it after the answer (issue 9, failure 5:
    every ``chat.postMessage`` paid a handshake). The SDK offers no transport option for this, so
    the one method that performs the HTTP exchange (``_perform_urllib_http_request_internal``,
    given the URL and the ready ``urllib.request.Request``) is sent through a ``urllib3``
    ``PoolManager`` instead: connections are reused across calls and threads, at most
    ``pool_size`` kept open per host. Everything else (headers, body encoding, retry handlers,
    ``SlackResponse`` validation, HTTP 429 ``Retry-After``) stays the SDK's. A proxy from the
    client or the environment (``HTTPS_PROXY``) is honoured. Network failures surface as
    ``urllib.error.URLError`` and timeouts as ``TimeoutError``, as with urllib.

    Args:
        pool_size: connections kept alive per host (more are opened when more threads call at
            once, and closed after their call).
        everything else: ``WebClient``'s.
    """

    def __init__(self, *args: Any, pool_size: int = 8, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        import urllib3

        opts: dict[str, Any] = {"num_pools": 4, "maxsize": pool_size, "retries": False, "ssl_context": self.ssl}
        self._pool = urllib3.ProxyManager(self.proxy, **opts) if self.proxy else urllib3.PoolManager(**opts)

    def _perform_urllib_http_request_internal(self, url: str, req: Request) -> dict[str, Any]:
        import urllib3

        if not url.lower().startswith(("http://", "https://")):
            raise SlackRequestError(f"Invalid URL detected: {url}")
        try:
            resp = self._pool.request(req.get_method(), url, body=req.data, headers=dict(req.header_items()),
                                      timeout=self.timeout, redirect=False, retries=False)
        except urllib3.exceptions.NewConnectionError as exc:  # refused/unreachable: a subclass of
            raise urllib.error.URLError(type(exc).__name__) from None  # ConnectTimeoutError, yet no timeout
        except urllib3.exceptions.TimeoutError as exc:
            raise TimeoutError(f"{url}: {type(exc).__name__}") from None
        except urllib3.exceptions.HTTPError as exc:
            raise urllib.error.URLError(type(exc).__name__) from None
        ctype = resp.headers.get("Content-Type", "")
        charset = "utf-8"
        for param in ctype.split(";")[1:]:
            k, _, v = param.strip().partition("=")
            if k.lower() == "charset" and v:
                charset = v.strip('"')
        body: str | bytes = resp.data if ctype.startswith("application/gzip") else resp.data.decode(charset, "replace")
        return {"status": resp.status, "headers": resp.headers, "body": body}


def web_client(token: str, *, base_url: str | None = None, timeout: int = 15, pool_size: int = 8) -> WebClient:
    """A :class:`KeepAliveWebClient` for ``token`` at ``base_url`` (default
    ``https://slack.com/api/``), without automatic retries (a retried ``chat.postMessage`` could
    post twice), keeping ``pool_size`` connections alive (size it to the threads that post at once)."""
    url = (base_url or "https://slack.com/api/").rstrip("/") + "/"
    return KeepAliveWebClient(token=token, base_url=url, timeout=timeout, retry_handlers=[], pool_size=pool_size)


def _header(headers: Any, name: str) -> str | None:
    if not headers:
        return None
    for k, v in dict(headers).items():
        if str(k).lower() == name.lower():
            return str(v[0] if isinstance(v, list) else v)
    return None


def delivery_error(exc: Exception, action: str) -> DeliveryError:
    """An SDK or network error as :class:`DeliveryError` (one line; no token, no payload).

    HTTP 429 gives ``reason="ratelimited"`` and ``retry_after`` from ``Retry-After`` (seconds);
    errors in :data:`PERMANENT_ERRORS` are ``permanent``.
    """
    if isinstance(exc, SlackApiError):
        resp = exc.response
        status = getattr(resp, "status_code", 200)
        data = getattr(resp, "data", None)
        reason = str(data.get("error", "unknown")) if isinstance(data, dict) else f"http_{status}"
        retry_after: float | None = None
        if status == 429 or reason == "ratelimited":
            reason = "ratelimited"
            raw = _header(getattr(resp, "headers", None), "Retry-After")
            try:
                retry_after = float(raw) if raw is not None else 1.0
            except ValueError:
                retry_after = 1.0
        permanent = reason in PERMANENT_ERRORS
        return DeliveryError(f"Slack {action} failed: {reason}", reason=reason, retry_after=retry_after,
                             permanent=permanent)
    return DeliveryError(f"Slack {action} failed: {type(exc).__name__} (network)", reason="network")


class SlackDelivery:
    """Posts cards to Slack channels and users.

    Args:
        client: a ``WebClient`` with the bot token (see :func:`web_client`).
    """

    platform = "slack"
    dedup_window_seconds = 0.0
    """Slack has no send de-duplication key: reconciliation goes through :meth:`find_sent`."""
    rate_limit_reasons = frozenset({"ratelimited"})
    """HTTP 429 / ``error: ratelimited`` (see :func:`delivery_error`)."""
    images_in_cards = False
    """An uploaded image is shared into a thread by the upload itself (not referenced by a card)."""
    max_file_bytes = MAX_FILE_BYTES
    """Slack's limit on one uploaded file (:data:`MAX_FILE_BYTES`)."""

    def __init__(self, client: WebClient) -> None:
        self.client = client
        self._dm: dict[str, str] = {}

    def _call(self, action: str, fn: Any, **kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except (SlackApiError, SlackClientError, urllib.error.URLError, socket.timeout, OSError) as exc:
            err = delivery_error(exc, action)
            log.warning("slack %s failed: %s", action, err.reason)
            raise err from None

    def channel(self, destination: Destination) -> str:
        """The channel id to post to: ``target`` itself, or for a user id (``U…``/``W…``) the DM
        channel opened with ``conversations.open``.

        Raises:
            DeliveryError: ``conversations.open`` failed.
        """
        target = destination.target
        if target[:1] not in ("U", "W"):
            return target
        if target not in self._dm:
            resp = self._call("conversations.open", self.client.conversations_open, users=target)
            self._dm[target] = resp["channel"]["id"]
        return self._dm[target]

    def send(self, destination: Destination, card: object, *, thread: str | None, delivery_key: str) -> SentMessage:
        """Post one card with ``chat.postMessage`` (in ``thread`` when given).

        Args:
            destination: channel (``C…``) or user (``U…``, DMed) in ``destination.target``.
            card: a :class:`chatbot.cards.Card`, or ready ``chat.postMessage`` kwargs
                (``{"text", "blocks"}``).
            thread: the ``ts`` of the thread's first message, or None for a new message.
            delivery_key: stable key of this part, sent as message metadata.

        Returns:
            The first message's ``ts`` and the thread the following parts go to.

        Raises:
            DeliveryError: Slack refused (``invalid_blocks``, ``channel_not_found``: permanent) or
                rate-limited (``ratelimited`` with ``retry_after`` seconds) or was unreachable.
        """
        if isinstance(card, Card):
            messages = card_to_messages([card])
        elif isinstance(card, dict):
            messages = [card]
        else:
            raise TypeError(f"SlackDelivery.send takes a Card or chat.postMessage kwargs, not {type(card).__name__}")
        channel = self.channel(destination)
        first: str | None = None
        for i, msg in enumerate(messages):
            key = delivery_key if i == 0 else f"{delivery_key}#{i + 1}"
            kwargs: dict[str, Any] = {"channel": channel, "text": msg.get("text", ""), "blocks": msg.get("blocks"),
                                      "metadata": {"event_type": METADATA_EVENT_TYPE, "event_payload": {"key": key}},
                                      "unfurl_links": False, "unfurl_media": False}
            in_thread = thread or first
            if in_thread:
                kwargs["thread_ts"] = in_thread
            resp = self._call("chat.postMessage", self.client.chat_postMessage, **kwargs)
            ts = str(resp["ts"])
            if first is None:
                first = ts
        assert first is not None
        log.info("slack posted %s to %s (%d message(s))", delivery_key, channel, len(messages))
        return SentMessage(message_id=first, thread_id=thread or first)

    def find_sent(self, destination: Destination, delivery_key: str, around: datetime,
                  thread: str | None = None) -> SentMessage | None:
        """Find the message carrying ``delivery_key`` posted within 15 minutes of ``around``.

        With ``thread`` (a later part, posted in part 1's thread) it calls ``conversations.replies``
        for that thread; otherwise ``conversations.history`` (both with ``include_all_metadata``,
        up to 5 pages of 200), which lists top-level messages only.

        Returns:
            The message's ``ts`` (and its ``thread_ts``), or None when none carries the key.

        Raises:
            DeliveryError: the lookup failed.
        """
        channel = self.channel(destination)
        oldest = (around - timedelta(minutes=15)).timestamp()
        latest = (around + timedelta(minutes=15)).timestamp()
        cursor: str | None = None
        for _ in range(5):
            kwargs: dict[str, Any] = {"channel": channel, "oldest": f"{oldest:.6f}", "latest": f"{latest:.6f}",
                                      "inclusive": True, "include_all_metadata": True, "limit": 200}
            if cursor:
                kwargs["cursor"] = cursor
            if thread:
                kwargs["ts"] = thread
                resp = self._call("conversations.replies", self.client.conversations_replies, **kwargs)
            else:
                resp = self._call("conversations.history", self.client.conversations_history, **kwargs)
            for m in resp.get("messages") or []:
                meta = m.get("metadata") or {}
                if meta.get("event_type") == METADATA_EVENT_TYPE and (meta.get("event_payload") or {}).get("key") == delivery_key:
                    return SentMessage(message_id=str(m["ts"]), thread_id=str(m.get("thread_ts") or m["ts"]))
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                break
        return None

    def upload_image(self, destination: Destination, png: bytes, *, title: str, thread: str | None) -> str:
        """Share a PNG into ``thread`` of the destination's channel with ``files_upload_v2``.

        slack_sdk runs Slack's external upload flow: ``files.getUploadURLExternal`` (filename,
        length, alt text) gives an upload URL and a file id; the bytes are POSTed to that URL; then
        ``files.completeUploadExternal`` with ``channel_id`` and ``thread_ts`` shares the file as a
        reply in the thread (``thread`` None: at the top level of the channel).

        Args:
            destination: channel (``C…``) or user (``U…``, DMed) in ``destination.target``.
            png: the image bytes.
            title: the file's title and alt text (plain text).
            thread: the ``ts`` of the digest's part 1.

        Returns:
            The Slack file id (``F…``).

        Raises:
            DeliveryError: one of the three steps failed (a refused call, HTTP 5xx, network).
        """
        file_id = self._share(destination, png, filename="prhub-chart.png", title=title, thread=thread,
                              alt_txt=title[:1000])
        log.info("slack shared image %s (%d bytes) in %s thread %s", file_id, len(png), destination.target, thread)
        return file_id

    def upload_file(self, destination: Destination, file: FileUpload, *, thread: str | None, delivery_key: str) -> str:
        """Share ``file`` (the full report) into ``thread`` of the destination's channel with
        ``files_upload_v2``: the same three steps as :meth:`upload_image`. Slack has no upload
        de-duplication key, so ``delivery_key`` only goes to the log; callers send it once.

        Raises:
            DeliveryError: larger than :attr:`max_file_bytes` (``file_too_large``, permanent), or
                one of the three steps failed (``missing_scope`` without ``files:write``,
                ``not_in_channel``, HTTP 5xx, network).
        """
        if len(file.data) > self.max_file_bytes:
            raise DeliveryError(f"Slack files_upload_v2 refused: {len(file.data)} bytes is over Slack's "
                                f"{self.max_file_bytes}-byte file limit", reason="file_too_large", permanent=True)
        file_id = self._share(destination, file.data, filename=file.filename, title=file.title, thread=thread)
        log.info("slack shared file %s %s (%d bytes) in %s thread %s (%s)", file_id, file.filename, len(file.data),
                 destination.target, thread, delivery_key)
        return file_id

    def _share(self, destination: Destination, data: bytes, *, filename: str, title: str, thread: str | None,
               **extra: Any) -> str:
        channel = self.channel(destination)
        resp = self._call("files_upload_v2", self.client.files_upload_v2, file=data, filename=filename,
                          title=title, channel=channel, thread_ts=thread, **extra)
        info = resp.get("file") or next(iter(resp.get("files") or []), None) or {}
        file_id = str(info.get("id") or "")
        if not file_id:
            raise DeliveryError("Slack files.completeUploadExternal failed: no file id in the answer", reason="bad_response")
        return file_id
