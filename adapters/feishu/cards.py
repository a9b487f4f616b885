"""Feishu/Lark interactive cards (card JSON 2.0) from the core's :class:`~chatbot.cards.Card` (pure).

One language per card (the Card's). Text goes into ``markdown`` elements with only what lark_md
would read as syntax entity-escaped (``&#60;`` for ``<``, ``&#42;`` for ``*`` ..., the escapes
Feishu documents for its rich-text component): tags and entities (``<at id=all></at>``,
``<font ...>``, ``&``), emphasis, code, strike, table and formula markers, an ``_`` that is not
inside a word, and the heading/list/quote markers only at the start of a line. So digits,
``+400/-20`` or ``gpu_model`` mid-line stay as typed, and ``[`` is left alone unless it could start
a link (``[Bugfix]`` shows without backslashes). The header is a ``plain_text`` element. No
markdown tables are emitted.

Payloads (``docs/platform-limits.md``): ``im.v1.message.create`` takes ``msg_type="interactive"``
and ``content`` = the card object as a JSON string (no ``card`` wrapper); custom-bot webhooks take
``{"msg_type": "interactive", "card": {...}}``. Feishu's 30 KB limit counts the request body, in
which the card is a JSON string (every quote escaped again; with ASCII-only JSON, as
``requests``' ``json=`` or ``json.dumps`` defaults write it, every Chinese character would be a
6-byte ``\\uXXXX`` escape): a send's body is :func:`request_body` (compact UTF-8 JSON), the one
serialisation both :class:`~adapters.feishu.delivery.FeishuDelivery` sends and
:func:`request_body_bytes` measures, and :func:`adapters.feishu.messages.cards_to_feishu` splits a
card whose body would pass 25,000 bytes (failures are observed from about 28 KB) before the card is
rendered here: the renderers take a fitted card and only translate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chatbot.cards.model import (
    Actions,
    Block,
    Card,
    Context,
    Fields,
    Image,
    Link,
    PRItem,
    PRList,
    PRRef,
    Section,
    Text,
    Untrusted,
)
from chatbot.render.escape import break_urls, safe_url

MAX_CARD_BYTES = 25_000
"""prhub's limit on a send's request body (UTF-8 bytes, :func:`request_body_bytes`)."""
HARD_CARD_BYTES = 30_000
"""Feishu's limit on the request body of a card message (larger: code 230025)."""
RECEIVE_ID_BOUND = 64
"""Longest ``receive_id`` (chat/open/union id, e-mail) assumed when sizing a body before the target is known."""
MAX_ELEMENT_CHARS = 6_000

_ENTITIES = {
    "&": "&#38;",
    "<": "&#60;",
    ">": "&#62;",
    "*": "&#42;",
    "_": "&#95;",
    "~": "&#126;",
    "`": "&#96;",
    "\\": "&#92;",
    "|": "&#124;",
    "$": "&#36;",
}
_SPECIAL = re.compile(r"[&<>*~`\\|$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LINK_START = re.compile(r"\]([(\[])")
_LEADING = re.compile(r"^([#+\-=>]|\d+[.)])")


def escape_md(text: str, *, line_start: bool = True) -> str:
    """Entity-escape untrusted text for a Feishu ``markdown`` element (one line).

    ``&<>*~`\\|$`` become numeric entities, and ``_`` unless it is inside a word (``gpu_model``
    stays, ``_x_`` does not); ``](`` and ``][`` get their second bracket escaped (no link can form)
    and a trailing ``]`` is escaped. With ``line_start`` (the text begins a line) a leading ``#``,
    ``-``, ``+``, ``=``, ``>`` or ``1.`` is escaped too (no heading, list or quote); mid-line,
    digits and signs stay as typed (``2.6``, ``+400/-20``). ``[Bugfix] x`` stays ``[Bugfix] x``. A bare
    URL of a host other than GitHub is broken first (:func:`chatbot.render.escape.break_urls`:
    ``https://evil.example/phish`` -> ``https://evil[.]example/phish``), so Feishu does not link it.
    """
    s = break_urls(" ".join(text.split()))
    s = _SPECIAL.sub(lambda m: _ENTITIES[m.group(0)], s)
    s = _LINK_START.sub(lambda m: "]" + ("&#40;" if m.group(1) == "(" else "&#91;"), s)
    if s.endswith("]"):
        s = s[:-1] + "&#93;"
    m = _LEADING.match(s) if line_start else None
    if m:
        first = m.group(1)[0]
        s = f"&#{ord(first)};" + s[1:]
    return s


def _label(text: str) -> str:
    """Escape a link label: as :func:`escape_md`, brackets included."""
    return escape_md(text, line_start=False).replace("[", "&#91;").replace("]", "&#93;")


def _url(url: str) -> str:
    u = safe_url(url)
    return u.replace("(", "%28").replace(")", "%29")


def _bold(text: str) -> str:
    s = escape_md(text, line_start=False)  # after the ** marker
    return f"**{s}**" if s else ""


def _pr(ref: PRRef) -> str:
    url = _url(ref.url)
    head = f"[#{ref.number}]({url})" if url else f"#{ref.number}"
    title = escape_md(ref.title, line_start=False)
    return f"{head} {title}" if title else head


def render_runs(runs: Iterable[Text | Untrusted | Link | PRRef], *, line_start: bool = True) -> str:
    """One line of runs as Feishu markdown (text entity-escaped, links as ``[label](url)``).

    Line-start markers are escaped only in the first visible run when ``line_start`` is true
    (the runs begin a line), so ``2.6`` after ``**Average**:`` is not turned into entities.
    """
    out: list[str] = []
    for r in runs:
        start = line_start and not "".join(out).strip()
        if isinstance(r, (Text, Untrusted)):
            core = r.text.strip()
            if not core:
                out.append(" " if r.text else "")
                continue
            lead = " " if r.text[0].isspace() else ""
            trail = " " if r.text[-1].isspace() else ""
            body = _bold(core) if isinstance(r, Text) and r.bold else escape_md(core, line_start=start)
            out.append(lead + body + trail)
        elif isinstance(r, Link):
            url = _url(r.url)
            out.append(f"[{_label(r.label) or url}]({url})" if url else escape_md(r.label, line_start=start))
        else:
            out.append(_pr(r))
    return "".join(out)


def _item_line(item: PRItem) -> str:
    line = "- " + _pr(PRRef(number=item.number, url=item.url, title=item.title))
    detail = render_runs(item.detail, line_start=False)
    return f"{line} — {detail}" if detail else line


def _markdown(lines: Sequence[str], size: str = "normal") -> list[dict[str, Any]]:
    """Markdown elements of at most ``MAX_ELEMENT_CHARS`` each (split between lines)."""
    chunks: list[list[str]] = []
    total = 0
    for line in lines:
        line = line[:MAX_ELEMENT_CHARS]
        if chunks and total + 1 + len(line) <= MAX_ELEMENT_CHARS:
            chunks[-1].append(line)
            total += 1 + len(line)
        else:
            chunks.append([line])
            total = len(line)
    out = []
    for c in chunks:
        el: dict[str, Any] = {"tag": "markdown", "content": "\n".join(c)}
        if size != "normal":
            el["text_size"] = size
        out.append(el)
    return out


def _element(block: Block) -> list[dict[str, Any]]:
    if isinstance(block, Section):
        lines = ([_bold(block.heading)] if block.heading else []) + [render_runs(ln) for ln in block.lines]
        return _markdown([ln for ln in lines if ln]) if any(lines) else []
    if isinstance(block, Fields):
        return _markdown([f"{_bold(f.label)}{block.sep}{render_runs(f.value, line_start=False)}" for f in block.items]) if block.items else []
    if isinstance(block, PRList):
        lines = [_bold(block.heading)] if block.heading else []
        lines += [_item_line(i) for i in block.items]
        if block.more:
            url = _url(block.more_url)
            text = escape_md(block.more_text)
            lines.append(f"[{_label(block.more_text)}]({url})" if url else text)
        return _markdown(lines) if lines else []
    if isinstance(block, Context):
        text = render_runs(block.runs)
        return _markdown([text], "notation") if text.strip() else []
    if isinstance(block, Actions):
        out: list[dict[str, Any]] = []
        for b in block.buttons:
            url = _url(b.url)
            if not url and b.action is None:
                continue  # neither a safe link nor an action: nothing to press
            behavior: dict[str, Any] = (
                {"type": "open_url", "default_url": url} if url or b.action is None
                else {"type": "callback", "value": {"action": b.action.id, "value": b.action.value}}
            )
            out.append({"tag": "button", "text": {"tag": "plain_text", "content": b.label},
                        "type": "primary" if not out else "default", "behaviors": [behavior]})
        return out
    if isinstance(block, Image):
        return [{"tag": "img", "img_key": block.key, "alt": {"tag": "plain_text", "content": block.alt},
                 "scale_type": "fit_horizontal", "preview": True}]
    return []


def card_to_feishu_card(card: Card) -> dict[str, Any]:
    """The card JSON 2.0 object of one card (``schema``, ``config``, ``header``, ``body``).

    ``card`` is taken as fitted (:func:`chatbot.cards.fit.fit` with
    :data:`adapters.feishu.messages.FEISHU_LIMITS`: header, button labels, alt texts and the
    summary cut); the result is not size-checked: :func:`adapters.feishu.messages.cards_to_feishu`
    fits and splits cards to within 25,000 bytes before rendering them here.
    """
    elements: list[dict[str, Any]] = []
    for block in card.blocks:
        elements.extend(_element(block))
    if not elements:
        elements = [{"tag": "markdown", "content": escape_md(card.fallback) or " "}]
    summary = card.fallback
    return {
        "schema": "2.0",
        "config": {"update_multi": True, "summary": {"content": summary}},
        "header": {"title": {"tag": "plain_text", "content": card.header or "prhub"}, "template": "blue"},
        "body": {"elements": elements},
    }


def card_json(card: dict[str, Any]) -> str:
    """The compact JSON text of a card object (UTF-8 characters kept, no spaces)."""
    return json.dumps(card, ensure_ascii=False, separators=(",", ":"))


def card_bytes(card: dict[str, Any]) -> int:
    """Size of :func:`card_json` in UTF-8 bytes (the ``content`` string alone)."""
    return len(card_json(card).encode("utf-8"))


def request_body(fields: Mapping[str, Any]) -> bytes:
    """The bytes of a Feishu send's JSON request body: compact JSON, non-ASCII kept, UTF-8.

    The one serialisation of message bodies: :class:`~adapters.feishu.delivery.FeishuDelivery`
    sends exactly these bytes and :func:`request_body_bytes` measures them."""
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def request_body_bytes(card: dict[str, Any], *, receive_id: str = "o" * RECEIVE_ID_BOUND,
                       uuid: str = "u" * 50) -> int:
    """UTF-8 bytes of the ``im.v1.message.create`` body that sends ``card`` (:func:`request_body`
    of ``receive_id``, ``msg_type``, ``content`` = the card JSON string, ``uuid``): what Feishu's
    30 KB limit counts. The default ``receive_id`` (64 characters) and ``uuid`` (50, Feishu's
    maximum) bound the envelope before the target is known; a reply's body is smaller."""
    return len(request_body({"receive_id": receive_id, "msg_type": "interactive", "content": card_json(card), "uuid": uuid}))


def message_payload(card: dict[str, Any]) -> dict[str, str]:
    """Body fields for ``im.v1.message.create``: ``{"msg_type": "interactive", "content": <card JSON>}``.

    ``content`` is the card object itself as a JSON string (no ``card`` wrapper).
    """
    return {"msg_type": "interactive", "content": card_json(card)}


def webhook_payload(card: dict[str, Any]) -> dict[str, Any]:
    """Body of a custom-bot webhook POST: ``{"msg_type": "interactive", "card": {...}}``."""
    return {"msg_type": "interactive", "card": card}
