"""Intent ``module``: one module's PRs, churn and risks in a week (``what changed in spec-decode``)."""

from __future__ import annotations

import re
from typing import Literal

from chatbot.buttons import ButtonContext, ChatAction, button
from chatbot.cards import Button, Card, module_card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns, module_target
from chatbot.intents.summary import SummaryQuery


class ModuleQuery(QueryBase):
    """One module's PRs in a week. ``module`` is None when ``asked`` matched no module or several
    (``candidates``, module ids in rules order)."""

    intent: Literal["module"] = "module"
    week: WeekRef = "current"
    module: str | None = None
    asked: str = ""
    candidates: tuple[str, ...] = ()


PATTERNS = {
    "en": (r"(?:what|whats|what is|what has|what have) (?:changed|new|happened|happening|merged)(?: (?:in|with|for|to|on))?"
           r"|(?:changes?|news|updates?|activity|prs?) (?:in|to|for|of|on)|(?:show|tell me about|about)|modules?",
           r"\bmodules?|\bchanges?"),
    "zh": ("模块", "模块|有什么变化|有哪些变化|有什么更新|有哪些更新|的变化|的更新|变化|动态|怎么样"),
}
"""A head (``what changed in``, ``模块``) and a tail (``changes``, ``有什么变化``) per language
around the module name; without them, a text that is only a module name still asks for it."""
_HEAD = re.compile(rf"^(?:{PATTERNS['en'][0]})\b ?|^(?:{PATTERNS['zh'][0]}) ?")
_STRONG = re.compile(r"^(?:modules?\b|模块)")
_TAIL = re.compile(rf" ?(?:{PATTERNS['en'][1]}|{PATTERNS['zh'][1]})$")
MAX_LEFTOVER = 2
"""A message naming one module and nothing else is that module's question when at most this many
other words are left ("lora 改了啥", "umm so what's going on with the spec decode stuff")."""
_ANY = compile_patterns(PATTERNS)
"""The head and tail words anywhere, around the one module the entities name."""
_WORD_MODULE = re.compile(r" ?(?:\bmodules?|模块)$")
"""A trailing "module" after the name ("注意力模块有什么变化", "attention module changes")."""


def parse(inp: ParseInput) -> QueryBase | None:
    """A module name, optionally inside a head or tail; only a week (``this week``) is the summary.
    A name that is no module is this intent's only after the word "module" ("module nosuch");
    otherwise ("Kimi changes") it is left to the search fallback."""
    rest = inp.rest
    name = rest
    explicit = False
    hm = _HEAD.search(name)
    if hm:
        explicit, name = True, name[hm.end():].strip()
    tm = _TAIL.search(name)
    if tm:
        explicit, name = True, name[: tm.start()].strip()
    wm = _WORD_MODULE.search(name)
    if wm and name[: wm.start()].strip():
        explicit, name = True, name[: wm.start()].strip()
    if not name and rest != inp.text:  # only a week ("this week"): the week's summary
        return SummaryQuery(lang=inp.lang, week=inp.week)
    module, asked, candidates = module_target(name, inp.modules)
    e = inp.entities
    if module is None and len(e.modules) == 1 and not (e.topics or e.labels or e.tags or e.risk or e.span) \
            and (_ANY.search(rest) or (len(e.words) <= MAX_LEFTOVER and not e.by_alias)):
        return ModuleQuery(lang=inp.lang, week=inp.week, module=e.modules[0], asked=e.modules[0])  # "any updates on quantization"
    if module is None and not candidates and explicit and not _STRONG.match(rest):
        return None  # "Kimi changes", "what changed in qwen3": no module; the search fallback reads it
    if module is not None or candidates or explicit:
        return ModuleQuery(lang=inp.lang, week=inp.week, module=module, asked=asked, candidates=candidates)
    return None


def answer(q: ModuleQuery, ctx: AnswerContext) -> Card:
    """The module's card; candidates or the module list when the name matched several or none."""
    if q.module is None:
        header = tr(ctx.lang, "card.help.header")
        if q.candidates:
            return ctx.candidates_card(header, q.asked, q.candidates)
        return ctx.unknown_module_card(header, q.asked)
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    return module_card(w.digest, q.module, ctx.modules.display(q.module, ctx.lang), report_url=w.report_url,
                       limits=ctx.limits, notice=list(w.notice))


def buttons(q: ModuleQuery, b: ButtonContext) -> list[Button]:
    """Subscribe to this module · ◀ Previous week · Next week ▶ (the ``module`` action); none
    when the name matched no module or several."""
    if q.module is None:
        return []
    return [button(b.lang, "card.button.subscribe", "subscribe", b.value(module=q.module)), *b.weeks("module", q.module)]


INTENT = Intent(name="module", query=ModuleQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=30,
                help={"en": "what changed in spec-decode / attention this week: one module's PRs, churn and risks",
                      "zh": "模块 投机解码 / 注意力后端 本周：单个模块的 PR、改动量和风险"},
                actions={"module": ChatAction(make=lambda v: ModuleQuery(lang=v.lang, week=v.week or "current",
                                                                         module=v.module or None, asked=v.module),
                                              needs_module=True)},
                buttons=buttons)
