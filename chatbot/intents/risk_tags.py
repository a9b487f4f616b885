"""Intent ``risk_tag``: the PRs of a week carrying one risk tag, asked by name with synonyms in
English and Chinese ("what got reverted last week", "本周安全相关的 PR", "哪些 PR 删了测试"),
optionally in one or several modules ("rocm risks", "kv-connector 和 ROCm 上周的风险"), in a topic
of the rules ("DeepSeek V4 risks") or by an author ("risks by Michael Goin"). A module named with
the bare word "risks" (and no tag) is the module's risks. The message's entities
(:mod:`chatbot.entities`) give the filters; words that name no module, topic or author are
ignored, and the answer says which.

Tags and their words come from the risk rules (``RiskRule.words`` in ``chatbot/risks/<tag>.py``,
read in :attr:`chatbot.risks.RiskRegistry.tag_words` order: the first tag named is the one asked
about, "tests removed" before "missing tests").
"""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Card
from chatbot.entities import RISK_EN, RISK_ZH
from chatbot.filters import Filters, keep, resolve_words
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef
from chatbot.risks import RISKS

class RiskTagQuery(QueryBase):
    """PRs of a week carrying ``tag`` (None: any tag), optionally in modules or topics, with labels,
    or by the author the leftover ``words`` name (:class:`chatbot.filters.Filters`)."""

    intent: Literal["risk_tag"] = "risk_tag"
    week: WeekRef = "current"
    tag: str | None = None
    modules: tuple[str, ...] = ()
    """Module ids: PRs in any of them (empty: every module)."""
    topics: tuple[str, ...] = ()
    """Topic ids of the rules: PRs whose title names one."""
    labels: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    """Words naming no module or topic: an author of the week, else ignored (the answer says so)."""

    @property
    def module(self) -> str | None:
        """The first module (None without one)."""
        return self.modules[0] if self.modules else None

    @property
    def topic(self) -> str | None:
        """The first topic (None without one)."""
        return self.topics[0] if self.topics else None

    @property
    def asked(self) -> str:
        """The leftover words as one name (``""`` without them)."""
        return " ".join(self.words)

    def filters(self) -> Filters:
        """The query as :class:`chatbot.filters.Filters` (always risky)."""
        return Filters(modules=self.modules, topics=self.topics, labels=self.labels,
                       tags=(self.tag,) if self.tag else (), risky=True, words=self.words)


def parse(inp: ParseInput) -> RiskTagQuery | None:
    """A risk tag by name, or the word "risk" with something to narrow it (a module, topic, label or
    other words); filler words are dropped, unknown words kept for the answer to read as an author."""
    e = inp.entities
    tag = e.tags[0] if e.tags else None
    if tag is None and not e.risk:
        return None
    if tag is None and not (e.modules or e.topics or e.labels or e.words):
        return None  # only "risks": the risks intent
    return RiskTagQuery(lang=inp.lang, week=inp.week, tag=tag, modules=e.modules, topics=e.topics, labels=e.labels,
                        words=e.words)


def answer(q: RiskTagQuery, ctx: AnswerContext) -> Card:
    """The matching PRs with their reasons for the tag (all tags without one); leftover words name
    an author of the week, or are ignored with a line saying so."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    f = q.filters()
    author, ignored = resolve_words(f, d.prs, ctx.people(d))
    prs = [p for p in d.prs if keep(p, f, ctx.modules, author)]
    what = ctx.filter_what(tr(lang, f"risk.{q.tag}") if q.tag else tr(lang, "card.filter.any_risk"), f, author)
    tags = (q.tag,) if q.tag else None

    def detail(p: AnalyzedPR) -> str:
        if tags == ("revert",) and "revert" not in p.risk_tags:  # a docs-only revert: the fact, no advice
            return tr(lang, "card.pr.reverts", number=p.reverts) if p.reverts is not None else tr(lang, "risk.revert")
        return tr(lang, "sep.clause").join(p.risk_reasons.get(t, "") or tr(lang, f"risk.{t}") for t in (tags or p.risk_tags))

    return ctx.filter_card(w, prs, what, ignored=ignored, detail=detail)


PATTERNS = {"en": (*(w["en"] for _, w in RISKS.tag_words if "en" in w), RISK_EN),
            "zh": (*(w["zh"] for _, w in RISKS.tag_words if "zh" in w), RISK_ZH)}
"""The risk rules' chat words (``RiskRule.words``) and the risk words (:data:`chatbot.entities.RISK_EN`)."""


INTENT = Intent(name="risk_tag", query=RiskTagQuery, patterns=PATTERNS,
                parse=parse, answer=answer, takes_week=True, help_rank=11,
                help={"en": "reverts / security / missing tests / tests removed / large / dependencies [in MODULE(S), "
                            "TOPIC or by AUTHOR] [last week]: PRs with that risk",
                      "zh": "回滚 / 安全 / 没有测试 / 删了测试 / 大改动 / 依赖 [模块、主题或作者] [上周]：带该风险的 PR"},
                before=("risks",))
