"""The Slack side of the chat bot: a slack-bolt ``App`` in HTTP mode behind its Flask adapter.

Handlers, named after the events they take::

    on_app_mention     app_mention in a channel (or group)
    on_message         message: direct messages always; channel messages only when they mention
                       the bot (the twin of an app_mention; whichever copy comes first answers)
    on_command         the /prhub slash command (answered through its response_url)
    on_block_actions   buttons of our cards: the core's actions (:mod:`chatbot.actions`), answered
                       in the card's thread; presses in the App Home view re-publish it
    app_home_opened    the App Home tab (:mod:`adapters.slack.home`, ``views.publish``)

Every request is acknowledged first (bolt's ``process_before_response=False`` returns the HTTP 200
as soon as ``ack()`` is called and runs the rest of the listener on its executor), so Slack gets
its answer within 3 s however slow the digest is. Bolt verifies the signing secret (a bad
``X-Slack-Signature`` or a timestamp older than 5 minutes: HTTP 401, no listener runs) and drops
our own bot's messages.

Each event becomes an :class:`chatbot.inbound.InboundMessage` (:mod:`adapters.slack.inbound`) and
goes through the core's one chat pipeline (:class:`chatbot.inbound.ChatService`). De-duplication:
the key (``(team, channel, ts)`` for message-like events, ``event_id`` otherwise) is claimed in the
persistent event log only for a message accepted for processing, so retries (``X-Slack-Retry-Num``) and the
``app_mention``/``message`` twin give exactly one ``chat.postMessage`` in every order. The same
listeners serve Socket Mode (:mod:`adapters.slack.socket_mode`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import Callable, Collection
from concurrent.futures import Executor
from typing import Any
from urllib.parse import parse_qs

from flask import Flask, Request, Response, request
from slack_bolt import Ack, App, BoltContext, BoltResponse, Respond
from slack_bolt.adapter.flask import SlackRequestHandler
from slack_sdk import WebClient

from adapters.slack.messages import card_to_messages
from adapters.slack.delivery import SlackDelivery, delivery_error, web_client
from adapters.slack.home import SlackHome
from adapters.slack.inbound import action_inbound, action_of, command_inbound, message_inbound
from chatbot.cards import Card
from chatbot.errors import InputError, PrhubError
from chatbot.i18n import tr
from chatbot.inbound import ChatService, InboundMessage
from chatbot.ports import Destination
from chatbot.json_input import MAX_DEPTH, JsonDepthError, read_json

log = logging.getLogger(__name__)

PLATFORM = "slack"
SLACK_PATHS = ("/slack/events", "/slack/commands", "/slack/actions")


class SlackChat:
    """The bot's Slack listeners: each turns its event into an :class:`InboundMessage` for the
    core's :class:`ChatService` and posts the answer card as Block Kit.

    Args:
        chat: the chat pipeline (filter, de-dup, route, answer, catch-all).
        bot_ids: ids of the bot besides those bolt learns from ``auth.test`` (tests, Socket Mode).
        client: the app's one keep-alive ``WebClient`` (:func:`adapters.slack.delivery.web_client`)
            that answers are posted with; bolt hands each listener a new plain ``WebClient`` per
            request (a new TCP connection per ``chat.postMessage``), used only without it.
    """

    def __init__(self, *, chat: ChatService, bot_ids: Collection[str] = (), client: WebClient | None = None) -> None:
        self.chat = chat
        self.bot_ids = frozenset(bot_ids)
        self.home: SlackHome | None = SlackHome(chat, platform=PLATFORM)
        self.client = client

    # -- helpers -------------------------------------------------------------------------------

    def _bot_ids(self, context: BoltContext) -> frozenset[str]:
        ids = set(self.bot_ids)
        for v in (context.bot_user_id, context.bot_id):
            if v:
                ids.add(v)
        return frozenset(ids)

    def _post(self, client: WebClient, thread_ts: str | None, card: Card, msg: InboundMessage) -> None:
        """Post the card (``chat.postMessage``, possibly several messages) in the thread: the message is
        answered when every part is posted, else what is left goes to the chat's reply outbox."""
        payload = {"channel": msg.channel, "thread_ts": thread_ts, "messages": card_to_messages([card])}
        rest = resend_reply(self.client or client, payload)
        if rest is None:
            self.chat.answered(msg)
        else:
            self.chat.reply_failed(msg, rest, str(rest["error"]))
            return
        self._attach(client, msg.channel, thread_ts, card, msg)

    def _attach(self, client: WebClient, target: str, thread_ts: str | None, card: Card, msg: InboundMessage) -> None:
        """Post the file ``card`` asks for (the full report, :attr:`Card.attachment`) to ``target``
        (a channel, or a user: their DM), in ``thread_ts`` when given, with ``files_upload_v2``."""
        if card.attachment is None:
            return
        files = SlackDelivery(self.client or client)
        dest = Destination(platform=PLATFORM, target=target, workspace=msg.workspace)
        self.chat.attach(msg, card, lambda f: files.upload_file(dest, f, thread=thread_ts, delivery_key=msg.dedup_key))

    def claim_before_ack(self, body: dict[str, Any], context: BoltContext, next: Callable[[], Any]) -> Any:
        """Global bolt middleware, run before the (automatic) ack of an Events API request: the
        event is recorded in the event log first, so when the database is down Slack gets a 503
        and retries (``X-Slack-Retry-Num``) instead of a 200 for an event that is then lost; the
        retry is answered once the database is back. The decision is left in the context."""
        event = body.get("event") if body.get("type") == "event_callback" else None
        if isinstance(event, dict) and event.get("type") in ("app_mention", "message"):
            msg = message_inbound(body, event, bot_ids=self._bot_ids(context), platform=PLATFORM)
            try:
                context["prhub_accepted"] = msg if msg is not None and self.chat.accept(msg) else None
            except PrhubError as exc:
                log.warning("slack event %s: cannot record it (%s): answering 503 so that Slack retries",
                            body.get("event_id"), exc.user_message)
                return BoltResponse(status=503, body='{"error": "temporarily unavailable"}')
        return next()

    def _answer_message(self, body: dict[str, Any], event: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        if "prhub_accepted" in context:
            msg = context["prhub_accepted"]
            if msg is None:
                return  # not for us, or a duplicate
        else:  # (no middleware: Socket Mode tests build listeners directly)
            msg = message_inbound(body, event, bot_ids=self._bot_ids(context), platform=PLATFORM)
            if msg is None or not self.chat.accept(msg):
                return
        card = self.chat.answer(msg)
        if card is None:
            return
        thread = event.get("thread_ts") or (None if msg.is_direct else event.get("ts"))
        self._post(client, thread, card, msg)

    # -- listeners (bolt injects arguments by name) ---------------------------------------------

    def on_app_mention(self, ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext,
                       client: WebClient) -> None:
        """``app_mention``: ack, then answer in the message's thread (once per channel/ts)."""
        ack()
        self._answer_message(body, event, context, client)

    def on_message(self, ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext,
                   client: WebClient) -> None:
        """``message``: ack, then answer DMs, and channel messages that mention the bot."""
        ack()
        self._answer_message(body, event, context, client)

    def on_command(self, ack: Ack, command: dict[str, Any], respond: Respond, context: BoltContext,
                   client: WebClient) -> None:
        """``/prhub QUERY``: record it, ack (empty), then answer through the command's ``response_url``;
        when it cannot be recorded (database down) the ack itself says "temporarily unavailable". A
        file the answer asks for (the full report) goes to the asker's DM: the answer is ephemeral."""
        msg = command_inbound(command, bot_ids=self._bot_ids(context), platform=PLATFORM)
        try:
            accepted = self.chat.accept(msg)
        except PrhubError as exc:
            log.warning("slack command /prhub: cannot record it (%s)", exc.user_message)
            ack(text=tr(self.chat.default_lang, "card.unavailable"))
            return
        ack()
        if not accepted:
            return
        card = self.chat.answer(msg)
        for part in card_to_messages([card]):
            try:
                respond(text=part["text"], blocks=part["blocks"], response_type="ephemeral")
            except Exception:  # noqa: BLE001 - network errors on response_url
                log.warning("slack command /prhub: response_url failed")
                return
        self.chat.answered(msg)
        self._attach(client, msg.user, None, card, msg)

    def on_block_actions(self, ack: Ack, body: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        """``block_actions``: ack; a button of our cards is answered in the card's thread (link
        buttons need nothing more); in the App Home its view is published again."""
        ack()
        actions = body.get("actions") or []
        action = action_of(actions[0]) if actions and isinstance(actions[0], dict) else None
        if action is None:
            return
        if (body.get("container") or {}).get("type") == "view" and self.home is not None:
            self.home.on_action(body, action, client)
            return
        msg = action_inbound(body, action, platform=PLATFORM)
        card = self.chat.handle(msg)
        if card is None:
            return
        container = body.get("container") or {}
        thread = (body.get("message") or {}).get("thread_ts") or str(container.get("message_ts") or "") or None
        if msg.channel:
            self._post(client, thread, card, msg)


def resend_reply(client: WebClient, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Post a reply payload ``{"channel", "thread_ts", "messages": [chat.postMessage text/blocks ...]}``
    in order (the first message's ``ts`` threads the rest when ``thread_ts`` is None).

    Returns:
        None when every message was posted; else the payload of the messages left, threaded under
        the first one posted, with ``error``: Slack's reason (``http_500``, ``network``), never the token.
    """
    thread = payload.get("thread_ts") or None
    messages = list(payload.get("messages") or [])
    for i, m in enumerate(messages):
        kwargs: dict[str, Any] = {"channel": payload["channel"], "text": m["text"], "blocks": m["blocks"],
                                  "unfurl_links": False, "unfurl_media": False}
        if thread:
            kwargs["thread_ts"] = thread
        try:
            resp = client.chat_postMessage(**kwargs)
        except Exception as exc:  # noqa: BLE001 - SDK and network errors, one reason without the token
            return {"channel": payload["channel"], "thread_ts": thread, "messages": messages[i:],
                    "error": f"chat.postMessage: {delivery_error(exc, 'chat.postMessage').reason}"}
        thread = thread or str(resp.get("ts") or "") or None
    return None


def create_slack_app(*, bot_token: str, signing_secret: str, chat: ChatService, api_url: str | None = None,
                     client: WebClient | None = None, bot_ids: Collection[str] = (),
                     listener_executor: Executor | None = None, pool_size: int = 8) -> App:
    """A bolt ``App`` (HTTP mode) with the :class:`SlackChat` listeners registered.

    Connects to nothing: bolt's own token check at construction is off (a Slack that is down or
    answers 500 must not stop ``prhub serve``); :func:`check_slack` makes that check, and bolt
    calls ``auth.test`` on the first event (the bot's ids).

    Args:
        bot_token: ``xoxb-…`` (``SLACK_BOT_TOKEN``).
        signing_secret: ``SLACK_SIGNING_SECRET``.
        chat, bot_ids: see :class:`SlackChat`.
        api_url: Web API base (``SLACK_API_URL``; tests point it at a fake).
        client: a ready ``WebClient`` instead of one built from ``bot_token``/``api_url``.
        listener_executor: where listeners run after the ack (default: bolt's thread pool).
        pool_size: Web API connections kept alive (the threads that post at once: the listeners'
            plus the HTTP threads that post "busy" answers).

    """
    web = client or web_client(bot_token, base_url=api_url, pool_size=pool_size)
    extra: dict[str, Any] = {"listener_executor": listener_executor} if listener_executor is not None else {}
    app = App(token=bot_token, signing_secret=signing_secret, client=web, process_before_response=False,
              logger=logging.getLogger("adapters.slack.bolt"), token_verification_enabled=False, **extra)
    listeners = SlackChat(chat=chat, bot_ids=bot_ids, client=web)
    app.use(listeners.claim_before_ack)
    app.event("app_mention")(listeners.on_app_mention)
    app.event("message")(listeners.on_message)
    app.command("/prhub")(listeners.on_command)
    app.action(re.compile(".*"))(listeners.on_block_actions)
    if listeners.home is not None:
        app.event("app_home_opened")(listeners.home.on_app_home_opened)
    return app


def check_slack(app: App) -> None:
    """Check that Slack answers and accepts the token (``auth.test``).

    Raises:
        chatbot.errors.DeliveryError: one line with Slack's reason (``invalid_auth``: the token;
            ``http_500``: Slack's side; ``network``: unreachable), never the token.
    """
    try:
        app.client.auth_test()
    except Exception as exc:  # noqa: BLE001 - SDK and network errors become one DeliveryError
        raise delivery_error(exc, "auth.test") from None


OBJECT_FIELDS = ("event", "team", "user", "channel", "container", "message", "view", "enterprise")
"""Top-level fields of an event or interactivity payload that bolt's middleware reads with ``.get``:
when present (and not null) they must be JSON objects, or bolt fails with a 500."""


def _not_objects(data: dict[str, Any], what: str) -> str | None:
    """Which of :data:`OBJECT_FIELDS` in ``data`` is present but not an object (None when all are)."""
    for name in OBJECT_FIELDS:
        if data.get(name) is not None and not isinstance(data[name], dict):
            return f"{what} field {name!r} is not an object"
    return None


def malformed(raw: bytes, content_type: str) -> str | None:
    """Why a Slack request body cannot be parsed (None when it can): JSON (events) must be an object
    whose top-level fields that bolt reads as objects (:data:`OBJECT_FIELDS`)
    are objects when present; a form (commands, interactivity) must be UTF-8 ``key=value`` pairs whose
    ``payload``, when present, is a JSON object with the same rule. Nesting too deep for the parser
    counts as malformed."""
    try:
        text = raw.decode("utf-8")
        if "application/json" in content_type:
            data = read_json(raw, source="body", max_bytes=len(raw))
            return _not_objects(data, "JSON body") if isinstance(data, dict) else "JSON body is not an object"
        form = parse_qs(text, keep_blank_values=True, strict_parsing=False, max_num_fields=1000)
        if "payload" in form:
            payload = read_json(form["payload"][0], source="payload", max_bytes=len(raw))
            if not isinstance(payload, dict):
                return "payload is not a JSON object"
            why = _not_objects(payload, "payload")
            if why is not None:
                return why
            actions = payload.get("actions")
            if actions is not None and not (isinstance(actions, list) and all(isinstance(a, dict) for a in actions)):
                return "payload actions is not a list of objects"
        return None
    except JsonDepthError:
        return f"body nests deeper than {MAX_DEPTH} levels"
    except (UnicodeDecodeError, ValueError, InputError) as exc:
        return f"body does not parse ({type(exc).__name__})"


SIGNATURE_WINDOW_SECONDS = 300
"""Slack's replay window: a request timestamp further than 5 minutes from now is refused."""


def signed(raw: bytes, timestamp: str, signature: str, secret: str, now: float,
           window: float = SIGNATURE_WINDOW_SECONDS) -> bool:
    """Whether a request carries Slack's v0 signature: ``X-Slack-Signature`` = ``v0=`` + hex
    HMAC-SHA256 of ``v0:{timestamp}:{raw body}`` with the signing secret (Slack's "verifying
    requests" rule), over the raw bytes, with the timestamp (Unix seconds) within ``window`` of ``now``."""
    if not timestamp.isdigit() or not signature.startswith("v0=") or abs(now - int(timestamp)) > window:
        return False
    want = "v0=" + hmac.new(secret.encode("utf-8"), b"v0:" + timestamp.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, signature)


def create_slack_wsgi(app: App, *, clock: Callable[[], float] = time.time) -> Flask:
    """A Flask (WSGI) app serving bolt ``app`` at ``/slack/events``, ``/slack/commands`` and
    ``/slack/actions`` (POST; all three go through bolt's ``SlackRequestHandler``).

    Before bolt sees a request, the signature is checked (:func:`signed`; else 401, as bolt
    would) and then the body's shape (:func:`malformed`; else 400), so no input reaches bolt's
    parser that would make it answer 500.
    """
    flask_app = Flask("prhub.slack", static_folder=None)
    flask_app.config["PROPAGATE_EXCEPTIONS"] = True  # exceptions reach prhub.guard.RequestGuard (one line, JSON 500), not an HTML page
    handler = SlackRequestHandler(app)
    secret = app._signing_secret

    def endpoint() -> Any:
        req: Request = request
        raw = req.get_data(cache=True)
        if not signed(raw, req.headers.get("X-Slack-Request-Timestamp", ""), req.headers.get("X-Slack-Signature", ""),
                      secret, clock()):
            return Response('{"error": "invalid request"}', status=401, mimetype="application/json")
        why = malformed(raw, req.headers.get("Content-Type", ""))
        if why is not None:
            return Response(json.dumps({"error": why}), status=400, mimetype="application/json")
        return handler.handle(req)

    for path in SLACK_PATHS:
        flask_app.add_url_rule(path, endpoint=path, view_func=endpoint, methods=["POST"])
    return flask_app
