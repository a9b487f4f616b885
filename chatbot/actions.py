"""Card buttons and what pressing one does, platform-free.

A button that is not a link carries an :class:`chatbot.cards.Action` ``(id, value)``. The ``value``
is a compact JSON object written here (:func:`encode`: repository, ISO week, module, language);
it comes back from the platform **untrusted**, so :func:`query_of` validates it (known action id,
an ISO week between 1970 and the current week, a module of the repository's rules, a known
language) and turns a bad one into one line of text, never an exception.

The action registry :data:`ACTIONS` routes the chat actions to the intents (one line each): a
button asks exactly what a typed message would, so its answer is the same card (with its own
buttons). Actions that change something outside chat (``approve`` / ``skip`` of the weekly post)
are handlers the wiring adds (:class:`chatbot.inbound.ChatService` ``handlers``).

Buttons per answer (:func:`decorate`)::

    summary, top PRs     More risks · ◀ Previous week · Next week ▶   (+ Full report when public)
    risks                ◀ Previous week · Next week ▶
    module               Subscribe to this module · ◀ · ▶
    the weekly post      More risks · ◀ Previous week  (:func:`digest_buttons`; the next week has not ended)

"Next week" is shown only for a week before the current one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chatbot.cards import Action, Actions, Block, Button, Card, message_card
from chatbot.errors import InputError
from chatbot.i18n import DEFAULT_LANG, Lang, lang_or, tr
from chatbot.intent import QueryBase
from chatbot.json_input import read_json
from chatbot.intents.module import ModuleQuery
from chatbot.intents.risks import RisksQuery
from chatbot.intents.subscriptions import SubscribeQuery, UnsubscribeQuery
from chatbot.intents.summary import SummaryQuery
from chatbot.intents.top_prs import TopPRsQuery
from chatbot.models import DigestText
from chatbot.module_names import ModuleIndex
from chatbot.weeks import IsoWeek


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


def _week_query(cls: Callable[..., QueryBase]) -> Callable[[ActionValue], QueryBase]:
    return lambda v: cls(lang=v.lang, week=v.week or "current")


ACTIONS: Mapping[str, Callable[[ActionValue], QueryBase]] = {
    "risks": _week_query(RisksQuery),
    "summary": _week_query(SummaryQuery),
    "top_prs": _week_query(TopPRsQuery),
    "module": lambda v: ModuleQuery(lang=v.lang, week=v.week or "current", module=v.module or None, asked=v.module),
    "subscribe": lambda v: SubscribeQuery(lang=v.lang, modules=(v.module,) if v.module else (), asked=v.module),
    "unsubscribe": lambda v: UnsubscribeQuery(lang=v.lang, modules=(v.module,) if v.module else (), asked=v.module),
}
"""The chat actions: action id -> the query a press asks (answered by that intent)."""

_NEEDS_MODULE = frozenset({"module", "subscribe", "unsubscribe"})


def problem_card(lang: str, key: str) -> Card:
    """The one-line answer to a button that cannot be honoured (catalog ``card.action.<key>``)."""
    lg = lang_or(lang)
    return message_card(tr(lg, "card.action.header"), [tr(lg, f"card.action.{key}")], lang=lg, role="action_problem")


def query_of(action: Action, value: ActionValue, *, modules: ModuleIndex, current: IsoWeek) -> QueryBase | Card:
    """The query a chat button asks, or the one-line card saying why it cannot be asked.

    Checks: the id is in :data:`ACTIONS` (``unknown``); ``week`` is an
    ISO week from 1970 up to ``current`` (``bad_week``); ``module`` is one of ``modules``
    (``bad_module``, also when an action that needs one has none).
    """
    make = ACTIONS.get(action.id)
    if make is None:
        return problem_card(value.lang, "unknown")
    if value.week:
        try:
            week = IsoWeek.parse(value.week)
        except InputError:  # not ``YYYY-Www``, or a week that does not exist
            return problem_card(value.lang, "bad_week")
        if str(week) != value.week or week > current:  # only the canonical form the buttons write
            return problem_card(value.lang, "bad_week")
    if (action.id in _NEEDS_MODULE or value.module) and value.module not in modules.ids:
        return problem_card(value.lang, "bad_module")
    return make(value)


# --------------------------------------------------------------------------------------------
# Buttons on cards
# --------------------------------------------------------------------------------------------


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


def digest_buttons(card: Card, digest: DigestText) -> Card:
    """Part 1 of the weekly post with More risks and ◀ Previous week (before Full report)."""
    week = IsoWeek.parse(digest.week)
    lang = digest.lang
    more = button(lang, "card.button.more_risks", "risks", ActionValue(repo=digest.repo, week=digest.week, lang=lang_of(lang)))
    return with_buttons(card, [more, *week_buttons(lang, "summary", digest.repo, week, current=None)])


def decorate(card: Card, query: QueryBase, *, repo: str, shown: IsoWeek | None, current: IsoWeek) -> Card:
    """The buttons of a chat answer (see the module docstring); other answers are returned as they are.

    Args:
        card: the intent's answer to ``query``.
        repo: the repository answered about.
        shown: the week the answer shows (None: the answer shows no week).
        current: the current ISO week (no "Next week" from it).
    """
    if shown is None:
        return card
    lang = card.lang
    buttons: list[Button] = []
    module = ""
    if isinstance(query, ModuleQuery):
        if query.module is None:
            return card
        module = query.module
        buttons.append(button(lang, "card.button.subscribe", "subscribe", ActionValue(repo=repo, module=module, lang=lang_of(lang))))
    elif isinstance(query, (SummaryQuery, TopPRsQuery)):
        buttons.append(button(lang, "card.button.more_risks", "risks", ActionValue(repo=repo, week=str(shown), lang=lang_of(lang))))
    elif not isinstance(query, RisksQuery):
        return card
    buttons += week_buttons(lang, query.intent, repo, shown, current=current, module=module)
    return with_buttons(card, buttons)
