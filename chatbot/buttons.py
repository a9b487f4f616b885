"""Chat buttons, platform-free: what a button carries and how an intent declares its own.

A button that is not a link carries an :class:`chatbot.cards.Action` ``(id, value)``. The ``value``
is a compact JSON object written here (:func:`encode`: repository, ISO week, module, language);
it comes back from the platform **untrusted**: :func:`decode` reads it, and
:func:`chatbot.actions.query_of` validates it before the intent sees it.

An intent declares its buttons with itself (:class:`chatbot.intent.Intent`): ``actions`` maps the
action ids it answers to a :class:`ChatAction` (the query a press asks), and ``buttons`` gives the
buttons under one of its answers (from :class:`ButtonContext`: the card's language, repository,
the week shown and the current week). :mod:`chatbot.actions` builds the registry of actions and
the decoration of answers from the intents.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chatbot.cards import Action, Actions, Block, Button, Card
from chatbot.errors import InputError
from chatbot.i18n import DEFAULT_LANG, Lang, lang_or, tr
from chatbot.json_input import read_json
from chatbot.weeks import IsoWeek

if TYPE_CHECKING:
    from chatbot.intent import QueryBase


class ActionValue(BaseModel):
    """The argument of a chat button (what :func:`encode` writes into ``Action.value``).

    Attributes:
        repo: ``owner/name`` the card is about (``""``: the conversation's repository).
        week: ISO week ``2026-W19`` (``""``: none).
        module: module id (``""``: none).
        lang: the card's language (a :data:`~chatbot.i18n.Lang`); the answer is written in it.
        query: the query an ``ask`` button asks (validated by the registry when pressed).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    repo: str = Field(default="", max_length=140)
    week: str = Field(default="", max_length=8)
    module: str = Field(default="", max_length=100)
    lang: Lang = DEFAULT_LANG
    query: str = Field(default="", max_length=1000)
    """A whole query as JSON (the ``ask`` action of a "did you mean" button, :mod:`chatbot.reading`)."""


def lang_of(lang: str) -> str:
    """``lang`` when it has a catalog, else the default language (what a button's answer is written in)."""
    return lang_or(lang)


def encode(value: ActionValue) -> str:
    """``value`` as compact JSON (keys sorted, defaults left out): same value, same bytes."""
    return json.dumps(value.model_dump(exclude_defaults=True), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def decode(raw: str) -> ActionValue | None:
    """The :class:`ActionValue` in an untrusted ``Action.value``; None when it is not one."""
    try:
        data = read_json(raw, source="button value", max_bytes=len(raw)) if raw else {}
        return ActionValue.model_validate(data) if isinstance(data, dict) else None
    except (InputError, ValidationError):
        return None


@dataclass(frozen=True)
class ChatAction:
    """What pressing a button of one action id asks.

    Attributes:
        make: the query a press asks, from the (already validated) :class:`ActionValue`.
        needs_module: the press must name a module of the repository's rules (``bad_module`` else).
    """

    make: Callable[[ActionValue], QueryBase]
    needs_module: bool = False


def week_action(cls: Callable[..., QueryBase]) -> ChatAction:
    """The action asking ``cls(lang=, week=)`` for the button's week (``current`` without one)."""
    return ChatAction(make=lambda v: cls(lang=v.lang, week=v.week or "current"))


@dataclass(frozen=True)
class ButtonContext:
    """What an intent's ``buttons`` sees of an answer: the card's ``lang``, the ``repo`` answered
    about, the week the answer ``shown``\\ s and the ``current`` ISO week (no "Next week" from it)."""

    lang: str
    repo: str
    shown: IsoWeek
    current: IsoWeek

    def value(self, **fields: Any) -> ActionValue:
        """An :class:`ActionValue` for this answer's repository and language, with ``fields``."""
        return ActionValue(repo=self.repo, lang=lang_of(self.lang), **fields)

    def more_risks(self) -> Button:
        """More risks (the ``risks`` action of the week shown)."""
        return button(self.lang, "card.button.more_risks", "risks", self.value(week=str(self.shown)))

    def weeks(self, action_id: str, module: str = "") -> list[Button]:
        """◀ Previous week and Next week ▶ of the week shown (:func:`week_buttons`)."""
        return week_buttons(self.lang, action_id, self.repo, self.shown, current=self.current, module=module)


def button(lang: str, label_key: str, action_id: str, value: ActionValue, **fmt: Any) -> Button:
    """A chat button: label from the catalog, ``Action(action_id, encode(value))``."""
    return Button(label=tr(lang, label_key, **fmt), action=Action(id=action_id, value=encode(value)))


def week_buttons(lang: str, action_id: str, repo: str, week: IsoWeek, *, current: IsoWeek | None,
                 module: str = "") -> list[Button]:
    """◀ Previous week, and Next week ▶ when ``week`` is before ``current`` (None: never)."""
    out = [button(lang, "card.button.prev_week", action_id,
                  ActionValue(repo=repo, week=str(week.previous()), module=module, lang=lang_of(lang)))]
    if current is not None and week < current:
        out.append(button(lang, "card.button.next_week", action_id,
                          ActionValue(repo=repo, week=str(week.next()), module=module, lang=lang_of(lang))))
    return out


def with_buttons(card: Card, buttons: Sequence[Button]) -> Card:
    """``card`` with ``buttons`` first in its trailing row of buttons (a new row when it has none)."""
    if not buttons:
        return card
    blocks: list[Block] = list(card.blocks)
    if blocks and isinstance(blocks[-1], Actions):
        last = blocks.pop()
        assert isinstance(last, Actions)
        row = Actions(buttons=(*buttons, *last.buttons))
    else:
        row = Actions(buttons=tuple(buttons))
    return card.model_copy(update={"blocks": (*blocks, row)})
