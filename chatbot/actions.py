"""Card buttons and what pressing one does, built from the intents (platform-free).

Each intent declares the action ids it answers and the buttons under its answers
(:class:`chatbot.intent.Intent` ``actions`` / ``buttons``, :mod:`chatbot.buttons`); this module
builds the registry of chat actions from the intents (:func:`actions_of`, :data:`ACTIONS`),
validates a press (:func:`query_of`: a button's value comes back from the platform **untrusted**:
known action id, an ISO week between 1970 and the current week, a module of the repository's
rules, a known language; a bad one is one line of text, never an exception) and puts an answer's
buttons on its card (:func:`decorate`). A button asks exactly what a typed message would, so its
answer is the same card (with its own buttons). Actions that change something outside chat
(``approve`` / ``skip`` of the weekly post) are handlers the wiring adds
(:class:`chatbot.inbound.ChatService` ``handlers``).

The shipped intents' buttons::

    summary, top PRs     More risks · ◀ Previous week · Next week ▶   (+ Full report when public)
    risks                ◀ Previous week · Next week ▶
    module               Subscribe to this module · ◀ · ▶
    the weekly post      More risks · ◀ Previous week  (:func:`digest_buttons`; the next week has not ended)

"Next week" is shown only for a week before the current one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chatbot.buttons import (ActionValue, ButtonContext, ChatAction, button, decode, encode, lang_of, week_buttons,
                             with_buttons)
from chatbot.cards import Action, Card, message_card
from chatbot.errors import InputError
from chatbot.i18n import lang_or, tr
from chatbot.intent import Intent, QueryBase
from chatbot.intents import INTENTS
from chatbot.models import DigestText
from chatbot.module_names import ModuleIndex
from chatbot.weeks import IsoWeek

__all__ = ["ACTIONS", "ActionValue", "actions_of", "button", "decode", "decorate", "digest_buttons", "encode", "lang_of",
           "problem_card", "query_of", "week_buttons", "with_buttons"]


def actions_of(intents: Iterable[Intent[Any]]) -> dict[str, ChatAction]:
    """Every chat action the ``intents`` declare: action id -> :class:`ChatAction`.

    Raises:
        ValueError: two intents declare the same action id (naming it and both intents).
    """
    out: dict[str, ChatAction] = {}
    owner: dict[str, str] = {}
    for i in intents:
        for action_id, action in i.actions.items():
            if action_id in out:
                raise ValueError(f"chat action {action_id!r} declared by both {owner[action_id]!r} and {i.name!r}")
            out[action_id], owner[action_id] = action, i.name
    return out


ACTIONS: Mapping[str, ChatAction] = actions_of(INTENTS)
"""The chat actions of the registry: action id -> what a press asks (answered by that intent)."""


def problem_card(lang: str, key: str) -> Card:
    """The one-line answer to a button that cannot be honoured (catalog ``card.action.<key>``)."""
    lg = lang_or(lang)
    return message_card(tr(lg, "card.action.header"), [tr(lg, f"card.action.{key}")], lang=lg, role="action_problem")


def query_of(action: Action, value: ActionValue, *, modules: ModuleIndex, current: IsoWeek,
             actions: Mapping[str, ChatAction] = ACTIONS) -> QueryBase | Card:
    """The query a chat button asks, or the one-line card saying why it cannot be asked.

    Checks: the id is in ``actions`` (``unknown``); ``week`` is an ISO week from 1970 up to
    ``current`` (``bad_week``); ``module`` is one of ``modules`` (``bad_module``, also when an
    action that needs one has none).
    """
    chat_action = actions.get(action.id)
    if chat_action is None:
        return problem_card(value.lang, "unknown")
    if value.week:
        try:
            week = IsoWeek.parse(value.week)
        except InputError:  # not ``YYYY-Www``, or a week that does not exist
            return problem_card(value.lang, "bad_week")
        if str(week) != value.week or week > current:  # only the canonical form the buttons write
            return problem_card(value.lang, "bad_week")
    if (chat_action.needs_module or value.module) and value.module not in modules.ids:
        return problem_card(value.lang, "bad_module")
    return chat_action.make(value)


def digest_buttons(card: Card, digest: DigestText) -> Card:
    """Part 1 of the weekly post with More risks and ◀ Previous week (before Full report)."""
    week = IsoWeek.parse(digest.week)
    lang = digest.lang
    more = button(lang, "card.button.more_risks", "risks", ActionValue(repo=digest.repo, week=digest.week, lang=lang_of(lang)))
    return with_buttons(card, [more, *week_buttons(lang, "summary", digest.repo, week, current=None)])


def decorate(card: Card, query: QueryBase, *, repo: str, shown: IsoWeek | None, current: IsoWeek,
             intents: Sequence[Intent[Any]] = INTENTS) -> Card:
    """``card`` with the buttons the answering intent declares (its ``buttons``); answers of
    intents without buttons, and answers that show no week, are returned as they are.

    Args:
        card: the intent's answer to ``query``.
        repo: the repository answered about.
        shown: the week the answer shows (None: the answer shows no week).
        current: the current ISO week (no "Next week" from it).
        intents: the registry (the one that answered ``query``).
    """
    if shown is None:
        return card
    intent = next((i for i in intents if i.name == query.intent), None)
    if intent is None or intent.buttons is None:
        return card
    return with_buttons(card, intent.buttons(query, ButtonContext(lang=card.lang, repo=repo, shown=shown, current=current)))
