"""The Slack side of the chat bot: a slack-bolt ``App`` in HTTP mode behind its Flask adapter.

Handlers, named after the events they take::

    on_app_mention     app_mention in a channel (or group)
    on_message         message: direct messages always; channel messages only when they mention
                       the bot (the twin of an app_mention; whichever copy comes first answers)
    on_command         the /prhub slash command (answered through its response_url)
    on_block_actions   buttons of our cards (``query…`` action ids answer their ``value``)

Every request is acknowledged first (bolt's ``process_before_response=False`` returns the HTTP 200
as soon as ``ack()`` is called and runs the rest of the listener on its executor), so Slack gets
its answer within 3 s however slow the digest is. Bolt verifies the signing secret (a bad
``X-Slack-Signature`` or a timestamp older than 5 minutes: HTTP 401, no listener runs) and drops
our own bot's messages.

De-duplication: the key (:func:`chatbot.events.slack_event_key`, ``(team, channel, ts)`` for
message-like events, ``event_id`` otherwise) is claimed in the persistent :class:`EventLog` only
for a message accepted for processing, so retries (``X-Slack-Retry-Num``) and the
``app_mention``/``message`` twin give exactly one ``chat.postMessage`` in every order. Socket Mode
is not implemented (``SLACK_APP_TOKEN`` is accepted by the settings but unused).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection
from concurrent.futures import Executor
from datetime import datetime
from typing import Any

from flask import Flask, Request, request
from slack_bolt import Ack, App, BoltContext, Respond
from slack_bolt.adapter.flask import SlackRequestHandler
from slack_sdk import WebClient

from adapters.slack.blocks import card_to_messages
from adapters.slack.delivery import delivery_error, web_client
from chatbot.cards import Card
from chatbot.errors import PrhubError
from chatbot.events import EventLog, slack_event_key
from chatbot.i18n import tr
from chatbot.queries import Responder, bot_mentioned, should_answer
from chatbot.subscriptions import Requester

log = logging.getLogger(__name__)

PLATFORM = "slack"
SLACK_PATHS = ("/slack/events", "/slack/commands", "/slack/actions")
_IGNORED_SUBTYPES_OK = frozenset({"", "thread_broadcast", "file_share"})


class SlackChat:
    """The bot's Slack listeners.

    Args:
        responder: parses and answers messages (one repository).
        events: persistent de-duplication (the store's ``claim_event``).
        clock: ``now()`` -> aware datetime (the de-dup record's time).
        admins: Slack user ids allowed to subscribe a channel.
        bot_ids: ids of the bot besides those bolt learns from ``auth.test`` (tests, Socket Mode).
    """

    def __init__(self, *, responder: Responder, events: EventLog, clock: Callable[[], datetime],
                 admins: Collection[str] = (), bot_ids: Collection[str] = ()) -> None:
        self.responder = responder
        self.events = events
        self.clock = clock
        self.admins = frozenset(admins)
        self.bot_ids = frozenset(bot_ids)

    # -- helpers -------------------------------------------------------------------------------

    def _bot_ids(self, context: BoltContext) -> frozenset[str]:
        ids = set(self.bot_ids)
        for v in (context.bot_user_id, context.bot_id):
            if v:
                ids.add(v)
        return frozenset(ids)

    def _requester(self, team: str, user: str, channel: str) -> Requester:
        return Requester(platform="slack", workspace=team, user=user, channel=channel,
                         is_admin=user in self.admins, repo=self.responder.repo)

    def _card(self, text: str, bot_ids: Collection[str], requester: Requester, where: str) -> Card:
        """The answer, or an error card (the single catch-all of the inbound path)."""
        try:
            return self.responder.reply(text, bot_ids=bot_ids, requester=requester)
        except PrhubError as exc:
            log.warning("slack %s: %s", where, exc.user_message)
            return self.responder.error_card(exc.user_message)
        except Exception:  # noqa: BLE001 - the one catch-all of this inbound path
            log.exception("slack %s: answering failed", where)
            return self.responder.error_card(tr(self.responder.default_lang, "card.error.internal"))

    def _post(self, client: WebClient, channel: str, thread_ts: str | None, card: Card, where: str) -> None:
        """Post the card (``chat.postMessage``, possibly several messages) in the thread."""
        first = thread_ts
        for msg in card_to_messages([card]):
            kwargs: dict[str, Any] = {"channel": channel, "text": msg["text"], "blocks": msg["blocks"],
                                      "unfurl_links": False, "unfurl_media": False}
            if first:
                kwargs["thread_ts"] = first
            try:
                resp = client.chat_postMessage(**kwargs)
            except Exception as exc:  # noqa: BLE001 - SDK and network errors, logged without the token
                log.warning("slack %s: chat.postMessage failed: %s", where, delivery_error(exc, "chat.postMessage").reason)
                return
            first = first or str(resp.get("ts") or "") or None

    def _answer_message(self, body: dict[str, Any], event: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        bot_ids = self._bot_ids(context)
        if event.get("bot_id") or event.get("user") in bot_ids or not event.get("user"):
            return  # our own (or another bot's) message
        subtype = event.get("subtype") or ""
        if subtype not in _IGNORED_SUBTYPES_OK:
            return  # edits, deletions, joins, bot_message...
        text = str(event.get("text") or "")
        channel_type = "im" if event.get("channel_type") == "im" else "channel"
        mentioned = event.get("type") == "app_mention" or bot_mentioned(text, bot_ids=bot_ids)
        if not should_answer(channel_type, mentioned=mentioned):
            return  # not for us: nothing is recorded, so the app_mention twin still answers
        key = slack_event_key(body)
        where = f"event {body.get('event_id', '?')} {key}"
        if key and not self.events.claim_event(PLATFORM, key, self.clock()):
            log.info("slack %s: duplicate, ignored", where)
            return
        team = str(body.get("team_id") or event.get("team") or "")
        channel = str(event.get("channel") or "")
        requester = self._requester(team, str(event["user"]), channel)
        card = self._card(text, bot_ids, requester, where)
        thread = event.get("thread_ts") or (None if channel_type == "im" else event.get("ts"))
        self._post(client, channel, thread, card, where)

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

    def on_command(self, ack: Ack, command: dict[str, Any], respond: Respond, context: BoltContext) -> None:
        """``/prhub QUERY``: ack (empty), then answer through the command's ``response_url``."""
        ack()
        key = f"command:{command.get('trigger_id')}" if command.get("trigger_id") else ""
        if key and not self.events.claim_event(PLATFORM, key, self.clock()):
            return
        requester = self._requester(str(command.get("team_id") or ""), str(command.get("user_id") or ""),
                                    str(command.get("channel_id") or ""))
        card = self._card(str(command.get("text") or ""), self._bot_ids(context), requester, "command /prhub")
        for msg in card_to_messages([card]):
            try:
                respond(text=msg["text"], blocks=msg["blocks"], response_type="ephemeral")
            except Exception:  # noqa: BLE001 - network errors on response_url
                log.warning("slack command /prhub: response_url failed")
                return

    def on_block_actions(self, ack: Ack, body: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        """``block_actions``: ack; a ``query…`` button answers its ``value`` in the card's thread;
        link buttons need nothing more."""
        ack()
        actions = body.get("actions") or []
        action = actions[0] if actions else {}
        value = str(action.get("value") or "")
        if not str(action.get("action_id") or "").startswith("query") or not value:
            return
        container = body.get("container") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        message_ts = str(container.get("message_ts") or "")
        key = f"action:{channel}:{message_ts}:{action.get('action_ts', '')}"
        if not self.events.claim_event(PLATFORM, key, self.clock()):
            return
        user = str((body.get("user") or {}).get("id") or "")
        team = str((body.get("team") or {}).get("id") or "")
        card = self._card(value, self._bot_ids(context), self._requester(team, user, channel), "block_actions")
        thread = (body.get("message") or {}).get("thread_ts") or message_ts or None
        if channel:
            self._post(client, channel, thread, card, "block_actions")


def create_slack_app(*, bot_token: str, signing_secret: str, responder: Responder, events: EventLog,
                     clock: Callable[[], datetime], admins: Collection[str] = (), api_url: str | None = None,
                     client: WebClient | None = None, bot_ids: Collection[str] = (),
                     listener_executor: Executor | None = None) -> App:
    """A bolt ``App`` (HTTP mode) with the :class:`SlackChat` listeners registered.

    Calls ``auth.test`` at start (token check) and on the first event (the bot's ids).

    Args:
        bot_token: ``xoxb-…`` (``SLACK_BOT_TOKEN``).
        signing_secret: ``SLACK_SIGNING_SECRET``.
        responder, events, clock, admins, bot_ids: see :class:`SlackChat`.
        api_url: Web API base (``SLACK_API_URL``; tests point it at a fake).
        client: a ready ``WebClient`` instead of one built from ``bot_token``/``api_url``.
        listener_executor: where listeners run after the ack (default: bolt's thread pool).

    Raises:
        slack_bolt.error.BoltError: the token is rejected by ``auth.test``.
    """
    web = client or web_client(bot_token, base_url=api_url)
    extra: dict[str, Any] = {"listener_executor": listener_executor} if listener_executor is not None else {}
    app = App(token=bot_token, signing_secret=signing_secret, client=web, process_before_response=False,
              logger=logging.getLogger("adapters.slack.bolt"), **extra)
    chat = SlackChat(responder=responder, events=events, clock=clock, admins=admins, bot_ids=bot_ids)
    app.event("app_mention")(chat.on_app_mention)
    app.event("message")(chat.on_message)
    app.command("/prhub")(chat.on_command)
    app.action(re.compile(".*"))(chat.on_block_actions)
    return app


def create_slack_wsgi(app: App) -> Flask:
    """A Flask (WSGI) app serving bolt ``app`` at ``/slack/events``, ``/slack/commands`` and
    ``/slack/actions`` (POST; all three go through bolt's ``SlackRequestHandler``)."""
    flask_app = Flask("prhub.slack")
    handler = SlackRequestHandler(app)

    def endpoint() -> Any:
        req: Request = request
        return handler.handle(req)

    for path in SLACK_PATHS:
        flask_app.add_url_rule(path, endpoint=path, view_func=endpoint, methods=["POST"])
    return flask_app
