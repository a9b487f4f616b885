"""Intents ``subscriptions``, ``unsubscribe`` and ``subscribe``: per-module weekly updates for the
sender (or, with ``channel``, for the conversation; admins only). One message may name several
modules ("subscribe moe and quantization", "订阅 注意力后端, MoE", "订阅 MoE 和 量化"): all of them
change, or, when one name matches no module or several, none does and the answer says which."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from chatbot.buttons import ActionValue, ChatAction
from chatbot.cards import Card, message_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, compile_patterns, module_targets
from chatbot.subscriptions import Subscription


class SubscriptionsQuery(QueryBase):
    """List the sender's (and the conversation's) subscriptions."""

    intent: Literal["subscriptions"] = "subscriptions"


class SubscribeQuery(QueryBase):
    """Subscribe the sender (or, with ``channel``, the conversation) to a module."""

    intent: Literal["subscribe"] = "subscribe"
    channel: bool = False
    modules: tuple[str, ...] = ()
    """Every module named (ids, in the order named); empty when one name matched none or several."""
    asked: str = ""
    candidates: tuple[str, ...] = ()

    @property
    def module(self) -> str | None:
        """The first module named (None when none matched)."""
        return self.modules[0] if self.modules else None


class UnsubscribeQuery(QueryBase):
    """Remove a subscription of the sender (or, with ``channel``, of the conversation)."""

    intent: Literal["unsubscribe"] = "unsubscribe"
    channel: bool = False
    modules: tuple[str, ...] = ()
    """As :attr:`SubscribeQuery.modules`."""
    asked: str = ""
    candidates: tuple[str, ...] = ()

    @property
    def module(self) -> str | None:
        """The first module named (None when none matched)."""
        return self.modules[0] if self.modules else None


LIST_PATTERNS = {"en": (r"\b(?:my |list |show |our )?subscriptions\b|\b(?:am i|are we|i am|we are|im) subscribed\b",), "zh": ("我的订阅|订阅列表|查看订阅|已订阅",)}
UNSUB_PATTERNS = {"en": (r"\bunsubscribe\b",), "zh": ("取消订阅|退订",)}
SUB_PATTERNS = {"en": (r"\bsubscribe\b",), "zh": ("订阅",)}
_LIST = compile_patterns(LIST_PATTERNS)
_UNSUB = compile_patterns(UNSUB_PATTERNS)
_SUB = compile_patterns(SUB_PATTERNS)
_CHANNEL = re.compile(r"^(?:(?:this |the )?channel|(?:this |the )?group|频道|本群|群聊|群|本频道)\b ?")


def parse_list(inp: ParseInput) -> SubscriptionsQuery | None:
    """``my subscriptions``, ``我的订阅`` (not ``unsubscribe ...``)."""
    if _LIST.search(inp.text) and not _UNSUB.search(inp.text):
        return SubscriptionsQuery(lang=inp.lang)
    return None


def _target(inp: ParseInput, rx: re.Pattern[str], cls: type[SubscribeQuery] | type[UnsubscribeQuery]) -> QueryBase | None:
    m = rx.search(inp.text)
    if not m:
        return None
    rest = inp.text[m.end():].strip()
    channel = False
    cm = _CHANNEL.match(rest)
    if cm:
        channel, rest = True, rest[cm.end():].strip()
    modules, asked, candidates = module_targets(rest, inp.modules)
    return cls(lang=inp.lang, channel=channel, modules=modules, asked=asked, candidates=candidates)


def parse_unsubscribe(inp: ParseInput) -> QueryBase | None:
    """``unsubscribe [channel] <module>``, ``取消订阅 <模块>``."""
    return _target(inp, _UNSUB, UnsubscribeQuery)


def parse_subscribe(inp: ParseInput) -> QueryBase | None:
    """``subscribe [channel] <module>``, ``订阅 [频道] <模块>``."""
    return _target(inp, _SUB, SubscribeQuery)


def answer_list(q: SubscriptionsQuery, ctx: AnswerContext) -> Card:
    """The sender's and the conversation's subscriptions to the repository."""
    header = tr(ctx.lang, "card.sub.header")
    who, book = ctx.requester, ctx.subscriptions
    if who is None or book is None:
        return message_card(header, [tr(ctx.lang, "card.sub.unavailable")], lang=ctx.lang, role="subscription")
    lines: list[str] = []
    targets = [("user", who.user, tr(ctx.lang, "card.sub.you"))]
    if who.channel:
        targets.append(("channel", who.channel, tr(ctx.lang, "card.sub.channel")))
    for sub_kind, sid, name in targets:
        subs = book.subscriptions_of(who.platform, who.workspace, sub_kind, sid, who.repo)
        if subs:
            lines.append(tr(ctx.lang, "card.sub.list", who=name, repo=who.repo))
            lines += ["• " + tr(ctx.lang, "paren", text=ctx.modules.display(s.module, ctx.lang), inner=s.module)
                      for s in subs]
    return message_card(header, lines or [tr(ctx.lang, "card.sub.list_empty")], lang=ctx.lang, role="subscription")


def answer_change(q: SubscribeQuery | UnsubscribeQuery, ctx: AnswerContext) -> Card:
    """Add or remove the subscriptions, one line per module (idempotent: "already" / "none" when
    nothing changed for it)."""
    lang = ctx.lang
    header = tr(lang, "card.sub.header")
    who, book = ctx.requester, ctx.subscriptions
    if who is None or book is None:
        return message_card(header, [tr(lang, "card.sub.unavailable")], lang=lang, role="subscription")
    if not q.modules:
        if q.candidates:
            return ctx.candidates_card(header, q.asked, q.candidates)
        if q.asked:
            return ctx.unknown_module_card(header, q.asked)
        return message_card(header, [tr(lang, "card.sub.need_module")], lang=lang, role="subscription")
    if q.channel and not who.is_admin:
        return message_card(header, [tr(lang, "card.sub.admin_only")], lang=lang, role="subscription")
    kind: Literal["user", "channel"] = "channel" if q.channel else "user"
    lines = []
    for module in q.modules:
        sub = Subscription(platform=who.platform, workspace=who.workspace, kind=kind,
                           subscriber=who.channel if q.channel else who.user, repo=who.repo, module=module)
        values = {"who": tr(lang, "card.sub.channel" if q.channel else "card.sub.you"),
                  "name": ctx.modules.display(module, lang), "id": module, "repo": who.repo}
        if isinstance(q, SubscribeQuery):
            key = "card.sub.done" if book.subscribe(sub) else "card.sub.already"
        else:
            key = "card.unsub.done" if book.unsubscribe(sub) else "card.unsub.none"
        lines.append(tr(lang, key, **values))
    return message_card(header, lines, lang=lang, role="subscription")


def _press(cls: type[SubscribeQuery] | type[UnsubscribeQuery]) -> Callable[[ActionValue], QueryBase]:
    """A Subscribe / Unsubscribe button's query: the button's module."""
    return lambda v: cls(lang=v.lang, modules=(v.module,) if v.module else (), asked=v.module)


LIST = Intent(name="subscriptions", query=SubscriptionsQuery, patterns=LIST_PATTERNS, parse=parse_list,
              answer=answer_list, help_rank=90,
              help={"en": "my subscriptions: what you follow", "zh": "我的订阅：查看已订阅的模块"},
              before=("compare",))
UNSUBSCRIBE = Intent(name="unsubscribe", query=UnsubscribeQuery, patterns=UNSUB_PATTERNS, parse=parse_unsubscribe,
                     answer=answer_change,
                     before=("subscribe",), actions={"unsubscribe": ChatAction(make=_press(UnsubscribeQuery), needs_module=True)})
SUBSCRIBE = Intent(name="subscribe", query=SubscribeQuery, patterns=SUB_PATTERNS, parse=parse_subscribe,
                   answer=answer_change, help_rank=80,
                   help={"en": "subscribe [channel] <module> [and <module>] / unsubscribe <module>: weekly updates for modules",
                         "zh": "订阅 [频道] <模块> [和 <模块>] / 取消订阅 <模块>：按模块接收每周更新"},
                   before=("search",), actions={"subscribe": ChatAction(make=_press(SubscribeQuery), needs_module=True)})
