"""The one JSON reader for input prhub does not write itself: webhooks, chat events, PR files.

``json.loads`` recurses once per nesting level: 5,000 nested ``[`` in a signed webhook raised a
``RecursionError`` (a 500 page with a traceback) and ``prhub digest -i`` of 200 KB of them exited 70
(issue 20). :func:`read_json` parses with ``pydantic_core.from_json`` (the Rust ``jiter`` parser
pydantic brings: iterative, about 2.5× faster than ``json.loads`` on a week's export), which refuses
more than :data:`MAX_DEPTH` levels of nesting at once, and refuses a text over ``max_bytes`` before
parsing it. Every refusal is one :class:`chatbot.errors.InputError` line naming the source and,
for a syntax error, its line and column.

What it returns equals ``json.loads`` of the same text (objects as dicts with the last duplicate key
winning, integers of any size as ``int``, other numbers as ``float``, ``NaN``/``Infinity`` accepted), except
that a lone UTF-16 surrogate escape (``"\\ud800"``) is refused instead of decoded.
"""

from __future__ import annotations

import re
from typing import Any

import pydantic_core

from chatbot.errors import InputError

MAX_DEPTH = 200
"""Nesting levels (arrays and objects) a JSON text may have: ``pydantic_core``'s recursion limit
(201 empty arrays nested parse, a value inside 201 levels does not; our exports nest 6 deep)."""

_AT = re.compile(r"^(?P<msg>.*?) at line (?P<line>\d+) column (?P<col>\d+)$")
_BOM = b"\xef\xbb\xbf"


class JsonDepthError(InputError):
    """A JSON text nested deeper than :data:`MAX_DEPTH`."""


def read_json(data: bytes | str, *, source: str, max_bytes: int, hint: str = "") -> Any:
    """Decode one untrusted JSON text (UTF-8 bytes, a leading BOM allowed, or a str).

    Args:
        data: the text.
        source: what it is, for the message (``POST /github/webhook``, ``week.json``).
        max_bytes: the largest text accepted (bytes, or characters for a str).
        hint: how to fix it, appended to every refusal (``: {hint}``).

    Raises:
        JsonDepthError: nested deeper than :data:`MAX_DEPTH` (``{source}: JSON nested deeper than
            200 levels (line 1, column 202)``).
        InputError: over ``max_bytes``, not UTF-8, or not JSON (``{source}: not valid JSON (line L,
            column C): {what}``).
    """
    fix = f": {hint}" if hint else ""
    if len(data) > max_bytes:
        raise InputError(f"{source}: {len(data)} bytes of JSON, over the limit of {max_bytes}{fix}")
    if isinstance(data, bytes) and data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        return pydantic_core.from_json(data)
    except ValueError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        m = _AT.match(text)
        where = f" (line {m['line']}, column {m['col']})" if m else ""
        what = m["msg"] if m else text
        if what.startswith("recursion limit exceeded"):
            raise JsonDepthError(f"{source}: JSON nested deeper than {MAX_DEPTH} levels{where}{fix}") from None
        raise InputError(f"{source}: not valid JSON{where}: {what[:120]}{fix}") from None
