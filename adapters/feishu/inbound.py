"""Inbound Feishu messages as the core's :class:`chatbot.inbound.InboundMessage` (pure).

``text`` messages carry ``{"text": "@_user_1 risks this week"}``; ``post`` (rich text, e.g. from
topic groups) carries ``{"title": ..., "content": [[{"tag": "at", "user_id": "@_user_1"},
{"tag": "text", "text": " PR #1234"}], ...]}``, possibly under a locale key (``zh_cn``). Both become
one string with the ``@_user_N`` placeholders kept (:func:`message_text`); :func:`strip_mentions`
then resolves them through the ``mentions`` array (is one of them the bot?) and removes them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from chatbot.errors import InputError
from chatbot.json_input import read_json

DIRECT_CHAT_TYPE = "p2p"
"""``message.chat_type`` of a one-to-one chat with the bot (groups are ``group``)."""

_AT = re.compile(r"@_(?:user_\d+|all)\b", re.ASCII)


class Mention(BaseModel):
    """A ``mentions`` entry: the placeholder ``key`` (``@_user_1``), the user ``id`` (open_id), and
    the display ``name``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    key: str
    id: str = ""
    name: str = ""


def _post_text(post: dict[str, Any]) -> str:
    if "content" not in post:  # {"zh_cn": {...}} form: the first locale
        for value in post.values():
            if isinstance(value, dict) and "content" in value:
                post = value
                break
    parts: list[str] = []
    title = post.get("title")
    if isinstance(title, str) and title.strip():
        parts.append(title)
    for paragraph in post.get("content") or []:
        if not isinstance(paragraph, list):
            continue
        line: list[str] = []
        for el in paragraph:
            if not isinstance(el, dict):
                continue
            tag = el.get("tag")
            if tag in ("text", "a", "md"):
                line.append(str(el.get("text", "")))
            elif tag == "at":
                line.append(f" {el.get('user_id', '')} ")
        parts.append("".join(line))
    return "\n".join(parts)


def message_text(message_type: str, content: str) -> str:
    """The text of a ``text`` or ``post`` message's ``content`` JSON string; ``""`` for other types
    or content that is not a JSON object (never raises on bad content)."""
    try:
        data = read_json(content, source="message content", max_bytes=len(content))
    except (InputError, TypeError):
        return ""
    if not isinstance(data, dict):
        return ""
    if message_type == "text":
        text = data.get("text")
        return text if isinstance(text, str) else ""
    if message_type == "post":
        return _post_text(data)
    return ""


def strip_mentions(text: str, *, bot_ids: Collection[str], mentions: Sequence[Mention] = ()) -> tuple[str, bool]:
    """``(text, bot_mentioned)``: every ``@_user_N``/``@_all`` placeholder (and any other key given
    in ``mentions``) replaced by a space, and whether one of them resolves to a ``bot_ids`` open_id."""
    bot = False
    by_key = {m.key: m for m in mentions}

    def sub(m: re.Match[str]) -> str:
        nonlocal bot
        mention = by_key.get(m.group(0))
        if mention is not None and mention.id in bot_ids:
            bot = True
        return " "

    s = _AT.sub(sub, text)
    for mention in mentions:  # keys that are not @_user_N (defensive: any key given is a mention)
        if mention.key and mention.key in s:
            if mention.id in bot_ids:
                bot = True
            s = s.replace(mention.key, " ")
    return s, bot


def bot_mentioned(text: str, *, bot_ids: Collection[str], mentions: Sequence[Mention] = ()) -> bool:
    """Whether a placeholder in ``text`` resolves to the bot."""
    return strip_mentions(text, bot_ids=bot_ids, mentions=mentions)[1]


def event_key(message_id: str | None, event_id: str | None) -> str:
    """The de-duplication key of a Feishu event: ``msg:om_...``, else ``event:ev_...``, else ``""``.

    Feishu re-pushes an unanswered event at about 15 s, 5 min, 1 h and 6 h, sometimes with a new
    ``event_id``, so the message id is the key whenever there is one.
    """
    if message_id:
        return f"msg:{message_id}"
    return f"event:{event_id}" if event_id else ""
