"""Text of an inbound Feishu message, as :func:`chatbot.queries.parse` takes it (pure).

``text`` messages carry ``{"text": "@_user_1 risks this week"}``; ``post`` (rich text, e.g. from
topic groups) carries ``{"title": ..., "content": [[{"tag": "at", "user_id": "@_user_1"},
{"tag": "text", "text": " PR #1234"}], ...]}``, possibly under a locale key (``zh_cn``). Both become
one string with the ``@_user_N`` placeholders kept, to be resolved through the ``mentions`` array.
"""

from __future__ import annotations

import json
from typing import Any


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
        data = json.loads(content)
    except (ValueError, TypeError):
        return ""
    if not isinstance(data, dict):
        return ""
    if message_type == "text":
        text = data.get("text")
        return text if isinstance(text, str) else ""
    if message_type == "post":
        return _post_text(data)
    return ""
