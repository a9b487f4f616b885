"""One chat pipeline for every platform: an :class:`InboundMessage` in, at most one answer card out.

A platform adapter turns its inbound event into an :class:`InboundMessage` (mentions removed, the
platform's own notion of a direct chat and of a mention of the bot, its de-duplication key) and
turns the answer :class:`chatbot.cards.Card` into its payload. Everything in between is here,
the same for every platform::

    filter   direct messages always; group and channel messages only when addressed to the bot
    claim    the de-dup key in the persistent EventLog (first claim wins; twins and retries lose, but a
             retry of a message whose reply failed makes its queued reply due at once)
    route    a repository the message names ("risks in owner/name", "owner/name 的风险"), else the
             conversation's repository (its configured destination), else the default (first) one;
             a named repository that is not configured is answered with the configured ones
    answer   the repository's Responder (its rules, its week zone)
    catch    a PrhubError shows its safe user_message; anything else an "internal error" card

The filter runs before the claim, so a message that is ignored (a channel message not addressed
to the bot) never takes the key from its twin that is answered. A message counts as answered only
when its reply is posted: an adapter whose send fails hands what is left to :meth:`ChatService.reply_failed`,
which queues it in the :class:`chatbot.outbox.ReplyOutbox` (sent again with backoff, across restarts).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from chatbot.admins import admin_key
from chatbot.actions import decode, problem_card
from chatbot.cards import Action, Card, Section, Text, Untrusted, message_card
from chatbot.errors import DeliveryError, PrhubError
from chatbot.events import EventLog
from chatbot.i18n import text_lang, tr
from chatbot.outbox import ReplyOutbox
from chatbot.ports import FileUpload
from chatbot.queries import Responder
from chatbot.repo_mention import find_repo_mention, unknown_repo_card
from chatbot.subscriptions import PLATFORM_NAME, Requester

log = logging.getLogger(__name__)

ActionHandler = Callable[[Action, Requester, str], Card]
"""``handler(action, requester, default_lang) -> answer card`` for a button the wiring handles."""

ReportFiles = Callable[[str, str, str], FileUpload]
"""``files(repo, week, lang) -> the full report as a file`` (the wiring's renderer, used where no public
URL links to the report pages).

Raises:
    chatbot.errors.PrhubError: nothing stored for that week, or the report cannot be rendered.
"""

class InboundMessage(BaseModel):
    """One chat message (or button press, or slash command) as the core sees it.

    Attributes:
        platform: the platform's registry name (``prhub/platforms.py``).
        workspace: the workspace or tenant the message came from (``""`` when the platform has none).
        channel: the conversation id (a channel, group or direct chat).
        user: the sender's id on that platform (never taken from the message text).
        text: the message text with the platform's mention markup removed.
        is_direct: a one-to-one chat with the bot (or a command addressed to it).
        addressed_to_bot: the message mentions the bot (or is a command or a button of its cards).
        dedup_key: the message's de-duplication key, stable across the platform's re-deliveries
            (``""``: not de-duplicated).
        where: a short description for log lines (event id, key); never shown to users.
        action: the button pressed (its ``value`` untrusted), for a button press; ``text`` is
            then unused.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    platform: str = Field(pattern=PLATFORM_NAME)
    workspace: str = ""
    channel: str = ""
    user: str = ""
    text: str = ""
    is_direct: bool = False
    addressed_to_bot: bool = False
    dedup_key: str = ""
    where: str = ""
    action: Action | None = None


def wants_answer(msg: InboundMessage) -> bool:
    """The group rule: direct chats are always answered; group chats and channels only when the
    message is addressed to the bot."""
    return msg.is_direct or msg.addressed_to_bot


class ChatService:
    """The chat pipeline (see the module docstring), shared by every platform adapter.

    Args:
        responders: one :class:`Responder` per repository answered about; the first is the default.
        events: persistent de-duplication (the store's ``claim_event``).
        clock: ``now()`` -> aware UTC datetime (the time a key is claimed).
        admins: per platform name, the scoped ids (``WORKSPACE:USER``) that may subscribe a channel.
        routes: ``(platform, channel) -> repo``: conversations that belong to a repository (its
            configured destinations); other conversations get the default repository.
        busy: True while the reply queue is full (the wiring's bounded executor): answers are then
            a short "busy, try again in a minute" card instead of a computed one.
        handlers: action id -> ``handler(action, requester, lang) -> Card`` for buttons that are
            not chat questions (the weekly post's ``approve`` / ``skip``); the action's ``value``
            is untrusted and the handler validates it. Other ids go to :data:`chatbot.actions.ACTIONS`.
        path_roots: top directories of the repositories' rules globs (``vllm``, ``csrc``): an
            ``owner/name`` starting with one is a path, not a repository (:mod:`chatbot.repo_mention`).
        outbox: where replies that failed to send are queued (None: a failed reply is only logged).
        files: renders the file an answer's :attr:`chatbot.cards.Card.attachment` asks for (the full
            report; None: answers attach nothing), posted by the adapter through :meth:`attach`.
    """

    def __init__(self, *, responders: Sequence[Responder], events: EventLog, clock: Callable[[], datetime],
                 admins: Mapping[str, Collection[str]] | None = None,
                 routes: Mapping[tuple[str, str], str] | None = None,
                 busy: Callable[[], bool] | None = None,
                 handlers: Mapping[str, ActionHandler] | None = None, path_roots: Collection[str] = (),
                 outbox: ReplyOutbox | None = None, files: ReportFiles | None = None) -> None:
        if not responders:
            raise ValueError("ChatService needs at least one Responder")
        self.responders = {r.repo.casefold(): r for r in responders}
        self.default = responders[0]
        self.events = events
        self.clock = clock
        self.admins = {p: frozenset(ids) for p, ids in (admins or {}).items()}
        self.routes = {(p, c): repo.casefold() for (p, c), repo in (routes or {}).items()}
        self.busy = busy or (lambda: False)
        self.handlers = dict(handlers or {})
        self.path_roots = frozenset(path_roots)
        self.outbox = outbox
        self.files = files

    @property
    def default_lang(self) -> str:
        """The language of answers without words to tell it by (and of error cards)."""
        return self.default.default_lang

    def responder_for(self, msg: InboundMessage) -> Responder:
        """The Responder of the conversation's repository (the default one when unrouted)."""
        repo = self.routes.get((msg.platform, msg.channel))
        return self.responders.get(repo, self.default) if repo else self.default

    def route(self, msg: InboundMessage) -> tuple[Responder, str, str | None]:
        """``(responder, text, unknown)``: the repository a message is answered about and the text its
        intents parse. A configured repository the text names wins for this message (its mention
        removed); else the conversation's. ``unknown`` is an ``owner/name`` the text names that is
        not configured (None otherwise)."""
        mention = find_repo_mention(msg.text, configured=[r.repo for r in self.responders.values()],
                                    path_roots=self.path_roots)
        if mention is not None and mention.known:
            return self.responders[mention.repo.casefold()], mention.rest, None
        return self.responder_for(msg), msg.text, mention.repo if mention is not None else None

    def requester(self, msg: InboundMessage, responder: Responder | None = None) -> Requester:
        """Who asks and where, with admin rights from ``admins`` and the repository answered about
        (``responder``'s, default the conversation's)."""
        return Requester(platform=msg.platform, workspace=msg.workspace, user=msg.user, channel=msg.channel,
                         is_admin=bool(msg.workspace) and admin_key(msg.workspace, msg.user)
                         in self.admins.get(msg.platform, frozenset()),
                         repo=(responder or self.responder_for(msg)).repo)

    def unknown_repo_card(self, repo: str, lang: str) -> Card:
        """One line: ``repo`` is not configured, and the configured repositories."""
        return unknown_repo_card(repo, lang, [r.repo for r in self.responders.values()])

    def accept(self, msg: InboundMessage) -> bool:
        """Filter, then claim the de-dup key: True when this copy of the message is to be answered.

        Raises:
            chatbot.errors.PrhubError: the event log cannot be written (the adapter decides what
                the platform is told; nothing was claimed).
        """
        if not wants_answer(msg):
            return False  # not for us: nothing recorded, so an addressed twin still answers
        if not msg.workspace:
            log.warning("%s %s: refused: the event names no workspace (team id / tenant key)", msg.platform,
                        msg.where or msg.dedup_key)
            return False
        if msg.dedup_key and not self.events.claim_event(msg.platform, msg.dedup_key, self.clock()):
            if self.outbox is not None and self.outbox.retry_now(msg.platform, msg.dedup_key):
                log.info("%s %s: retry of a message whose reply failed: sending its reply now", msg.platform,
                         msg.where or msg.dedup_key)
            else:
                log.info("%s %s: duplicate, ignored", msg.platform, msg.where or msg.dedup_key)
            return False
        return True

    def reply_failed(self, msg: InboundMessage, payload: dict[str, object], why: str) -> None:
        """Queue what is left of the reply to accepted ``msg`` (``payload``, in the adapter's shape) after
        a failed send (``why``: one line, no secret); without an outbox or a de-dup key it is only logged."""
        if self.outbox is None or not msg.dedup_key:
            log.warning("%s %s: reply failed: %s", msg.platform, msg.where, why)
            return
        self.outbox.queue(msg.platform, msg.dedup_key, dict(payload), why)

    def attach(self, msg: InboundMessage, card: Card, upload: Callable[[FileUpload], str]) -> None:
        """Post the file ``card`` asks for (its :attr:`~chatbot.cards.Card.attachment`), after the
        card: rendered by :attr:`files`, posted by ``upload`` (the adapter's
        :class:`chatbot.ports.FileUploader` into the answer's conversation and thread). Best effort:
        nothing to attach does nothing; a failure is logged in one line (no secret) and never raised."""
        att = card.attachment
        if att is None:
            return
        if self.files is None:
            log.warning("%s %s: the answer asks for the %s file of %s %s, but no report files are wired",
                        msg.platform, msg.where, att.kind, att.repo, att.week)
            return
        try:
            file = self.files(att.repo, att.week, att.lang)
            ref = upload(file)
        except DeliveryError as exc:
            log.warning("%s %s: the %s file of %s %s was not posted: %s", msg.platform, msg.where, att.kind, att.repo,
                        att.week, exc.reason or "error")
            return
        except PrhubError as exc:
            log.warning("%s %s: the %s file of %s %s was not made: %s", msg.platform, msg.where, att.kind, att.repo,
                        att.week, exc.user_message)
            return
        except Exception as exc:  # noqa: BLE001 - the card is out; a file must not fail the answer
            log.warning("%s %s: the %s file of %s %s failed: %s", msg.platform, msg.where, att.kind, att.repo,
                        att.week, type(exc).__name__)
            return
        log.info("%s %s: posted %s (%d bytes) as %s", msg.platform, msg.where, file.filename, len(file.data), ref)

    def answered(self, msg: InboundMessage) -> None:
        """Record that the answer to accepted ``msg`` is posted, so a platform's retry of it is
        ignored (until then a retry may take over the claim of a claimant that died; issue 9).
        A database error is logged, not raised: the answer is out."""
        if not msg.dedup_key:
            return
        try:
            self.events.mark_event_answered(msg.platform, msg.dedup_key, self.clock())
        except PrhubError as exc:
            log.warning("%s %s: cannot record the answer: %s", msg.platform, msg.where, exc.user_message)

    def answer(self, msg: InboundMessage) -> Card:
        """The answer card to an accepted message; never raises (the pipeline's one catch-all)."""
        responder, text, unknown = self.route(msg)
        if self.busy():
            lang = responder.default_lang
            return message_card(tr(lang, "card.busy.header"), [tr(lang, "card.busy")], lang=lang, role="error")
        if unknown is not None:
            return self.unknown_repo_card(unknown, text_lang(text))
        try:
            if msg.action is not None:
                return self._act(msg, msg.action)
            return responder.reply(text, requester=self.requester(msg, responder))
        except PrhubError as exc:
            log.warning("%s %s: %s", msg.platform, msg.where, exc.user_message)
            return responder.error_card(exc.user_message)
        except Exception:  # noqa: BLE001 - the one catch-all of the inbound path
            log.exception("%s %s: answering failed", msg.platform, msg.where)
            return responder.error_card(tr(responder.default_lang, "card.error.internal"))

    def _act(self, msg: InboundMessage, action: Action) -> Card:
        """A button press: a wiring handler, else a chat action of the value's repository."""
        handler = self.handlers.get(action.id)
        if handler is not None:
            return handler(action, self.requester(msg), self.default_lang)
        value = decode(action.value)
        if value is None:
            return problem_card(self.default_lang, "unknown")
        responder = self.responders.get(value.repo.casefold()) if value.repo else self.responder_for(msg)
        if responder is None:
            return problem_card(value.lang, "bad_repo")
        who = self.requester(msg).model_copy(update={"repo": responder.repo})
        return responder.act(action, value, requester=who)

    def handle(self, msg: InboundMessage) -> Card | None:
        """:meth:`accept` then :meth:`answer`: the card to post, or None when nothing is to be sent."""
        return self.answer(msg) if self.accept(msg) else None
