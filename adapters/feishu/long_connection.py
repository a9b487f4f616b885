"""The Feishu/Lark long connection: events over a WebSocket that the bot opens (no public URL).

lark-oapi's ``lark_oapi.ws.Client`` asks ``POST {domain}/callback/ws/endpoint`` (``AppID`` and
``AppSecret``) for a ``wss://`` URL and a ``ClientConfig`` (ping interval, reconnect count,
interval and jitter), connects, and exchanges protobuf ``Frame``\\ s (``pbbp2.proto``): DATA
frames with headers ``type=event``, ``message_id``, ``trace_id``, ``sum``/``seq`` (a payload split
in parts) carry the event JSON, and the client answers each with the same frame whose payload is
``{"code": 200, "data": base64(handler result)}`` — that answer is the acknowledgement; CONTROL
frames are ``ping`` (client, every ``PingInterval`` s) and ``pong`` (server, optionally a new
``ClientConfig``). Events go through the dispatcher's ``_do_without_validation`` (no token or
signature: the connection itself is authenticated), so the handlers of
:class:`adapters.feishu.app.FeishuChat` and their de-duplication by ``message_id`` are shared with
HTTP mode. Feishu delivers each event to one connection of the app and redelivers it when no answer
comes back, so two replicas answer once.

The SDK keeps **one module-level event loop** (``lark_oapi.ws.client.loop``), its ``start()``
blocks forever and it has no ``stop()``. :class:`FeishuLongConnection` therefore runs the client in
a daemon thread that owns a fresh loop (installed as the module's loop before ``start()``), and
stops it by closing the socket and stopping that loop. Because the loop is per module, one process
holds at most one long connection (a second :meth:`FeishuLongConnection.start` raises); replicas
are separate processes. Reconnect timings are the server's unless overridden (tests make them
milliseconds).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from dataclasses import dataclass
from typing import Any

import lark_oapi as lark
import lark_oapi.ws.client as ws_client

log = logging.getLogger(__name__)

_ACTIVE = threading.Lock()
"""Held while a long connection runs in this process (the SDK's loop is module-global)."""


@dataclass(frozen=True)
class Backoff:
    """Reconnect timings that override the server's ``ClientConfig`` (None: the server's value).

    Attributes:
        interval_seconds: wait between reconnect attempts (server default 120).
        jitter_seconds: upper bound of the random wait before the first attempt (server default 30).
        ping_seconds: interval of the client's ping frames (server default 120).
        attempts: reconnect attempts before giving up; -1 = forever.
    """

    interval_seconds: float | None = None
    jitter_seconds: float | None = None
    ping_seconds: float | None = None
    attempts: int | None = None


class _Client(ws_client.Client):
    """lark-oapi's client with :class:`Backoff` applied after every server configuration."""

    def __init__(self, *args: Any, backoff: Backoff, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._backoff = backoff
        self._apply()

    def _apply(self) -> None:
        b = self._backoff
        if b.interval_seconds is not None:
            self._reconnect_interval = b.interval_seconds  # type: ignore[assignment]
        if b.jitter_seconds is not None:
            self._reconnect_nonce = b.jitter_seconds  # type: ignore[assignment]
        if b.ping_seconds is not None:
            self._ping_interval = b.ping_seconds  # type: ignore[assignment]
        if b.attempts is not None:
            self._reconnect_count = b.attempts

    def _configure(self, conf: Any) -> None:
        super()._configure(conf)
        self._apply()


def lark_dispatcher(chat: Any) -> lark.EventDispatcherHandler:
    """lark-oapi's dispatcher for the long connection, calling the same handlers as the HTTP endpoint
    (:class:`adapters.feishu.app.FeishuChat`) with the same JSON objects: each event the SDK parsed is
    marshalled back to JSON (``lark.JSON.marshal``), and a card action's answer object becomes the SDK's
    response. (No encrypt key or token: the long connection is authenticated by the app secret.)"""
    from lark_oapi.api.im.v1 import P2ImMessageReceiveV1
    from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTrigger, P2CardActionTriggerResponse

    def as_json(data: Any) -> dict[str, Any]:
        out = json.loads(lark.JSON.marshal(data) or "{}")
        return out if isinstance(out, dict) else {}

    def on_message(data: P2ImMessageReceiveV1) -> None:
        chat.on_im_message_receive_v1(as_json(data))

    def on_card(data: P2CardActionTrigger) -> P2CardActionTriggerResponse:
        return P2CardActionTriggerResponse(chat.on_card_action_trigger(as_json(data)))

    return (lark.EventDispatcherHandler.builder("", "").register_p2_im_message_receive_v1(on_message)
            .register_p2_card_action_trigger(on_card).build())


class FeishuLongConnection:
    """The long connection of one Feishu/Lark app, in a daemon thread.

    Args:
        dispatcher: lark-oapi's ``EventDispatcherHandler``, see :func:`lark_dispatcher`.
        app_id, app_secret: ``FEISHU_APP_ID`` / ``FEISHU_APP_SECRET``.
        domain: ``FEISHU_API_URL`` (``https://open.feishu.cn``; Lark: ``https://open.larksuite.com``).
        backoff: reconnect timings (default: the server's).
    """

    def __init__(self, dispatcher: lark.EventDispatcherHandler, *, app_id: str, app_secret: str,
                 domain: str = lark.FEISHU_DOMAIN, backoff: Backoff = Backoff()) -> None:
        self.dispatcher = dispatcher
        self.app_id = app_id
        self._secret = app_secret
        self.domain = domain.rstrip("/")
        self.backoff = backoff
        self.client: _Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self.error: BaseException | None = None

    def start(self) -> None:
        """Start the client in a daemon thread (returns at once; it connects and reconnects there).

        Raises:
            RuntimeError: another long connection already runs in this process.
        """
        if not _ACTIVE.acquire(blocking=False):
            raise RuntimeError("a Feishu long connection already runs in this process (lark-oapi has one loop per process)")
        self._thread = threading.Thread(target=self._run, name="prhub-feishu-ws", daemon=True)
        self._thread.start()
        self._started.wait(5)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        ws_client.loop = loop  # the SDK's module-level loop: ours while this thread runs
        try:
            self.client = _Client(self.app_id, self._secret, event_handler=self.dispatcher, domain=self.domain,
                                  log_level=lark.LogLevel.WARNING, backoff=self.backoff)
            self._started.set()
            self.client.start()
        except RuntimeError as exc:  # the loop was stopped by stop()
            if "Event loop stopped" not in str(exc):
                self.error = exc
                log.error("feishu: long connection ended: %s", exc)
        except Exception as exc:  # noqa: BLE001 - credentials refused, server unreachable after all attempts
            self.error = exc
            log.error("feishu: long connection ended: %s", exc)
        finally:
            self._started.set()
            try:
                for task in asyncio.all_tasks(loop):
                    task.cancel()
                loop.run_until_complete(asyncio.sleep(0))
            except Exception:  # noqa: BLE001 - best effort
                pass
            loop.close()
            _ACTIVE.release()

    @property
    def connected(self) -> bool:
        """The WebSocket is open."""
        return self.client is not None and self.client._conn is not None

    def stop(self, timeout: float = 5.0) -> None:
        """Close the WebSocket and end the thread (no reconnect)."""
        loop, client = self._loop, self.client
        if loop is None or self._thread is None:
            return
        if client is not None:
            client._auto_reconnect = False

            async def close() -> None:
                conn = client._conn
                if conn is not None:
                    await conn.close()

            if not loop.is_closed():
                try:
                    asyncio.run_coroutine_threadsafe(close(), loop).result(timeout)
                except Exception:  # noqa: BLE001 - already closed
                    pass
        if not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout)

    def describe(self) -> dict[str, Any]:
        """``{"platform": "feishu", "mode": "long", "connected": bool}`` (for ``/healthz``)."""
        return {"platform": "feishu", "mode": "long", "connected": self.connected}
