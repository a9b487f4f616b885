"""Chat queries: ``parse`` a message into a query, ``answer`` it with a :class:`Card`.

One engine for every chat platform and ``prhub ask``. The intents themselves (query model,
patterns per language, parser, answer, help line) are registered in :mod:`chatbot.intents`;
this module cleans the text, runs the registry in order and dispatches the answer. Parsing is
total: any text gives a query (unknown text gives ``HelpQuery(unknown=True)``), so inbound
handlers need no try/except around it.

Platform adapters remove their mention markup before the text gets here (the text of an
:class:`chatbot.inbound.InboundMessage`); a bare ``@name`` left in the text is dropped too, so
another user's name is never read as a module or a PR number.

Module names match by id, English or Chinese display name or alias, then by unique prefix, then
by similarity (:class:`chatbot.module_names.ModuleIndex`).
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from chatbot.actions import ActionValue, actions_of, decorate, problem_card, query_of
from chatbot.cards import DEFAULT_LIMITS, Action, Card, CardLimits, message_card
from chatbot.digest import LATER_DAYS
from chatbot.digest_service import DigestService, DigestStep
from chatbot.i18n import lang_or, tr
from chatbot.intent import AnswerContext, DigestProvider, Intent, ParseInput, QueryBase, WeekRef, cue_pattern, cue_score
from chatbot.intents import INTENTS
from chatbot.intents.contributors import ContributorsQuery
from chatbot.intents.help import HelpQuery
from chatbot.intents.module import ModuleQuery
from chatbot.intents.pr_lookup import PRLookupQuery
from chatbot.intents.risks import RisksQuery
from chatbot.intents.subscriptions import SubscribeQuery, SubscriptionsQuery, UnsubscribeQuery
from chatbot.intents.summary import SummaryQuery
from chatbot.intents.top_prs import TopPRsQuery
from chatbot.intents.trends import TrendsQuery
from chatbot.models import DigestText, PullRequest
from chatbot.module_names import ModuleIndex, default_module_index
from chatbot.entities import resolve_week
from chatbot.pr_history import ListHistory, PRHistory
from chatbot.reading import offer, query_from_button
from chatbot.rules import Rules
from chatbot.subscriptions import Requester, SubscriptionBook
from chatbot.weeks import IsoWeek, load_zone

__all__ = [
    "ContributorsQuery", "DigestCache", "DigestProvider", "HelpQuery", "ModuleIndex", "ModuleQuery", "PRLookupQuery",
    "Query", "Responder", "RisksQuery", "SubscribeQuery", "SubscriptionsQuery", "SummaryQuery", "TopPRsQuery",
    "TrendsQuery", "UnsubscribeQuery", "WeekRef", "WindowDigests", "answer", "clean_text", "default_module_index",
    "parse", "query_adapter",
]

Query = QueryBase
"""Every query ``parse`` can return (a :class:`QueryBase` subclass named by its ``intent``)."""


def query_adapter(intents: Sequence[Intent[Any]] = INTENTS) -> TypeAdapter[Any]:
    """A pydantic adapter validating any query of ``intents`` (discriminated by ``intent``)."""
    types = tuple(dict.fromkeys(i.query for i in intents))
    return TypeAdapter(Annotated[Union[types], Field(discriminator="intent")])  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Cleaning the text
# --------------------------------------------------------------------------------------------

_BARE_AT = re.compile(r"@[\w.\-]+|<[!@#][^<>]*>")
_PUNCT = re.compile(r"[^\w#/\-.+\s]")
_CJK_EDGE = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff])(?=[a-z0-9#])|(?<=[a-z0-9])(?=[\u3400-\u9fff\uf900-\ufaff])")


def clean_text(text: str) -> str:
    """Normalise a chat message (platform mentions already removed) for parsing.

    NFKC (full-width forms, NBSP), bare ``@name`` mentions (and ``<!channel>``-style markup)
    removed, case folded, punctuation other than ``# / - . +`` turned into spaces, a space between Chinese and Latin letters or digits
    ("哪些PR删了测试" reads as "哪些 pr 删了测试", the way the intents' words are written), whitespace
    collapsed.
    """
    s = unicodedata.normalize("NFKC", text)
    s = _BARE_AT.sub(" ", s)
    s = _PUNCT.sub(" ", s.casefold().replace("'", "").replace("\u2019", ""))
    s = _CJK_EDGE.sub(" ", s)
    s = " ".join(t.strip(".-/+") if len(t) > 1 else t for t in s.split())
    return " ".join(s.split())


# --------------------------------------------------------------------------------------------
# Parsing and answering: the registry in order
# --------------------------------------------------------------------------------------------


class Reading(BaseModel):
    """How a message was read: the chosen ``query``, the other readings that fitted (best first),
    and whether the choice was unsure (:attr:`unsure`: "I read this as … — or did you mean")."""

    model_config = ConfigDict(frozen=True)

    query: QueryBase
    alternatives: tuple[QueryBase, ...] = ()
    unsure: bool = False


def read(text: str, *, modules: ModuleIndex | None = None, intents: Sequence[Intent[Any]] = INTENTS) -> Reading:
    """Read one chat message: every intent's parser is tried; of those that take the text, the one
    whose words cover the most of it wins (:func:`chatbot.intent.cue_score`), the order of
    ``intents`` breaking ties (the registry's parse order, :func:`chatbot.intent.parse_order`:
    the intents' ``before`` constraints). Never raises for any ``str``.

    Args:
        text: the message text, platform mentions removed (:class:`chatbot.inbound.InboundMessage`).
        modules: module names to match (default: the shipped vLLM rules).
        intents: the registry in parse order (default :data:`chatbot.intents.INTENTS`).

    Returns:
        The reading. A named week that does not exist gives ``HelpQuery(problem="bad_week:2026-W60")``
        unless an intent that takes no week read the text; text no intent parses goes to the
        intents' ``fallback`` (the search, an unsure reading), and when none takes it the week's
        summary is the (unsure) reading; only an empty or purely social message gives ``HelpQuery()``.
    """
    inp = ParseInput(text=clean_text(text), modules=modules if modules is not None else default_module_index(),
                     cues=cue_pattern(intents))
    found: list[tuple[int, int, QueryBase]] = []
    skipped = False
    for i, intent in enumerate(intents):
        if intent.takes_week and inp.week_problem:
            skipped = True  # a week that does not exist: only intents that take no week may read it
            continue
        q = intent.parse(inp)
        if q is not None:
            found.append((cue_score(intent, inp.text), -i, q))
    if skipped and not found:
        return Reading(query=HelpQuery(lang=inp.lang, problem=f"bad_week:{inp.week_problem}"))
    if found:
        found.sort(key=lambda f: (f[0], f[1]), reverse=True)
        best = found[0]
        others: list[QueryBase] = []
        for score, _, q in found[1:]:
            if score > 0 and q.intent != best[2].intent and all(o.intent != q.intent for o in others):
                others.append(q)
        unsure = bool(others) and found[1][0] == best[0] or best[0] == 0 and isinstance(best[2], _ENTITY_READ)
        return Reading(query=best[2], alternatives=tuple(others[:2]), unsure=unsure)
    if inp.entities.social:
        return Reading(query=HelpQuery(lang=inp.lang))
    for intent in intents:
        if intent.fallback is not None and not inp.week_problem:
            q = intent.fallback(inp)
            if q is not None:
                week = getattr(q, "week", "current")
                alts = (SummaryQuery(lang=inp.lang, week=week), TopPRsQuery(lang=inp.lang, week=week))
                return Reading(query=q, alternatives=alts, unsure=True)
    if inp.week_problem:
        return Reading(query=HelpQuery(lang=inp.lang, problem=f"bad_week:{inp.week_problem}"))
    # nothing to go on but a week perhaps: the week's summary, offering its key PRs and risks
    return Reading(query=SummaryQuery(lang=inp.lang, week=inp.week),
                   alternatives=(TopPRsQuery(lang=inp.lang, week=inp.week), RisksQuery(lang=inp.lang, week=inp.week)),
                   unsure=True)


_ENTITY_READ: tuple[type[QueryBase], ...] = ()
"""Query types read from entities alone (no intent word): such a reading is offered as unsure."""


def parse(text: str, *, modules: ModuleIndex | None = None, intents: Sequence[Intent[Any]] = INTENTS) -> QueryBase:
    """The query of :func:`read` (the chosen reading). Never raises for any ``str``."""
    return read(text, modules=modules, intents=intents).query


def answer(
    query: QueryBase,
    *,
    digest_provider: DigestProvider,
    now: datetime,
    lang: str | None = None,
    tz: str = "UTC",
    modules: ModuleIndex | None = None,
    requester: Requester | None = None,
    subscriptions: SubscriptionBook | None = None,
    report_url: Callable[[IsoWeek], str | None] | None = None,
    limits: CardLimits = DEFAULT_LIMITS,
    lookback_weeks: int = 8,
    intents: Sequence[Intent[Any]] = INTENTS,
    history: PRHistory | None = None,
    so_far: bool = True,
) -> Card:
    """Answer a query with one card, in ``lang`` (default: the query's language).

    "This week" is the ISO week in ``tz`` containing ``now``; when it has no PRs yet, the answer
    says so and shows last week. Subscription intents use ``subscriptions`` for ``requester``
    (without them the card says subscriptions are unavailable here).

    Args:
        query: from :func:`parse`.
        digest_provider: digests per (week, lang).
        now: the bot's clock (aware).
        lang: answer language override (``en``/``zh``).
        tz: zone of the week windows (the digests' zone).
        modules: module names (default: the shipped vLLM rules).
        requester: who asks and where (chat handlers).
        subscriptions: the subscription store port.
        report_url: the public report URL of a week (None: no "Full report" buttons).
        limits: list sizes and text lengths.
        lookback_weeks: how many weeks back a PR lookup searches.
        intents: the registry; the query's ``intent`` names the one that answers.
        history: the stored PRs beyond one week (PR numbers of any stored week, new contributors,
            changed paths); None: the digests only.
        so_far: say "so far, as of HH:MM" on the current week (see :class:`AnswerContext`).

    Returns:
        The answer card.

    Raises:
        chatbot.errors.InputError: ``tz`` is not a known zone (a configuration error).
        KeyError: the query's intent is not in ``intents`` (a programming error).
    """
    out_lang = lang_or(lang, query.lang)
    ctx = AnswerContext(provider=digest_provider, now=now, lang=out_lang, tz=tz,
                        modules=modules if modules is not None else default_module_index(), requester=requester,
                        subscriptions=subscriptions, report_url=report_url, limits=limits,
                        lookback_weeks=lookback_weeks, intents=tuple(intents), history=history, so_far=so_far)
    by_name = {i.name: i for i in intents}
    return by_name[query.intent].answer(query, ctx)


# --------------------------------------------------------------------------------------------
# Digest providers
# --------------------------------------------------------------------------------------------


class DigestCache:
    """A :class:`DigestProvider` over a fixed list of PRs: one digest per week (a
    :class:`~chatbot.digest_service.DigestService`), written in the asked language when answering.

    Args:
        prs: the PRs (any weeks; the week's window selects).
        repo: ``owner/name``.
        rules: the repository's rules.
        tz: IANA zone of the week windows.
        step: the optional step between analysis and rendering (see :data:`DigestStep`).
    """

    def __init__(self, prs: Sequence[PullRequest], *, repo: str, rules: Rules, tz: str = "UTC",
                 step: DigestStep | None = None) -> None:
        self.prs = list(prs)
        self.repo = repo
        self.service = DigestService(lambda _repo, _week: self.prs, rules_for=lambda _repo: rules,
                                     tz_for=lambda _repo: tz, step=step, cache_size=64)
        self.history = ListHistory(self.prs)
        """The same PRs as a :class:`~chatbot.pr_history.PRHistory`."""

    def digest(self, week: IsoWeek, lang: str) -> DigestText:
        """The digest of ``week`` (analysed on first use) written in ``lang``.

        Raises:
            chatbot.errors.InputError: ``lang`` has no catalog or the zone is unknown.
        """
        return self.service.written(self.repo, week, lang)


class _CallClock:
    """A :class:`~chatbot.ports.Clock` over a ``now()`` callable."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now

    def now(self) -> datetime:
        """``now()`` of the wrapped callable."""
        return self._now()


class WindowDigests:
    """A :class:`DigestProvider` that reads each week's PRs from a source (the store) when asked.

    Digests (one per week, shared by the languages) are kept for ``ttl`` seconds of the clock, so
    a busy channel does not rebuild them; each answer writes its language at output time.

    Args:
        fetch: ``fetch(start, end)`` -> PRs merged in ``[start, end)`` (aware UTC); e.g.
            ``lambda s, e: store.merged_between(repo, s, e)``.
        repo: ``owner/name``.
        rules: the repository's rules.
        clock: ``now()`` -> aware datetime.
        tz: IANA zone of the week windows.
        ttl: seconds a digest is reused.
        context_days: days before the window read too (context for reverts and follow-ups); the
            :data:`chatbot.digest.LATER_DAYS` after it are read too (later reverts and fixes).
        step: the optional step between analysis and rendering (see :data:`DigestStep`).
        version: ``version(start, end)`` -> a token that changes when the PRs ``fetch`` returns for that
            window change (e.g. ``store.window_version``): a cached digest of another token is rebuilt
            at once, within the ``ttl`` (a PR the webhook stored is answered by the next question).
    """

    def __init__(self, fetch: Callable[[datetime, datetime], Sequence[PullRequest]], *, repo: str, rules: Rules,
                 clock: Callable[[], datetime], tz: str = "UTC", ttl: float = 300.0, context_days: int = 7,
                 step: DigestStep | None = None, version: Callable[[datetime, datetime], str] | None = None) -> None:
        self.repo = repo
        self.clock = clock

        def window(week: IsoWeek) -> tuple[datetime, datetime]:
            start, end = week.utc_window(load_zone(tz))
            return start - timedelta(days=context_days), end + timedelta(days=LATER_DAYS)

        def prs(_repo: str, week: IsoWeek) -> Sequence[PullRequest]:
            return fetch(*window(week))

        stamp = (lambda _repo, week: version(*window(week))) if version is not None else None
        self.service = DigestService(prs, rules_for=lambda _repo: rules, tz_for=lambda _repo: tz,
                                     clock=_CallClock(clock), ttl=ttl, step=step, cache_size=64, version=stamp)

    def digest(self, week: IsoWeek, lang: str) -> DigestText:
        """The digest of ``week`` (read and built at most once per ``ttl``) written in ``lang``.

        Raises:
            chatbot.errors.PrhubError: the source cannot answer.
        """
        return self.service.written(self.repo, week, lang, generated_at=self.clock())


class Responder:
    """Parse and answer chat messages for one repository: what the chat pipeline calls.

    Args:
        digest_provider: digests per (week, lang).
        clock: ``now()`` -> aware datetime (the bot's clock).
        repo: the repository answered about (``owner/name``).
        tz: zone of the week windows (the repository's ``week_tz``).
        modules: module names of the repository's rules.
        subscriptions: the subscription store (None: subscription intents say "unavailable").
        report_url: the public report URL of a week, or None when there is no public URL.
        default_lang: language of answers to a bare mention (no words to tell the language by).
        limits: list sizes and text lengths.
        observe: called with the seconds each reply took (query metrics), if given.
        intents: the intent registry.
        history: the repository's stored PRs beyond one week (default: a :class:`DigestCache`'s
            own PRs; None for other providers).
        buttons: add the chat buttons (:func:`chatbot.actions.decorate`) to answers (chat
            platforms; ``prhub ask`` prints none).
        router: ``router(text) -> query | None``: the optional model router
            (``adapters.llm.router.ModelRouter``, when ``llm:`` is configured); None from it, or no
            router, reads the message with the parser.
    """

    def __init__(self, *, digest_provider: DigestProvider, clock: Callable[[], datetime], repo: str, tz: str = "UTC",
                 modules: ModuleIndex | None = None, subscriptions: SubscriptionBook | None = None,
                 report_url: Callable[[IsoWeek], str | None] | None = None, default_lang: str = "en",
                 limits: CardLimits = DEFAULT_LIMITS, observe: Callable[[float], None] | None = None,
                 intents: Sequence[Intent[Any]] = INTENTS, history: PRHistory | None = None,
                 buttons: bool = False, router: Callable[[str], QueryBase | None] | None = None) -> None:
        self.observe = observe
        self.router = router
        self.buttons = buttons
        self.digest_provider = digest_provider
        self.clock = clock
        self.repo = repo
        self.tz = tz
        self.modules = modules if modules is not None else default_module_index()
        self.subscriptions = subscriptions
        self.report_url = report_url
        self.default_lang = lang_or(default_lang)
        self.limits = limits
        self.intents = tuple(intents)
        if history is None and isinstance(digest_provider, DigestCache):
            history = digest_provider.history
        self.history = history
        self._adapter = query_adapter(self.intents)
        self._actions = actions_of(self.intents)

    def query(self, text: str) -> QueryBase:
        """:func:`parse` with this repository's modules and intents."""
        return self.read(text).query

    def read(self, text: str) -> Reading:
        """The router's query when it gives one (a sure reading), else :func:`read` with this
        repository's modules and intents."""
        if self.router is not None and clean_text(text):
            q = self.router(text)
            if q is not None:
                return Reading(query=q)
        return read(text, modules=self.modules, intents=self.intents)

    def reply(self, text: str, *, requester: Requester | None = None) -> Card:
        """The answer card to one message.

        Args:
            text: the message text, platform mentions removed.
            requester: who asks and where (subscriptions).

        Returns:
            One card in the query's language (``default_lang`` for a bare mention).

        Raises:
            chatbot.errors.PrhubError: the digest source failed (the pipeline shows ``user_message``).
        """
        started = time.perf_counter()
        r = self.read(text)
        q = r.query
        lang: str | None = None
        if isinstance(q, HelpQuery) and not clean_text(text):
            lang = self.default_lang
        card = self._answer(q, requester, lang)
        if r.unsure:
            card = offer(card, q, r.alternatives, self.modules, repo=self.repo, buttons=self.buttons)
        if self.observe is not None:
            self.observe(time.perf_counter() - started)
        return card

    def act(self, action: Action, value: ActionValue, *, requester: Requester | None = None) -> Card:
        """The answer card to a press of one of this repository's chat buttons.

        Args:
            action: the button's action (its ``value`` already decoded into ``value``).
            value: the untrusted argument; validated by :func:`chatbot.actions.query_of`.
            requester: who pressed it, and where.

        Returns:
            The intent's answer (in ``value.lang``), or a one-line card when the button names an
            unknown action, a week that does not exist or has not begun, or an unknown module.

        Raises:
            chatbot.errors.PrhubError: the digest source failed (the pipeline shows ``user_message``).
        """
        if action.id == "ask":
            asked = query_from_button(value.query, self._adapter, self.modules)
            if asked is None:
                return problem_card(value.lang, "unknown")
            return self._answer(asked, requester, None)
        q = query_of(action, value, modules=self.modules, current=self._current(), actions=self._actions)
        return q if isinstance(q, Card) else self._answer(q, requester, None)

    def _current(self) -> IsoWeek:
        return IsoWeek.containing(self.clock(), load_zone(self.tz))

    def _answer(self, q: QueryBase, requester: Requester | None, lang: str | None) -> Card:
        card = answer(q, digest_provider=self.digest_provider, now=self.clock(), lang=lang, tz=self.tz,
                      modules=self.modules, requester=requester, subscriptions=self.subscriptions,
                      report_url=self.report_url, limits=self.limits, intents=self.intents, history=self.history)
        return decorate(card, q, repo=self.repo, shown=self._shown(q, card.lang), current=self._current(),
                        intents=self.intents) \
            if self.buttons else card

    def _shown(self, q: QueryBase, lang: str) -> IsoWeek | None:
        """The week an answer to ``q`` shows (last week when "this week" has no PRs yet)."""
        ref = getattr(q, "week", None)
        if not isinstance(ref, str):
            return None
        current = self._current()
        if ref == "current":
            try:
                empty = self.digest_provider.digest(current, lang).total_prs == 0
            except Exception:  # noqa: BLE001 - the answer already said what failed
                return None
            return current.previous() if empty else current
        try:
            return resolve_week(ref, current)
        except Exception:  # noqa: BLE001 - a week the answer refused
            return None

    def error_card(self, message: str, lang: str | None = None) -> Card:
        """A card showing an error's safe ``user_message`` (the pipeline's catch-all)."""
        lg = lang or self.default_lang
        return message_card(tr(lg, "card.error.header"), [message], lang=lg, role="error")
