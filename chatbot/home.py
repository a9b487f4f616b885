"""A person's home page in a chat platform (a home tab), platform-free.

:func:`home_of` lists, for every repository the bot answers about, the modules the person is
subscribed to and the modules they can add. Adding and removing go through the chat actions
``subscribe`` / ``unsubscribe`` (:mod:`chatbot.actions`), so a home press is validated, de-duplicated
and stored exactly like a typed ``subscribe <module>``; the adapter then shows the home again.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from chatbot.buttons import ActionValue, encode, lang_of
from chatbot.i18n import lang_or, tr
from chatbot.inbound import ChatService


class HomeModule(BaseModel):
    """One module on the home page: its id, display name and the value of its add/remove action."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    value: str


class HomeRepo(BaseModel):
    """One repository on the home page: the person's subscriptions and the modules left to add."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repo: str
    subscribed: tuple[HomeModule, ...] = ()
    available: tuple[HomeModule, ...] = ()


class Home(BaseModel):
    """The home page: trusted texts in ``lang`` and one :class:`HomeRepo` per repository."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lang: str
    title: str
    intro: str
    none: str
    add: str
    remove: str
    repos: tuple[HomeRepo, ...] = ()


def home_of(chat: ChatService, *, platform: str, workspace: str, user: str, lang: str | None = None) -> Home:
    """The home page of ``user`` (subscriptions of kind ``user``), repositories in configuration order.

    Args:
        chat: the chat pipeline (its responders give the repositories, modules and subscriptions).
        platform, workspace, user: who looks (the platform's ids).
        lang: a language of :func:`chatbot.i18n.langs` (default: the chat's default language).
    """
    lg = lang_or(lang, chat.default_lang)
    repos: list[HomeRepo] = []
    for responder in chat.responders.values():
        book = responder.subscriptions
        subs = {s.module for s in book.subscriptions_of(platform, workspace, "user", user, responder.repo)} if book else set()

        def item(module: str, repo: str = responder.repo) -> HomeModule:
            return HomeModule(id=module, name=responder.modules.display(module, lg),
                              value=encode(ActionValue(repo=repo, module=module, lang=lang_of(lg))))

        ids = responder.modules.ids
        repos.append(HomeRepo(repo=responder.repo, subscribed=tuple(item(m) for m in ids if m in subs),
                              available=tuple(item(m) for m in ids if m not in subs)))
    return Home(lang=lg, title=tr(lg, "home.title"), intro=tr(lg, "home.intro"), none=tr(lg, "home.none"),
                add=tr(lg, "home.add"), remove=tr(lg, "home.remove"), repos=tuple(repos))
