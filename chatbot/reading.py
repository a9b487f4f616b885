"""How an unsure reading is shown: the answer to the best reading, with one line on top — "I read
this as … — or did you mean: [button] [button]" (issue 19: answer and offer, not the help card).

A reading is described from the query's own fields (:func:`describe`): the catalog's
``read.<intent>`` and the week, modules, topics, labels, risk tag, PR number, path, search text
or author name it holds. The line is untrusted text (a search text is what the user typed); a
button's label carries only trusted parts (catalog words and the rules' names). A button is the
``ask`` action with the alternative query as JSON (:func:`ask_button`); the press is validated
by the registry's query adapter and the rules' names (:func:`query_from_button`) before it is
answered like a typed question.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from chatbot.buttons import ActionValue, button, lang_of
from chatbot.cards import Actions, Block, Button, Card, Section, Text, Untrusted, clip
from chatbot.filters import label_display
from chatbot.i18n import catalog_keys, tr
from chatbot.intent import ECHO_CHARS, QueryBase
from chatbot.module_names import ModuleIndex

LABEL_CHARS = 70
"""The longest button label (Slack allows 75 characters)."""
QUERY_CHARS = 1000
"""The longest query JSON a button carries (:class:`chatbot.buttons.ActionValue` ``query``)."""


def _trusted_parts(q: QueryBase, lang: str, index: ModuleIndex) -> list[str]:
    d = q.model_dump()
    parts: list[str] = []
    weeks = d.get("weeks")
    for ref in (*(weeks if isinstance(weeks, (list, tuple)) else ()), d.get("week")):
        if isinstance(ref, str) and ref != "current":
            parts.append(tr(lang, "read.last_week") if ref == "previous" else ref)
    span = d.get("span")
    if isinstance(span, str):
        kind, _, value = span.partition(":")
        if kind == "month":
            parts.append(tr(lang, "read.this_month" if value == "0" else "read.last_month"))
        elif kind in ("weeks", "since"):
            parts.append(tr(lang, f"read.span.{kind}", value=value))
    mods = list(d.get("modules") or ()) + ([d["module"]] if isinstance(d.get("module"), str) else [])
    parts += [index.display(m, lang) for m in dict.fromkeys(mods) if m in index.ids]
    parts += [index.topic_display(t, lang) for t in d.get("topics") or () if index.topic(t) == t]
    parts += [label_display(lb, lang) for lb in d.get("labels") or ()]
    if isinstance(d.get("tag"), str) and f"risk.{d['tag']}" in catalog_keys(lang):
        parts.append(tr(lang, f"risk.{d['tag']}"))
    if isinstance(d.get("number"), int):
        parts.append(f"#{d['number']}")
    return parts


def describe(q: QueryBase, lang: str, index: ModuleIndex, *, trusted_only: bool = False) -> str:
    """The reading ``q`` in words: ``risky PRs (scheduler)``; with the typed text (a search's words,
    an author's name, a path) unless ``trusted_only``."""
    key = f"read.{q.intent}"
    base = tr(lang, key) if key in catalog_keys(lang) else q.intent
    parts = _trusted_parts(q, lang, index)
    if not trusted_only:
        for field in ("text", "name", "path"):
            v = getattr(q, field, None)
            if isinstance(v, str) and v:
                parts.append(f"“{clip(v, 60)}”")
        words = getattr(q, "words", ())
        if isinstance(words, tuple) and words:
            parts.append(" ".join(words))
    return tr(lang, "read.with", what=base, parts=tr(lang, "sep").join(parts)) if parts else base


def ask_button(q: QueryBase, lang: str, index: ModuleIndex, repo: str) -> Button | None:
    """A button asking ``q`` (the ``ask`` action), or None when its JSON does not fit a button."""
    data = json.dumps(q.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if len(data) > QUERY_CHARS:
        return None
    b = button(lang, "read.button", "ask", ActionValue(repo=repo, lang=lang_of(lang), query=data),
               what=clip(describe(q, lang, index, trusted_only=True), LABEL_CHARS))
    return b


def offer(card: Card, reading: QueryBase, alternatives: Sequence[QueryBase], index: ModuleIndex, *, repo: str,
          buttons: bool) -> Card:
    """``card`` with the reading line on top (and, with ``buttons``, a row asking each alternative)."""
    lang = card.lang
    runs: list[Text | Untrusted] = [Text(text=tr(lang, "read.as")),
                                    Untrusted(text=clip(describe(reading, lang, index), ECHO_CHARS))]
    if alternatives:
        runs += [Text(text=tr(lang, "read.or")),
                 Untrusted(text=clip(tr(lang, "read.alt_sep").join(describe(a, lang, index) for a in alternatives),
                                     ECHO_CHARS))]
    blocks: list[Block] = [Section(role="reading", lines=(tuple(runs),)), *card.blocks]
    if buttons and alternatives:
        row = [b for a in alternatives if (b := ask_button(a, lang, index, repo)) is not None]
        if row:
            blocks.append(Actions(buttons=tuple(row)))
    return card.model_copy(update={"blocks": tuple(blocks)})


def query_from_button(raw: str, adapter: Any, index: ModuleIndex) -> QueryBase | None:
    """The query an ``ask`` button carries, or None when it is not one the registry and the rules
    accept (a module, topic or label the rules do not have is refused, so no foreign name reaches
    a card as trusted text)."""
    try:
        q = adapter.validate_json(raw)
    except (ValidationError, ValueError, RecursionError):
        return None
    return q if isinstance(q, QueryBase) and known_names(q, index) else None


def known_names(q: QueryBase, index: ModuleIndex) -> bool:
    """Whether every module, topic and label ``q`` holds is one of the rules' (a query built outside
    the parser — a button, a model's tool call — may hold any string)."""
    d = q.model_dump()
    mods = list(d.get("modules") or ()) + ([d["module"]] if isinstance(d.get("module"), str) else [])
    return not (any(m not in index.ids for m in mods) or any(index.topic(t) != t for t in d.get("topics") or ())
                or any(lb not in index.label_aliases() for lb in d.get("labels") or ()))
