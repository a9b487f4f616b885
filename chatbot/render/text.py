"""Plain-text rendering of chat cards (for ``prhub ask --format text`` and logs).

Text is shown as a reader would see it on a platform: no escaping, no markup; links are written
as ``label <url>`` so they stay usable in a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

from chatbot.cards import (
    Actions,
    Card,
    Context,
    Fields,
    Image,
    Link,
    PRItem,
    PRList,
    PRRef,
    Run,
    Section,
    Text,
    Untrusted,
)
from chatbot.render.escape import safe_url


def _one_line(text: str) -> str:
    return " ".join(text.split())


def runs_to_text(runs: Iterable[Run]) -> str:
    """One line of runs as plain text; a link becomes ``label <url>``."""
    out: list[str] = []
    for r in runs:
        if isinstance(r, Text):
            out.append(r.text)
        elif isinstance(r, Untrusted):
            out.append(_one_line(r.text))
        elif isinstance(r, Link):
            url = safe_url(r.url)
            out.append(f"{_one_line(r.label)} <{url}>" if url else _one_line(r.label))
        elif isinstance(r, PRRef):
            out.append(_pr(r.number, r.title, r.url))
    return "".join(out)


def _pr(number: int, title: str, url: str) -> str:
    text = f"#{number} {_one_line(title)}".rstrip()
    u = safe_url(url)
    return f"{text} <{u}>" if u else text


def _item(item: PRItem) -> str:
    detail = runs_to_text(item.detail)
    head = _pr(item.number, item.title, item.url)
    return f"  - {head}" + (f"\n      {detail}" if detail else "")


def card_to_text(card: Card) -> str:
    """One card as plain text: the header underlined, then each block; ends with a newline."""
    lines = [card.header, "=" * min(len(card.header), 72)]
    for block in card.blocks:
        if isinstance(block, Section):
            lines.append("")
            if block.heading:
                lines.append(f"## {block.heading}")
            lines += [runs_to_text(ln) for ln in block.lines]
        elif isinstance(block, Fields):
            lines.append("")
            lines += [f"{f.label}{block.sep}{runs_to_text(f.value)}" for f in block.items]
        elif isinstance(block, PRList):
            lines.append("")
            if block.heading:
                lines.append(f"## {block.heading}")
            lines += [_item(i) for i in block.items]
            if block.more:
                url = safe_url(block.more_url)
                lines.append(f"  {block.more_text}" + (f" <{url}>" if url else ""))
        elif isinstance(block, Context):
            lines += ["", runs_to_text(block.runs)]
        elif isinstance(block, Actions):
            lines.append("")
            lines += [f"[{b.label}]" + (f" {safe_url(b.url)}" if safe_url(b.url) else "") for b in block.buttons]
        elif isinstance(block, Image):
            lines += ["", f"[{block.alt or 'image'}]"]
    return "\n".join(lines) + "\n"
