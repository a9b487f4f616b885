"""Inbound Slack events as the core's :class:`chatbot.inbound.InboundMessage` (pure).

Slack's ``text`` carries markup: mentions ``<@U123>``/``<@U123|name>``, channels ``<#C1|general>``,
specials ``<!channel>``, links ``<https://x|label>``, and ``&``, ``<``, ``>`` escaped as entities.
:func:`strip_markup` keeps a link's URL (``/pull/42202`` is a PR lookup), drops every other token
(another user's id is never read as a module or a PR number), decodes the entities, and says
whether the bot itself was mentioned.

De-duplication key (:func:`event_key`): Slack retries an event it thinks unanswered and sends a
channel message that mentions the app twice (``app_mention`` and ``message``, different
``event_id``, same ``channel``/``ts``), so message-like events are keyed ``msg:{team}:{channel}:{ts}``;
other events ``event:{event_id}``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Mapping
from typing import Any

from pydantic import ValidationError

from chatbot.cards import Action
from chatbot.inbound import InboundMessage

MESSAGE_EVENTS = frozenset({"message", "app_mention"})
ANSWERED_SUBTYPES = frozenset({"", "thread_broadcast", "file_share"})
"""``message`` subtypes that are a user's words (edits, deletions, joins and bot messages are not)."""
DIRECT_CHANNEL_TYPE = "im"

_LINK = re.compile(r"<(https?://[^>|\s]+)(?:\|[^>]*)?>")
_TOKEN = re.compile(r"<([@#!])([^>|\s]*)(?:\|[^>]*)?>")


def strip_markup(text: str, *, bot_ids: Collection[str]) -> tuple[str, bool]:
    """``(text, bot_mentioned)``: Slack markup reduced to plain text (see the module docstring)."""
    bot = False

    def token(m: re.Match[str]) -> str:
        nonlocal bot
        if m.group(1) == "@" and m.group(2) in bot_ids:
            bot = True
        return " "

    s = _LINK.sub(lambda m: f" {m.group(1)} ", text)
    s = _TOKEN.sub(token, s)
    s = s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return s, bot


def bot_mentioned(text: str, *, bot_ids: Collection[str]) -> bool:
    """Whether ``text`` mentions the bot (``<@U_BOT>`` or ``<@U_BOT|name>``)."""
    return strip_markup(text, bot_ids=bot_ids)[1]


def event_key(body: Mapping[str, Any]) -> str:
    """The de-duplication key of an Events API body (``{"team_id", "event_id", "event": {...}}``).

    ``msg:T_TEST:C_DIGEST:1718000000.000100`` for ``message``/``app_mention`` events with a channel
    and ``ts``; ``event:Ev001`` otherwise; ``""`` when the body has neither.
    """
    event = body.get("event") or {}
    if not isinstance(event, Mapping):
        event = {}
    team = body.get("team_id") or event.get("team") or ""
    channel, ts = event.get("channel"), event.get("ts")
    if event.get("type") in MESSAGE_EVENTS and channel and ts:
        return f"msg:{team}:{channel}:{ts}"
    event_id = body.get("event_id")
    return f"event:{event_id}" if event_id else ""


def message_inbound(body: Mapping[str, Any], event: Mapping[str, Any], *, bot_ids: Collection[str],
                    platform: str = "slack") -> InboundMessage | None:
    """An ``app_mention``/``message`` event as an InboundMessage; None for our own or another
    bot's message, a message without a user, and subtypes that are not a user's words."""
    if event.get("bot_id") or event.get("user") in bot_ids or not event.get("user"):
        return None
    if (event.get("subtype") or "") not in ANSWERED_SUBTYPES:
        return None
    text, mentioned = strip_markup(str(event.get("text") or ""), bot_ids=bot_ids)
    key = event_key(body)
    return InboundMessage(
        platform=platform, workspace=str(body.get("team_id") or event.get("team") or ""),
        channel=str(event.get("channel") or ""), user=str(event["user"]), text=text,
        is_direct=event.get("channel_type") == DIRECT_CHANNEL_TYPE,
        addressed_to_bot=event.get("type") == "app_mention" or mentioned,
        dedup_key=key, where=f"event {body.get('event_id', '?')} {key}")


def command_inbound(command: Mapping[str, Any], *, bot_ids: Collection[str], platform: str = "slack") -> InboundMessage:
    """A ``/prhub`` slash command: addressed to the bot, keyed by its ``trigger_id``."""
    text, _ = strip_markup(str(command.get("text") or ""), bot_ids=bot_ids)
    trigger = command.get("trigger_id")
    return InboundMessage(platform=platform, workspace=str(command.get("team_id") or ""),
                          channel=str(command.get("channel_id") or ""), user=str(command.get("user_id") or ""),
                          text=text, is_direct=True, addressed_to_bot=True,
                          dedup_key=f"command:{trigger}" if trigger else "", where="command /prhub")


def action_of(action: Mapping[str, Any]) -> Action | None:
    """The core's :class:`Action` of one ``block_actions`` action (``action_id`` ``risks-3-0`` ->
    id ``risks``; its ``value`` or a select's ``selected_option.value``); None for link buttons
    (they carry a ``url`` and need no answer) and for ids that are not an action id."""
    if action.get("url"):
        return None
    name = str(action.get("action_id") or "").split("-", 1)[0]
    selected = action.get("selected_option")
    value = action.get("value") if action.get("value") is not None else (
        selected.get("value") if isinstance(selected, Mapping) else "")
    try:
        return Action(id=name, value=str(value or ""))
    except ValidationError:
        return None


def action_inbound(body: Mapping[str, Any], action: Action, *, platform: str = "slack") -> InboundMessage:
    """A button of our cards pressed in a conversation (``block_actions``), keyed by what identifies
    the press: channel, message ts (or view id), user, the action's ``action_id`` and value, and its
    ``action_ts`` when Slack sends one (a retry of the same press has the same key; two presses with
    different buttons, values or users differ even without ``action_ts``). Long keys are hashed
    (SHA-256, 40 hex chars) to fit the 255-character event key."""
    container = body.get("container") or {}
    channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
    raw = (body.get("actions") or [{}])[0]
    user = str((body.get("user") or {}).get("id") or "")
    where = str(container.get("message_ts") or container.get("view_id") or "")
    key = ":".join(["action", channel, where, user, str(raw.get("action_id") or ""), action.value,
                    str(raw.get("action_ts") or "")])
    if len(key) > 200:
        key = "action:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]
    return InboundMessage(platform=platform, workspace=str((body.get("team") or {}).get("id") or ""), channel=channel,
                          user=user, is_direct=True,
                          addressed_to_bot=True, dedup_key=key, where=f"block_actions {action.id}", action=action)
