"""What a chat intent is: its query type, patterns per language, parser, answer and help line.

Every chat intent is one module in ``chatbot/intents/`` that defines a query model (a subclass of
:class:`QueryBase` with ``intent: Literal["name"]``) and one :class:`Intent` (with its texts,
buttons, button actions and precedence); the registry (``chatbot/intents/__init__.py``) lists
them, and :func:`parse_order` sorts them by their ``before`` constraints. Parsing tries every
intent on the cleaned text (:class:`ParseInput`); of those that return a query, the one whose
patterns cover most of the text wins (:func:`cue_score`), the parse order breaking ties. Answering
looks the intent up by the query's ``intent`` name. The help card lists every intent's help line,
ordered by ``help_rank``.

Shared helpers for intents live here too: the week named in a message (:func:`week_of`), the
module a message names (:func:`module_target`), and the week's digest with the "nothing merged
yet, here is last week" fallback (:meth:`AnswerContext.week_digest`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property, lru_cache
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from chatbot.buttons import ButtonContext, ChatAction
from chatbot.gist_line import new_gist
from chatbot.cards import DEFAULT_LIMITS, Button, Card, CardLimits, clip, filtered_card, message_card
from chatbot.entities import ISO_WEEK, LAST_WEEK, MAX_COUNT, SHORT_WEEK, THIS_WEEK, Entities, extract, resolve_week
from chatbot.filters import Filters, people, subject_names
from chatbot.i18n import DEFAULT_LANG, Lang, add_texts, text_lang, tr
from chatbot.models import AnalyzedPR, DigestText
from chatbot.module_names import ModuleIndex
from chatbot.pr_history import PRHistory
from chatbot.precedence import ordered
from chatbot.subscriptions import Requester, SubscriptionBook
from chatbot.weeks import MAX_YEAR, MIN_YEAR, IsoWeek, load_zone

WeekRef = str
"""``current`` (the ISO week containing now), ``previous``, an ISO week such as ``2026-W19``, or a
week number without its year (``W19``: the latest week 19 not after the current week)."""

_FILLER = re.compile(r"^(?:to|for|from|me to|me for|me from|module|模块)\b ?")


class QueryBase(BaseModel):
    """A parsed chat message. Subclasses add ``intent: Literal[name]`` and their fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: str
    lang: Lang = DEFAULT_LANG
    """The language the query was written in (:func:`chatbot.i18n.text_lang`: ``zh`` when it holds
    Chinese characters)."""


Q = TypeVar("Q", bound=QueryBase)


def compile_patterns(patterns: Mapping[str, Sequence[str]]) -> re.Pattern[str]:
    """One regex matching any of an intent's patterns (all languages), for ``search``.

    Raises:
        re.error: a pattern does not compile (a programming error, caught by the registry test).
    """
    return re.compile("|".join(f"(?:{p})" for lang in sorted(patterns) for p in patterns[lang]))


def cue_pattern(intents: Sequence[Intent[Any]]) -> re.Pattern[str]:
    """One regex of every pattern of ``intents`` (the words that say what is asked)."""
    return _cue_pattern(tuple(tuple((lang, tuple(ps)) for lang, ps in sorted(i.patterns.items())) for i in intents))


@lru_cache(maxsize=32)
def _cue_pattern(patterns: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for one in patterns for _, ps in one for p in ps))


def cue_score(intent: Intent[Any], text: str) -> int:
    """How much of ``text`` the intent's patterns cover (characters of non-overlapping matches, less
    their named groups: the name an author pattern captures is no intent word): the intent whose
    words say more of the message wins; the parse order (:func:`parse_order`) breaks ties."""
    rx = _intent_rx(tuple((lang, tuple(ps)) for lang, ps in sorted(intent.patterns.items())))
    total = 0
    for m in rx.finditer(text):
        named = sum(m.end(k) - m.start(k) for k, v in m.groupdict().items() if v)
        total += m.end() - m.start() - named
    return total


@lru_cache(maxsize=256)
def _intent_rx(patterns: tuple[tuple[str, tuple[str, ...]], ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for _, ps in patterns for p in ps))


def importance_and_gist(p: AnalyzedPR) -> str:
    """A filter answer's default detail line: ``5.6 · what the PR does``."""
    return " · ".join(x for x in (f"{p.importance:.1f}", new_gist(p)) if x)


ECHO_CHARS = 160
"""Characters of the asker's own words a card echoes back ("Ignored “…”", "I read this as …") at
most: a 10 KB question was echoed twice in full (23 KB of answer)."""


def week_of(s: str) -> tuple[WeekRef, str, str]:
    """``(week_ref, problem, rest)``: the week named in cleaned text ``s`` and ``s`` without it.

    ``problem`` is ``2026-W60`` when ``s`` names an ISO week that does not exist or lies outside
    the years :data:`~chatbot.weeks.MIN_YEAR`..:data:`~chatbot.weeks.MAX_YEAR` (``9999-W01``;
    ``week_ref`` is then ``current``); ``""`` otherwise.
    """
    m = ISO_WEEK.search(s)
    if m:
        year, week = int(m.group(1)), int(m.group(2))
        rest = (s[: m.start()] + " " + s[m.end():]).strip()
        try:
            date.fromisocalendar(year, week, 1)
        except ValueError:
            return "current", f"{year}-W{week:02d}", rest
        if not MIN_YEAR <= year <= MAX_YEAR:
            return "current", f"{year}-W{week:02d}", rest
        return f"{year}-W{week:02d}", "", rest
    m = SHORT_WEEK.search(s)
    if m:
        n = int(m.group(1) or m.group(2))
        rest = (s[: m.start()] + " " + s[m.end():]).strip()
        if not 1 <= n <= 53:  # "wk0", "W54": no year has that week
            return "current", f"W{n:02d}", rest
        return f"W{n:02d}", "", rest
    m = LAST_WEEK.search(s)
    if m:
        return "previous", "", (s[: m.start()] + " " + s[m.end():]).strip()
    m = THIS_WEEK.search(s)
    if m:
        return "current", "", (s[: m.start()] + " " + s[m.end():]).strip()
    return "current", "", s


def module_target(rest: str, index: ModuleIndex) -> tuple[str | None, str, tuple[str, ...]]:
    """``(module_id, asked, candidates)`` for the module named in ``rest`` (leading "to", "for",
    "module" dropped); see :meth:`ModuleIndex.resolve`."""
    name = " ".join(rest.split())
    while True:
        stripped = _FILLER.sub("", name)
        if stripped == name:
            break
        name = stripped
    module, candidates = index.resolve(name)
    return module, name, candidates


_AND = re.compile(r"\s*(?:,|、|，|;|；|&|\+|\band\b|\bor\b|以及|还有|和|与|及|跟|或)\s*")


def module_targets(rest: str, index: ModuleIndex) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """``(module_ids, asked, candidates)`` for one or several modules named in ``rest``
    ("moe and quantization", "注意力后端 moe", "moe 和 量化").

    The whole name is tried first, exactly ("spec decode" is one module). Otherwise it is cut at
    "and" / "和" / commas, and each piece is read left to right as the longest run of words that
    names a module exactly (id, name, alias or unique prefix; by similarity only a single word).
    When that leaves a word naming nothing, the whole name is matched as one module, by similarity
    too (:func:`module_target`); ``module_ids`` is then empty when nothing fits, and ``asked`` /
    ``candidates`` describe the piece that named nothing (the whole name when it is one piece).
    """
    _, asked, _ = module_target(rest, index)
    exact, _ = index.resolve(asked, fuzzy=False)
    if exact is not None:
        return (exact,), asked, ()
    pieces = [p for p in _AND.split(asked) if p]
    found: list[str] = []
    bad = ""
    for piece in pieces:
        words = piece.split()
        i = 0
        while i < len(words) and not bad:
            for j in range(len(words), i, -1):
                m, _ = index.resolve(" ".join(words[i:j]), fuzzy=j - i == 1)
                if m is not None:
                    found.append(m)
                    i = j
                    break
            else:
                bad = words[i] if len(words) > 1 or len(pieces) > 1 else piece
        if bad:
            break
    if found and not bad:
        return tuple(dict.fromkeys(found)), asked, ()
    module, _, candidates = module_target(asked, index)
    if module is not None:
        return (module,), asked, ()
    if len(pieces) > 1 or len(asked.split()) > 1:
        return (), bad or asked, index.resolve(bad)[1] if bad else candidates
    return (), asked, candidates


@dataclass(frozen=True)
class ParseInput:
    """One cleaned message as intents see it.

    Attributes:
        text: cleaned text (:func:`chatbot.queries.clean_text`: NFKC, case folded, no mentions).
        modules: the repository's module names.
    """

    text: str
    modules: ModuleIndex
    cues: re.Pattern[str] | None = None
    """Every intent's words (:func:`cue_pattern` of the registry): not left over as entity words."""

    @cached_property
    def entities(self) -> Entities:
        """What the text names (:func:`chatbot.entities.extract`)."""
        return extract(self.text, self.modules, cues=self.cues)

    @cached_property
    def lang(self) -> str:
        """The language the text is written in (:func:`chatbot.i18n.text_lang`)."""
        return text_lang(self.text)

    @cached_property
    def _week(self) -> tuple[WeekRef, str, str]:
        return week_of(self.text)

    @property
    def week(self) -> WeekRef:
        """The week the text names (``current`` when none)."""
        return self._week[0]

    @property
    def week_problem(self) -> str:
        """A named ISO week that does not exist (``2026-W60``), else ``""``."""
        return self._week[1]

    @property
    def rest(self) -> str:
        """The text without the week it names."""
        return self._week[2]


class DigestProvider(Protocol):
    """Where answers get digests from (the caller caches them per week and language)."""

    def digest(self, week: IsoWeek, lang: str) -> DigestText:
        """The digest of ``week`` in ``lang`` (a week without PRs gives an empty digest)."""
        ...


@dataclass(frozen=True)
class WeekDigest:
    """The digest an answer shows: its ``week``, a ``notice`` when it fell back to last week, and
    the week's public report URL (None without one)."""

    digest: DigestText
    week: IsoWeek
    notice: tuple[str, ...] = ()
    report_url: str | None = None


@dataclass(frozen=True)
class AnswerContext:
    """Everything an intent's answer may use.

    Attributes:
        provider: digests per (week, lang).
        now: the bot's clock (aware).
        lang: the answer language (``en``/``zh``).
        tz: IANA zone of the week windows (the digests' zone).
        modules: the repository's module names.
        requester: who asks and where (None outside chat).
        subscriptions: the subscription store (None: subscription intents say "unavailable").
        report_url: the public report URL of a week (None: no "Full report" buttons).
        limits: list sizes and text lengths.
        lookback_weeks: how many weeks back a PR lookup searches.
        intents: the registry (the help card lists it).
        history: the stored PRs beyond one week (None: answers read the digests only).
        so_far: answers about the current week say "so far, as of HH:MM" (False when that week is
            already over in real time, e.g. ``prhub ask`` on an exported week).
    """

    provider: DigestProvider
    now: datetime
    lang: str
    tz: str
    modules: ModuleIndex
    requester: Requester | None = None
    subscriptions: SubscriptionBook | None = None
    report_url: Callable[[IsoWeek], str | None] | None = None
    limits: CardLimits = DEFAULT_LIMITS
    lookback_weeks: int = 8
    intents: Sequence[Intent[Any]] = field(default_factory=tuple)
    history: PRHistory | None = None
    so_far: bool = True

    def zone_week(self, moment: datetime) -> IsoWeek:
        """The ISO week in ``tz`` containing ``moment`` (aware)."""
        return IsoWeek.containing(moment, load_zone(self.tz))

    def history_weeks(self) -> tuple[IsoWeek, IsoWeek] | None:
        """The first and last ISO week (in ``tz``) the stored history holds; None without history
        or PRs."""
        if self.history is None:
            return None
        span = self.history.merged_span()
        if span is None:
            return None
        return self.zone_week(span[0]), self.zone_week(span[1])

    def stored_span(self, *asked: IsoWeek) -> list[str]:
        """``["The stored PRs are from 2026-W15 to 2026-W20; ask about one of those weeks …"]`` when
        none of the ``asked`` weeks lies in the stored history (``[]`` without history, or when one
        does): said under every "no merged PRs" answer, so an empty answer points to the data."""
        span = self.history_weeks()
        if span is None or any(span[0] <= w <= span[1] for w in asked):
            return []
        if span[0] == span[1]:
            return [tr(self.lang, "card.stored_one", week=span[0])]
        return [tr(self.lang, "card.stored_span", first=span[0], last=span[1])]

    def current_week(self) -> IsoWeek:
        """The ISO week in ``tz`` containing ``now``.

        Raises:
            chatbot.errors.InputError: ``tz`` is not a known zone (a configuration error).
        """
        return self.zone_week(self.now)

    def resolve_week(self, ref: WeekRef) -> IsoWeek:
        """``current``, ``previous``, ``2026-W19`` or ``W19`` as an :class:`IsoWeek`
        (:func:`chatbot.entities.resolve_week`)."""
        return resolve_week(ref, self.current_week())

    def week_digest(self, ref: WeekRef) -> WeekDigest | Card:
        """The digest of week ``ref``, or the card to answer instead when it has no PRs.

        "This week" without PRs yet falls back to last week with a notice; an explicit week
        without PRs, or two empty weeks, gives a "no merged PRs" card. The current week's answer
        carries the notice "2026-W20 so far, as of 14:05 (UTC)" (``now`` in ``tz``).
        """
        week = self.resolve_week(ref)
        d = self.provider.digest(week, self.lang)
        notice: list[str] = []
        if d.total_prs == 0:
            if ref != "current":
                return message_card(d.repo, [tr(self.lang, "card.empty_week", week=week), *self.stored_span(week)],
                                    lang=self.lang, role="empty")
            prev = week.previous()
            d = self.provider.digest(prev, self.lang)
            notice = [tr(self.lang, "card.empty_now", week=week)]
            if d.total_prs == 0:
                notice.append(tr(self.lang, "card.empty_week", week=prev))
                return message_card(d.repo, notice + self.stored_span(week, prev), lang=self.lang, role="empty")
            notice.append(tr(self.lang, "card.showing_last", week=prev))
            week = prev
        elif self.so_far and week == self.current_week():  # the week is not over: say how current the answer is
            local = self.now.astimezone(load_zone(self.tz))
            notice.append(tr(self.lang, "card.so_far", week=week, time=f"{local:%H:%M}", tz=self.tz))
        url = self.report_url(week) if self.report_url else None
        return WeekDigest(digest=d, week=week, notice=tuple(notice), report_url=url)

    def people(self, d: DigestText) -> dict[str, str]:
        """Author login -> display name of the digest's window, from the stored history (empty
        without history): answers match a name or a login (:mod:`chatbot.filters`)."""
        if self.history is None:
            return {}
        return people(self.history.merged_between(d.start, d.end))

    def ignored_line(self, words: Sequence[str]) -> list[str]:
        """``["Ignored “foo”: no module, topic or author of that name."]`` (``[]`` without words)."""
        if not words:
            return []
        shown = clip(tr(self.lang, "sep").join(f"“{w}”" for w in words), ECHO_CHARS)
        return [tr(self.lang, "card.read.ignored", words=shown)]

    def zero_count(self, example: str) -> Card:
        """The answer to a count of 0 ("top 0", "前0个"): nothing to list, a count starts at 1, and
        the catalog's ``example`` of a count that lists."""
        return message_card(tr(self.lang, "card.count_zero.header"),
                            [tr(self.lang, "card.count_zero", most=MAX_COUNT, example=tr(self.lang, example))],
                            lang=self.lang, role="count_zero")

    def filter_card(self, w: WeekDigest, prs: Sequence[AnalyzedPR], what: str, *, ignored: Sequence[str] = (),
                    detail: Callable[[AnalyzedPR], str] | None = None, limits: CardLimits | None = None) -> Card:
        """The card of a filter answer: "WHAT · repo week", "N of TOTAL PRs", the PRs by importance
        with ``detail`` (default: importance and gist), the week's notice and the ignored words."""
        d = w.digest
        lang = d.lang
        return filtered_card(d, prs, header=tr(lang, "card.filter.header", what=what, repo=d.repo, week=w.week),
                             count_line=tr(lang, "card.filter.count", n=len(prs), total=d.total_prs),
                             empty_line=tr(lang, "card.filter.none", what=what, week=w.week),
                             detail=detail or importance_and_gist, report_url=w.report_url,
                             limits=limits or self.limits, notice=[*w.notice, *self.ignored_line(ignored)])

    def filter_what(self, what: str, f: Filters, author: str | None = None) -> str:
        """``what`` narrowed in words: "key PRs in ROCm", "risk tags in scheduler by Nick Hill"."""
        names = subject_names(f, self.modules, self.lang)
        if names:
            what = tr(self.lang, "card.filter.in_module", what=what, module=tr(self.lang, "sep").join(names))
        if author is not None:
            what = tr(self.lang, "card.filter.by_author", what=what, name=author)
        return what

    def candidates_card(self, header: str, asked: str, candidates: Sequence[str]) -> Card:
        """"``asked`` could mean:" and the candidate modules."""
        lines = [tr(self.lang, "card.module.ambiguous", name=asked)]
        lines += ["• " + tr(self.lang, "paren", text=self.modules.display(m, self.lang), inner=m) for m in candidates]
        return message_card(header, lines, lang=self.lang, role="module_candidates")

    def unknown_module_card(self, header: str, asked: str) -> Card:
        """"No module called ``asked``" and the list of module ids."""
        lines = [tr(self.lang, "card.module.unknown", name=asked)] if asked else []
        lines.append(tr(self.lang, "card.module.list", modules=tr(self.lang, "sep").join(self.modules.ids)))
        return message_card(header, lines, lang=self.lang, role="module_unknown")


@dataclass(frozen=True)
class Intent(Generic[Q]):
    """One thing the bot understands.

    Attributes:
        name: the query's ``intent`` value (``risks``).
        query: the query model (its ``intent`` field is ``Literal[name]``).
        patterns: regex sources per language (``{"en": (r"\\brisks?\\b",), "zh": ("风险",)}``),
            searched in the cleaned text; :func:`compile_patterns` joins them.
        parse: ``parse(input) -> query | None`` (None: not this intent).
        answer: ``answer(query, context) -> Card``; may raise :class:`chatbot.errors.PrhubError`
            when the digest source fails.
        help: one help line per language (``""``: not listed in the help card).
        help_rank: position in the help card (ascending).
        takes_week: the intent reads a week; a message naming a week that does not exist is then
            answered with help naming the bad week before this intent (and later ones) are tried.
        fallback: ``fallback(input) -> query | None``, tried (in parse order) only when no
            intent's ``parse`` took the text: what "not understood" becomes (the search); None
            from every fallback gives the help card.
        before: names of the intents this one wins a tie against: when both read a message and
            their patterns cover as much of it (:func:`cue_score`), this reading is chosen and the
            other comes after it among the alternatives. Only ties: the score decides first.
            :func:`parse_order` turns the constraints of a registry into its parse order.
        actions: the chat buttons' action ids this intent answers, each with the query a press
            asks (:class:`chatbot.buttons.ChatAction`); :data:`chatbot.actions.ACTIONS` is built
            from the registry's (an id answered by two intents is an error).
        buttons: ``buttons(query, ctx) -> [Button]``: the buttons under an answer that shows a week
            (:class:`chatbot.buttons.ButtonContext`); None: the answers carry none.
        texts: catalog entries the intent brings, ``{lang: {key: template}}`` (its card texts,
            read with :func:`chatbot.i18n.tr`), registered by :func:`parse_order`; the shipped
            intents keep theirs in the catalogs.
    """

    name: str
    query: type[Q]
    patterns: Mapping[str, tuple[str, ...]]
    parse: Callable[[ParseInput], QueryBase | None]
    answer: Callable[[Q, AnswerContext], Card]
    help: Mapping[str, str] = field(default_factory=dict)
    help_rank: int = 100
    takes_week: bool = False
    fallback: Callable[[ParseInput], QueryBase | None] | None = None
    before: tuple[str, ...] = ()
    actions: Mapping[str, ChatAction] = field(default_factory=dict)
    buttons: Callable[[Q, ButtonContext], Sequence[Button]] | None = None
    texts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def help_line(self, lang: str) -> str:
        """The help line in ``lang`` (English when that language has none)."""
        return self.help.get(lang) or self.help.get("en", "")


def parse_order(intents: Iterable[Intent[Any]]) -> tuple[Intent[Any], ...]:
    """The intents in parse order: every intent before the ones its ``before`` names, and, where no
    constraint (direct or through others) orders two intents, by name — so the order a registry
    lists its intents in does not matter, and a tie between two intents is decided by a
    constraint someone wrote, or else by name.

    Args:
        intents: the registry's intents, in any order.

    Returns:
        The same intents, topologically sorted (:func:`chatbot.precedence.ordered` of their names
        in name order).

    Registers the catalog entries the intents bring (``Intent.texts``, :func:`chatbot.i18n.add_texts`).

    Raises:
        ValueError: two intents share a name, a ``before`` names no intent of ``intents`` (or the
            intent itself), the constraints form a cycle (the message names its intents), or an
            intent's text contradicts the catalogs.
    """
    listed = list(intents)
    order = ordered(sorted(i.name for i in listed), {i.name: i.before for i in listed}, what="intent")
    for i in listed:
        add_texts(i.texts)
    by_name = {i.name: i for i in listed}
    return tuple(by_name[n] for n in order)
