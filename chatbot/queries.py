"""Chat queries: ``parse`` a message into a typed :data:`Query`, ``answer`` it with a :class:`Card`.

One engine for Slack, Feishu and ``prhub ask``. Parsing is total: any text gives a Query (unknown
text gives :class:`HelpQuery` with ``unknown=True``), so inbound handlers need no try/except
around it. Mentions are removed before anything else: the bot's own (``<@U_BOT>``,
``<@U_BOT|name>``, a Feishu ``@_user_N`` placeholder whose ``mentions`` entry is the bot) anywhere
in the text, and every other user's, which is never read as a module or a PR number.

Intents (English / Chinese)::

    risks [this week | last week | 2026-W19]   本周风险, 上周风险
    PR #51655, #51655, pr 51655, PR#1234         PR #51655
    attention this week, what changed in spec-decode, 模块 投机解码
    top PRs                                      重点PR
    contributors                                 贡献者
    summary                                      周报
    subscribe [channel] <module>, unsubscribe <module>   订阅 [频道] <模块>, 取消订阅 <模块>
    my subscriptions                             我的订阅
    help                                         帮助

Module names match by id, English or Chinese display name or alias (case, spaces, ``-``/``_``
ignored), then by unique prefix, then by :class:`difflib.SequenceMatcher` ratio >= 0.8; a name
that fits several modules gives the candidates instead of a guess.
"""

from __future__ import annotations

import difflib
import re
import time
import unicodedata
from collections.abc import Callable, Collection, Sequence
from datetime import date, datetime
from functools import lru_cache
from typing import Annotated, Literal, Protocol, Union

from pydantic import BaseModel, ConfigDict, Field

from chatbot.cards import (
    DEFAULT_LIMITS,
    Card,
    CardLimits,
    Section,
    Text,
    contributors_card,
    digest_cards,
    help_card,
    message_card,
    module_card,
    pr_card,
    risks_card,
    top_prs_card,
    trends_card,
)
from chatbot.digest import build_digest
from chatbot.history import build_trends, week_stats
from chatbot.i18n import tr
from chatbot.models import Digest, PullRequest
from chatbot.rules import Rules, shipped_rules
from chatbot.subscriptions import Requester, Subscription, SubscriptionBook
from chatbot.weeks import IsoWeek, load_zone

# --------------------------------------------------------------------------------------------
# Query types
# --------------------------------------------------------------------------------------------

WeekRef = str
"""``current`` (the ISO week containing now), ``previous``, or an ISO week such as ``2026-W19``."""


class _Query(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    lang: Literal["en", "zh"] = "en"
    """The language the query was written in (``zh`` when it holds Chinese characters)."""


class RisksQuery(_Query):
    """PRs carrying risk tags in a week."""

    intent: Literal["risks"] = "risks"
    week: WeekRef = "current"


class PRLookupQuery(_Query):
    """One PR by number."""

    intent: Literal["pr_lookup"] = "pr_lookup"
    number: int = Field(gt=0)


class ModuleQuery(_Query):
    """One module's PRs in a week. ``module`` is None when ``asked`` matched no module or several
    (``candidates``, module ids in rules order)."""

    intent: Literal["module"] = "module"
    week: WeekRef = "current"
    module: str | None = None
    asked: str = ""
    candidates: tuple[str, ...] = ()


class TopPRsQuery(_Query):
    """The week's key PRs."""

    intent: Literal["top_prs"] = "top_prs"
    week: WeekRef = "current"


class ContributorsQuery(_Query):
    """The week's most active authors."""

    intent: Literal["contributors"] = "contributors"
    week: WeekRef = "current"


class SummaryQuery(_Query):
    """The weekly digest card."""

    intent: Literal["summary"] = "summary"
    week: WeekRef = "current"


class SubscribeQuery(_Query):
    """Subscribe the sender (or, with ``channel``, the conversation) to a module."""

    intent: Literal["subscribe"] = "subscribe"
    channel: bool = False
    module: str | None = None
    asked: str = ""
    candidates: tuple[str, ...] = ()


class UnsubscribeQuery(_Query):
    """Remove a subscription of the sender (or, with ``channel``, of the conversation)."""

    intent: Literal["unsubscribe"] = "unsubscribe"
    channel: bool = False
    module: str | None = None
    asked: str = ""
    candidates: tuple[str, ...] = ()


class SubscriptionsQuery(_Query):
    """List the sender's (and the conversation's) subscriptions."""

    intent: Literal["subscriptions"] = "subscriptions"


class TrendsQuery(_Query):
    """Per-week trends: PR counts, top labels and average importance over ``weeks`` weeks ending
    with the current week (or the last week with PRs)."""

    intent: Literal["trends"] = "trends"
    weeks: int = 8


class HelpQuery(_Query):
    """Help. ``unknown``: the text was not understood; ``problem``: a catalog key and value
    (``bad_week:2026-W60``) naming what was wrong."""

    intent: Literal["help"] = "help"
    unknown: bool = False
    problem: str = ""


Query = Annotated[
    Union[RisksQuery, PRLookupQuery, ModuleQuery, TopPRsQuery, ContributorsQuery, SummaryQuery,
          SubscribeQuery, UnsubscribeQuery, SubscriptionsQuery, TrendsQuery, HelpQuery],
    Field(discriminator="intent"),
]
"""Every query ``parse`` can return, discriminated by ``intent``."""


class Mention(BaseModel):
    """A Feishu ``mentions`` entry: the placeholder ``key`` (``@_user_1``), the user ``id``
    (open_id), and the display ``name``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    key: str
    id: str = ""
    name: str = ""


# --------------------------------------------------------------------------------------------
# Module names
# --------------------------------------------------------------------------------------------


def _name_key(text: str) -> str:
    s = unicodedata.normalize("NFKC", text).casefold().replace("-", " ").replace("_", " ")
    return " ".join(s.split())


class ModuleIndex:
    """Module ids, display names and aliases of one rules file, for matching names in chat.

    Args:
        rules: the repository's rules (its ``modules``).
    """

    def __init__(self, rules: Rules) -> None:
        self.ids: tuple[str, ...] = tuple(m.id for m in rules.modules)
        self.order = {m: i for i, m in enumerate(self.ids)}
        self._display = {m.id: {"en": m.display("en"), "zh": m.display("zh")} for m in rules.modules}
        names: list[tuple[str, str]] = []
        for m in rules.modules:
            for n in (m.id, m.name or "", m.zh or "", *m.aliases):
                k = _name_key(n)
                if k and (k, m.id) not in names:
                    names.append((k, m.id))
        self.names = tuple(names)
        self._cache: dict[str, tuple[str | None, tuple[str, ...]]] = {}

    def display(self, module: str, lang: str) -> str:
        """The module's display name in ``lang`` (the id when unknown)."""
        return self._display.get(module, {}).get(lang, module)

    def _ordered(self, ids: Collection[str]) -> tuple[str, ...]:
        return tuple(sorted(ids, key=lambda m: self.order.get(m, 0)))

    def resolve(self, name: str) -> tuple[str | None, tuple[str, ...]]:
        """Match a name typed in chat.

        Returns:
            ``(module_id, ())`` for one match; ``(None, candidates)`` when several modules fit
            (ids in rules order, at most 6); ``(None, ())`` when none does.
        """
        key = _name_key(name)
        if key in self._cache:
            return self._cache[key]
        result = self._resolve(key)
        if len(self._cache) < 4096:
            self._cache[key] = result
        return result

    def _resolve(self, key: str) -> tuple[str | None, tuple[str, ...]]:
        if not key:
            return None, ()
        squeezed = key.replace(" ", "")
        exact = {m for n, m in self.names if n == key or n.replace(" ", "") == squeezed}
        if len(exact) == 1:
            return next(iter(exact)), ()
        if exact:
            return None, self._ordered(exact)[:6]
        if len(key) >= 2:
            prefix = {m for n, m in self.names if n.startswith(key)}
            if len(prefix) == 1:
                return next(iter(prefix)), ()
            if prefix:
                return None, self._ordered(prefix)[:6]
        best: dict[str, float] = {}
        for n, m in self.names:
            sm = difflib.SequenceMatcher(None, key, n)
            if sm.real_quick_ratio() < 0.8 or sm.quick_ratio() < 0.8:
                continue
            r = sm.ratio()
            if r >= 0.8 and r > best.get(m, 0.0):
                best[m] = r
        if not best:
            return None, ()
        ranked = sorted(best, key=lambda m: (-best[m], self.order.get(m, 0)))
        if len(ranked) == 1 or best[ranked[0]] - best[ranked[1]] >= 0.05:
            return ranked[0], ()
        return None, tuple(ranked[:6])


@lru_cache(maxsize=1)
def default_module_index() -> ModuleIndex:
    """The modules of the shipped vLLM rules (the default repository's)."""
    return ModuleIndex(shipped_rules("vllm"))


# --------------------------------------------------------------------------------------------
# Cleaning the text
# --------------------------------------------------------------------------------------------

_SLACK_LINK = re.compile(r"<(https?://[^>|\s]+)(?:\|[^>]*)?>")
_SLACK_TOKEN = re.compile(r"<([@#!])([^>|\s]*)(?:\|[^>]*)?>")
_FEISHU_AT = re.compile(r"@_(?:user_\d+|all)\b", re.ASCII)
_BARE_AT = re.compile(r"@[\w.\-]+")
_PUNCT = re.compile(r"[^\w#/\-.+\s]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def _strip_mentions(text: str, bot_ids: Collection[str], mentions: Sequence[Mention]) -> tuple[str, bool]:
    bot = False
    by_key = {m.key: m for m in mentions}

    def slack(m: re.Match[str]) -> str:
        nonlocal bot
        if m.group(1) == "@" and m.group(2) in bot_ids:
            bot = True
        return " "

    def feishu(m: re.Match[str]) -> str:
        nonlocal bot
        mention = by_key.get(m.group(0))
        if mention is not None and mention.id in bot_ids:
            bot = True
        return " "

    s = _SLACK_LINK.sub(lambda m: f" {m.group(1)} ", text)
    s = _SLACK_TOKEN.sub(slack, s)
    s = _FEISHU_AT.sub(feishu, s)
    for mention in mentions:  # keys that are not @_user_N (defensive: any key given is a mention)
        if mention.key and mention.key in s:
            if mention.id in bot_ids:
                bot = True
            s = s.replace(mention.key, " ")
    s = s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    s = _BARE_AT.sub(" ", s)
    return s, bot


def clean_text(text: str, *, bot_ids: Collection[str] = (), mentions: Sequence[Mention] = ()) -> tuple[str, bool]:
    """Normalise a chat message for parsing.

    NFKC (full-width forms, NBSP), mentions removed (see module doc), Slack links reduced to their
    URL, ``&lt;``/``&gt;``/``&amp;`` decoded, case folded, punctuation other than ``# / - . +``
    turned into spaces, whitespace collapsed.

    Returns:
        ``(text, bot_mentioned)``: the cleaned text and whether the bot was mentioned.
    """
    s = unicodedata.normalize("NFKC", text)
    s, bot = _strip_mentions(s, bot_ids, mentions)
    s = _PUNCT.sub(" ", s.casefold().replace("'", "").replace("\u2019", ""))
    s = " ".join(t.strip(".-/+") if len(t) > 1 else t for t in s.split())
    return " ".join(s.split()), bot


def bot_mentioned(text: str, *, bot_ids: Collection[str], mentions: Sequence[Mention] = ()) -> bool:
    """Whether ``text`` mentions the bot (``<@U_BOT>``, ``<@U_BOT|name>`` or a Feishu placeholder
    whose ``mentions`` entry has a bot id)."""
    return clean_text(text, bot_ids=bot_ids, mentions=mentions)[1]


def should_answer(chat_type: str, *, mentioned: bool) -> bool:
    """The group rule: direct chats (Feishu ``p2p``, Slack ``im``) are always answered; group
    chats and channels only when the bot is mentioned."""
    return chat_type in ("p2p", "im") or mentioned


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------

_HELP = {"help", "h", "?", "usage", "commands", "/help", "帮助", "帮忙", "使用帮助", "怎么用", "命令"}
_ISO_WEEK = re.compile(r"(?<![0-9])([0-9]{4}) ?-? ?w ?([0-9]{1,2})(?![0-9])", re.ASCII)
_THIS_WEEK = re.compile(r"\b(?:this|current) week\b|本周|这周|这一周|本星期|这个星期|这星期")
_LAST_WEEK = re.compile(r"\b(?:last|previous|prev) week\b|上周|上一周|上星期|上个星期")
_PR = re.compile(r"(?:\bpr ?#? ?|\bpull request ?#? ?|#|/pull/)([0-9]{1,9})(?![0-9])", re.ASCII | re.IGNORECASE)
_MY_SUBS = re.compile(r"\b(?:my |list |show |our )?subscriptions\b|我的订阅|订阅列表|查看订阅|已订阅")
_UNSUB = re.compile(r"\bunsubscribe\b|取消订阅|退订")
_SUB = re.compile(r"\bsubscribe\b|订阅")
_RISKS = re.compile(r"\brisk(?:s|y)?\b|风险")
_TRENDS = re.compile(r"\btrends?\b|趋势|走势")
_N_WEEKS = re.compile(r"(?<![0-9])([0-9]{1,2}) ?(?:weeks?\b|周)")
_TOP = re.compile(r"\btop(?: prs?| pull requests?)?\b|\bkey prs?\b|\bimportant prs?\b|重点|重要")
_CONTRIB = re.compile(r"\bcontributors?\b|\bauthors?\b|\bwho contributed\b|贡献者|贡献|作者")
_SUMMARY = re.compile(r"\bsummary\b|\bdigest\b|\bweekly\b|\breport\b|\boverview\b|周报|摘要|总结|概览|汇总")
_MODULE_HEAD = re.compile(
    r"^(?:(?:what|whats|what is|what has|what have) (?:changed|new|happened|happening|merged)(?: (?:in|with|for|to|on))?"
    r"|(?:changes?|news|updates?|activity|prs?) (?:in|to|for|of|on)|(?:show|tell me about|about)|modules?|模块)\b ?"
    r"|^模块 ?"
)
_MODULE_TAIL = re.compile(r" ?(?:\bmodules?|模块|有什么变化|有哪些变化|有什么更新|有哪些更新|的变化|的更新|变化|动态|怎么样|\bchanges?)$")
_CHANNEL = re.compile(r"^(?:(?:this |the )?channel|(?:this |the )?group|频道|本群|群聊|群|本频道)\b ?")
_FILLER = re.compile(r"^(?:to|for|me to|me for|module|模块)\b ?")


def _lang(text: str) -> Literal["en", "zh"]:
    return "zh" if _CJK.search(text) else "en"


def _week(s: str) -> tuple[str, str, str]:
    """``(week_ref, problem, rest)``: the week named in ``s`` and ``s`` without it."""
    m = _ISO_WEEK.search(s)
    if m:
        year, week = int(m.group(1)), int(m.group(2))
        rest = (s[: m.start()] + " " + s[m.end():]).strip()
        try:
            date.fromisocalendar(year, week, 1)
        except ValueError:
            return "current", f"{year}-W{week:02d}", rest
        return f"{year}-W{week:02d}", "", rest
    m = _LAST_WEEK.search(s)
    if m:
        return "previous", "", (s[: m.start()] + " " + s[m.end():]).strip()
    m = _THIS_WEEK.search(s)
    if m:
        return "current", "", (s[: m.start()] + " " + s[m.end():]).strip()
    return "current", "", s


def _module_target(rest: str, index: ModuleIndex) -> tuple[str | None, str, tuple[str, ...]]:
    name = " ".join(rest.split())
    while True:
        stripped = _FILLER.sub("", name)
        if stripped == name:
            break
        name = stripped
    module, candidates = index.resolve(name)
    return module, name, candidates


def parse(
    text: str,
    *,
    bot_ids: Collection[str] = (),
    mentions: Sequence[Mention] = (),
    modules: ModuleIndex | None = None,
) -> Query:
    """Parse one chat message into a Query. Never raises for any ``str``.

    Args:
        text: the message text as the platform gives it (Slack ``event.text``, Feishu
            ``content.text`` with ``@_user_N`` placeholders).
        bot_ids: the bot's ids (Slack user id, Slack bot id, Feishu open_id).
        mentions: Feishu ``mentions`` entries resolving the placeholders.
        modules: module names to match (default: the shipped vLLM rules).

    Returns:
        A :data:`Query`; unknown text gives ``HelpQuery(unknown=True)``, an empty message (just a
        mention) ``HelpQuery()``.
    """
    index = modules if modules is not None else default_module_index()
    s, _ = clean_text(text, bot_ids=bot_ids, mentions=mentions)
    lang = _lang(s)
    if not s or s in _HELP:
        return HelpQuery(lang=lang)

    if _MY_SUBS.search(s) and not _UNSUB.search(s):
        return SubscriptionsQuery(lang=lang)
    for rx, cls in ((_UNSUB, UnsubscribeQuery), (_SUB, SubscribeQuery)):
        m = rx.search(s)
        if m:
            rest = s[m.end():].strip()
            channel = False
            cm = _CHANNEL.match(rest)
            if cm:
                channel, rest = True, rest[cm.end():].strip()
            module, asked, candidates = _module_target(rest, index)
            return cls(lang=lang, channel=channel, module=module, asked=asked, candidates=candidates)

    pm = _PR.search(s)
    if pm and int(pm.group(1)) > 0:
        return PRLookupQuery(lang=lang, number=int(pm.group(1)))

    if _TRENDS.search(s):
        nm = _N_WEEKS.search(s)
        return TrendsQuery(lang=lang, weeks=min(26, max(2, int(nm.group(1)))) if nm else 8)

    week, problem, rest = _week(s)
    if problem:
        return HelpQuery(lang=lang, problem=f"bad_week:{problem}")
    if _RISKS.search(rest):
        return RisksQuery(lang=lang, week=week)
    if _TOP.search(rest):
        return TopPRsQuery(lang=lang, week=week)
    if _CONTRIB.search(rest):
        return ContributorsQuery(lang=lang, week=week)
    if _SUMMARY.search(rest):
        return SummaryQuery(lang=lang, week=week)

    name = rest
    explicit = False
    hm = _MODULE_HEAD.search(name)
    if hm:
        explicit, name = True, name[hm.end():].strip()
    tm = _MODULE_TAIL.search(name)
    if tm:
        explicit, name = True, name[: tm.start()].strip()
    if not name and rest != s:  # only a week ("this week"): the week's summary
        return SummaryQuery(lang=lang, week=week)
    module, asked, candidates = _module_target(name, index)
    if module is not None or candidates or explicit:
        return ModuleQuery(lang=lang, week=week, module=module, asked=asked, candidates=candidates)
    return HelpQuery(lang=lang, unknown=True)


# --------------------------------------------------------------------------------------------
# Answering
# --------------------------------------------------------------------------------------------


class DigestProvider(Protocol):
    """Where answers get digests from (the caller caches them per week and language)."""

    def digest(self, week: IsoWeek, lang: str) -> Digest:
        """The digest of ``week`` in ``lang`` (a week without PRs gives an empty digest)."""
        ...


class DigestCache:
    """A :class:`DigestProvider` over a fixed list of PRs: builds each (week, lang) digest once.

    Args:
        prs: the PRs (any weeks; the week's window selects).
        repo: ``owner/name``.
        rules: the repository's rules.
        tz: IANA zone of the week windows.
    """

    def __init__(self, prs: Sequence[PullRequest], *, repo: str, rules: Rules, tz: str = "UTC") -> None:
        self.prs = list(prs)
        self.repo = repo
        self.rules = rules
        self.tz = tz
        self._cache: dict[tuple[str, str], Digest] = {}

    def digest(self, week: IsoWeek, lang: str) -> Digest:
        """The digest of ``week`` in ``lang``, built on first use.

        Raises:
            chatbot.errors.InputError: ``lang`` is not ``en``/``zh`` or the zone is unknown.
        """
        key = (str(week), lang)
        d = self._cache.get(key)
        if d is None:
            d = build_digest(self.prs, repo=self.repo, week=week, rules=self.rules, tz=self.tz, lang=lang)
            self._cache[key] = d
        return d


def _resolve_week(ref: WeekRef, now: datetime, tz: str) -> IsoWeek:
    current = IsoWeek.containing(now, load_zone(tz))
    if ref == "current":
        return current
    if ref == "previous":
        return current.previous()
    return IsoWeek.parse(ref)


def _candidates_card(header: str, message: str, candidates: Sequence[str], index: ModuleIndex, lang: str) -> Card:
    lines = [message] + [f"• {index.display(m, lang)} ({m})" for m in candidates]
    return message_card(header, lines, lang=lang, role="module_candidates")


def _unknown_module_card(header: str, asked: str, index: ModuleIndex, lang: str) -> Card:
    lines = [tr(lang, "card.module.unknown", name=asked)] if asked else []
    lines.append(tr(lang, "card.module.list", modules=tr(lang, "sep").join(index.ids)))
    card = message_card(header, lines, lang=lang, role="module_unknown")
    return card


def answer(
    query: Query,
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

    Returns:
        The answer card.

    Raises:
        chatbot.errors.InputError: ``tz`` is not a known zone (a configuration error).
    """
    out_lang = lang if lang in ("en", "zh") else query.lang
    index = modules if modules is not None else default_module_index()

    if isinstance(query, HelpQuery):
        problem = ""
        if query.problem.startswith("bad_week:"):
            problem = tr(out_lang, "card.bad_week", week=query.problem.split(":", 1)[1])
        return help_card(out_lang, unknown=query.unknown, problem=problem)
    if isinstance(query, PRLookupQuery):
        return _answer_pr(query.number, digest_provider, now, tz, out_lang, limits, lookback_weeks)
    if isinstance(query, (SubscribeQuery, UnsubscribeQuery, SubscriptionsQuery)):
        return _answer_subscription(query, index, out_lang, requester, subscriptions)
    if isinstance(query, ModuleQuery) and query.module is None:
        header = tr(out_lang, "card.help.header")
        if query.candidates:
            return _candidates_card(header, tr(out_lang, "card.module.ambiguous", name=query.asked), query.candidates, index, out_lang)
        return _unknown_module_card(header, query.asked, index, out_lang)

    if isinstance(query, TrendsQuery):
        return _answer_trends(query.weeks, digest_provider, now, tz, out_lang)

    week = _resolve_week(query.week, now, tz)
    d = digest_provider.digest(week, out_lang)
    notice: list[str] = []
    if d.total_prs == 0:
        if query.week != "current":
            return message_card(d.repo, [tr(out_lang, "card.empty_week", week=week)], lang=out_lang, role="empty")
        prev = week.previous()
        d = digest_provider.digest(prev, out_lang)
        notice = [tr(out_lang, "card.empty_now", week=week)]
        if d.total_prs == 0:
            notice.append(tr(out_lang, "card.empty_week", week=prev))
            return message_card(d.repo, notice, lang=out_lang, role="empty")
        notice.append(tr(out_lang, "card.showing_last", week=prev))
        week = prev
    url = report_url(week) if report_url else None

    if isinstance(query, RisksQuery):
        return risks_card(d, report_url=url, limits=limits, notice=notice)
    if isinstance(query, TopPRsQuery):
        return top_prs_card(d, report_url=url, limits=limits, notice=notice)
    if isinstance(query, ContributorsQuery):
        return contributors_card(d, limits=limits, notice=notice)
    if isinstance(query, ModuleQuery) and query.module is not None:
        return module_card(d, query.module, index.display(query.module, out_lang), report_url=url, limits=limits, notice=notice)
    card = digest_cards(d, report_url=url, limits=limits)[0]
    if notice:
        card = card.model_copy(update={"blocks": (Section(role="notice", lines=tuple((Text(text=n),) for n in notice)), *card.blocks)})
    return card.model_copy(update={"part": 1, "parts": 1})


def _answer_trends(n_weeks: int, provider: DigestProvider, now: datetime, tz: str, lang: str) -> Card:
    """Trends of the ``n_weeks`` weeks ending with the current week (the previous one when the
    current week has no PRs yet); leading weeks without PRs (before the history) are dropped."""
    end = IsoWeek.containing(now, load_zone(tz))
    if provider.digest(end, lang).total_prs == 0:
        end = end.previous()
    weeks = [end]
    while len(weeks) < n_weeks:
        weeks.append(weeks[-1].previous())
    digests = [provider.digest(w, lang) for w in reversed(weeks)]
    while digests and digests[0].total_prs == 0:
        digests.pop(0)
    if not digests:
        return message_card(tr(lang, "card.trends.header", repo="", weeks=0), [tr(lang, "card.empty_week", week=end)],
                            lang=lang, role="empty")
    names: dict[str, str] = {}
    for d in digests:
        names.update(d.module_names)
    trends = build_trends(digests[-1].repo, [week_stats(d) for d in digests], module_names=names)
    return trends_card(trends, lang)


def _answer_pr(number: int, provider: DigestProvider, now: datetime, tz: str, lang: str, limits: CardLimits,
               lookback: int) -> Card:
    week = IsoWeek.containing(now, load_zone(tz))
    first = week
    d: Digest | None = None
    for _ in range(max(lookback, 1)):
        d = provider.digest(week, lang)
        for p in d.prs:
            if p.number == number:
                return pr_card(p, d, limits=limits)
        first = week
        week = week.previous()
    last = IsoWeek.containing(now, load_zone(tz))
    return message_card(tr(lang, "card.pr.header", number=number),
                        [tr(lang, "card.pr.not_found", number=number, first=first, last=last)], lang=lang, role="pr_not_found")


def _answer_subscription(query: SubscribeQuery | UnsubscribeQuery | SubscriptionsQuery, index: ModuleIndex, lang: str,
                         requester: Requester | None, book: SubscriptionBook | None) -> Card:
    header = tr(lang, "card.sub.header")
    if requester is None or book is None:
        return message_card(header, [tr(lang, "card.sub.unavailable")], lang=lang, role="subscription")
    if isinstance(query, SubscriptionsQuery):
        lines: list[str] = []
        targets = [("user", requester.user, tr(lang, "card.sub.you"))]
        if requester.channel:
            targets.append(("channel", requester.channel, tr(lang, "card.sub.channel")))
        for sub_kind, sid, who in targets:
            subs = book.subscriptions_of(requester.platform, requester.workspace, sub_kind, sid, requester.repo)
            if subs:
                lines.append(tr(lang, "card.sub.list", who=who, repo=requester.repo))
                lines += [f"• {index.display(s.module, lang)} ({s.module})" for s in subs]
        return message_card(header, lines or [tr(lang, "card.sub.list_empty")], lang=lang, role="subscription")
    if query.module is None:
        if query.candidates:
            return _candidates_card(header, tr(lang, "card.module.ambiguous", name=query.asked), query.candidates, index, lang)
        if query.asked:
            return _unknown_module_card(header, query.asked, index, lang)
        return message_card(header, [tr(lang, "card.sub.need_module")], lang=lang, role="subscription")
    if query.channel and not requester.is_admin:
        return message_card(header, [tr(lang, "card.sub.admin_only")], lang=lang, role="subscription")
    kind: Literal["user", "channel"] = "channel" if query.channel else "user"
    sub = Subscription(platform=requester.platform, workspace=requester.workspace, kind=kind,
                       subscriber=requester.channel if query.channel else requester.user, repo=requester.repo,
                       module=query.module)
    who = tr(lang, "card.sub.channel" if query.channel else "card.sub.you")
    values = {"who": who, "name": index.display(query.module, lang), "id": query.module, "repo": requester.repo}
    if isinstance(query, SubscribeQuery):
        key = "card.sub.done" if book.subscribe(sub) else "card.sub.already"
    else:
        key = "card.unsub.done" if book.unsubscribe(sub) else "card.unsub.none"
    return message_card(header, [tr(lang, key, **values)], lang=lang, role="subscription")


# --------------------------------------------------------------------------------------------
# Chat: one call per inbound message
# --------------------------------------------------------------------------------------------


class WindowDigests:
    """A :class:`DigestProvider` that reads each week's PRs from a source (the store) when asked.

    Digests are kept for ``ttl`` seconds of the clock, so a busy channel does not rebuild them.

    Args:
        fetch: ``fetch(start, end)`` -> PRs merged in ``[start, end)`` (aware UTC); e.g.
            ``lambda s, e: store.merged_between(repo, s, e)``.
        repo: ``owner/name``.
        rules: the repository's rules.
        clock: ``now()`` -> aware datetime.
        tz: IANA zone of the week windows.
        ttl: seconds a digest is reused.
        context_days: days before the window read too (context for reverts and follow-ups).
    """

    def __init__(self, fetch: Callable[[datetime, datetime], Sequence[PullRequest]], *, repo: str, rules: Rules,
                 clock: Callable[[], datetime], tz: str = "UTC", ttl: float = 300.0, context_days: int = 7) -> None:
        self.fetch = fetch
        self.repo = repo
        self.rules = rules
        self.clock = clock
        self.tz = tz
        self.ttl = ttl
        self.context_days = context_days
        self._cache: dict[tuple[str, str], tuple[datetime, Digest]] = {}

    def digest(self, week: IsoWeek, lang: str) -> Digest:
        """The digest of ``week`` in ``lang``, read and built at most once per ``ttl``.

        Raises:
            chatbot.errors.PrhubError: the source cannot answer.
        """
        from datetime import timedelta

        now = self.clock()
        key = (str(week), lang)
        hit = self._cache.get(key)
        if hit is not None and (now - hit[0]).total_seconds() < self.ttl:
            return hit[1]
        start, end = week.utc_window(load_zone(self.tz))
        prs = self.fetch(start - timedelta(days=self.context_days), end)
        d = build_digest(prs, repo=self.repo, week=week, rules=self.rules, tz=self.tz, lang=lang, generated_at=now)
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = (now, d)
        return d


class Responder:
    """Parse and answer chat messages for one repository: what Slack and Feishu handlers call.

    Args:
        digest_provider: digests per (week, lang).
        clock: ``now()`` -> aware datetime (the bot's clock).
        repo: the default repository of every destination (``owner/name``).
        tz: zone of the week windows.
        modules: module names of the repository's rules.
        subscriptions: the subscription store (None: subscription intents say "unavailable").
        report_url: the public report URL of a week, or None when there is no public URL.
        default_lang: language of answers to a bare mention (no words to tell the language by).
        observe: called with the seconds each reply took (query metrics), if given.
    """

    def __init__(self, *, digest_provider: DigestProvider, clock: Callable[[], datetime], repo: str, tz: str = "UTC",
                 modules: ModuleIndex | None = None, subscriptions: SubscriptionBook | None = None,
                 report_url: Callable[[IsoWeek], str | None] | None = None, default_lang: str = "en",
                 limits: CardLimits = DEFAULT_LIMITS, observe: Callable[[float], None] | None = None) -> None:
        self.observe = observe
        self.digest_provider = digest_provider
        self.clock = clock
        self.repo = repo
        self.tz = tz
        self.modules = modules if modules is not None else default_module_index()
        self.subscriptions = subscriptions
        self.report_url = report_url
        self.default_lang = default_lang if default_lang in ("en", "zh") else "en"
        self.limits = limits

    def query(self, text: str, *, bot_ids: Collection[str] = (), mentions: Sequence[Mention] = ()) -> Query:
        """:func:`parse` with this repository's modules."""
        return parse(text, bot_ids=bot_ids, mentions=mentions, modules=self.modules)

    def reply(self, text: str, *, bot_ids: Collection[str] = (), mentions: Sequence[Mention] = (),
              requester: Requester | None = None) -> Card:
        """The answer card to one message.

        Args:
            text: the message text as the platform gives it.
            bot_ids: the bot's own ids (its mention is removed, other users' are ignored).
            mentions: Feishu ``mentions`` entries.
            requester: who asks and where (subscriptions).

        Returns:
            One card in the query's language (``default_lang`` for a bare mention).

        Raises:
            chatbot.errors.PrhubError: the digest source failed (the handler shows ``user_message``).
        """
        started = time.perf_counter()
        q = self.query(text, bot_ids=bot_ids, mentions=mentions)
        lang: str | None = None
        if isinstance(q, HelpQuery) and not clean_text(text, bot_ids=bot_ids, mentions=mentions)[0]:
            lang = self.default_lang
        card = answer(q, digest_provider=self.digest_provider, now=self.clock(), lang=lang, tz=self.tz,
                      modules=self.modules, requester=requester, subscriptions=self.subscriptions,
                      report_url=self.report_url, limits=self.limits)
        if self.observe is not None:
            self.observe(time.perf_counter() - started)
        return card

    def error_card(self, message: str, lang: str | None = None) -> Card:
        """A card showing an error's safe ``user_message`` (inbound catch-alls)."""
        lg = lang or self.default_lang
        return message_card(tr(lg, "card.error.header"), [message], lang=lg, role="error")
