"""Intent ``risk_tag``: the PRs of a week carrying one risk tag, asked by name with synonyms in
English and Chinese ("what got reverted last week", "本周安全相关的 PR", "哪些 PR 删了测试"),
optionally in one or several modules ("rocm risks", "kv-connector 和 ROCm 上周的风险"), in a topic
of the rules ("DeepSeek V4 risks") or by an author ("risks by Michael Goin"). A module named with
the bare word "risks" (and no tag) is the module's risks. Words that name no module, topic or
author are never dropped: the answer says so and lists the modules.

Tags and their words come from :data:`TAG_WORDS` (first match wins: "tests removed" before
"missing tests"); the tag ids are the analysis's (:mod:`chatbot.risks`).
"""

from __future__ import annotations

import re
from typing import Literal

from chatbot.cards import Card, filtered_card
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, module_targets
from chatbot.intents.authors import match_authors

TAG_WORDS: tuple[tuple[str, str, str], ...] = (
    ("revert", r"\brevert(?:s|ed|ing)?\b|\brolled back\b|\broll ?backs?\b", "回滚|回退|撤销"),
    ("security-sensitive", r"\bsecurity\b|\bsecure\b|\bcves?\b|\bvulnerab\w*", "安全"),
    ("tests-removed", r"\b(?:tests?|testing) (?:were |was )?(?:removed|deleted|dropped)\b|\b(?:removed|deleted|dropped) (?:the )?tests?\b",
     "删(?:了|除了?)?测试|移除了?测试|测试被删"),
    ("missing-tests", r"\bmissing tests?\b|\bwithout tests?\b|\bno tests?\b|\buntested\b|\btest coverage\b",
     "没有测试|缺少?测试|无测试|没测试|未测试"),
    ("large-change", r"\blarge(?: changes?| prs?)?\b|\bbig (?:changes?|prs?)\b|\bhuge\b", "大改动|大型改动|大规模|大的改动|大改"),
    ("dependency-change", r"\bdependenc(?:y|ies)\b|\bdeps\b|\bdependency bumps?\b", "依赖"),
    ("follow-up-fix", r"\bfollow[- ]?up fix(?:es)?\b|\bhotfix(?:es)?\b", "紧急修复|后续修复"),
)
_TAGS = tuple((tag, re.compile(f"(?:{en})|(?:{zh})")) for tag, en, zh in TAG_WORDS)
_RISK = re.compile(r"\brisk(?:s|y)?\b|风险")
_FILLER = re.compile(r"\b(?:what|which|any|show|me|list|got|were|was|the|prs?|pull requests?|changes?|related|"
                     r"in|of|for|with|merged|are|there|please|pls|can|could|you|tell|give|all|by|from|tags?|top|key|main|biggest|major|important|latest|recent|now|today|so|far|and|or)\b"
                     r"|哪些|什么|的|相关|有|吗|了|合并|呢|？|\?|,|，|本周|上周|这周|请|帮我|看看|看一下|一下|列出|所有|标签", re.I)


class RiskTagQuery(QueryBase):
    """PRs of a week carrying ``tag`` (None: any tag), optionally in ``module``."""

    intent: Literal["risk_tag"] = "risk_tag"
    week: WeekRef = "current"
    tag: str | None = None
    modules: tuple[str, ...] = ()
    """Module ids: PRs in any of them (empty: every module)."""
    topic: str | None = None
    """A topic id of the rules: PRs whose title names it."""
    asked: str = ""
    """Words naming no module or topic: an author of the week, else the answer says no module has that name."""
    candidates: tuple[str, ...] = ()

    @property
    def module(self) -> str | None:
        """The first module (None without one)."""
        return self.modules[0] if self.modules else None


def parse(inp: ParseInput) -> RiskTagQuery | None:
    """A risk tag by name (with an optional module), or a module with the word "risks"."""
    text = inp.rest
    tag = None
    for t, rx in _TAGS:
        m = rx.search(text)
        if m:
            tag, text = t, text[: m.start()] + " " + text[m.end():]
            break
    risk = _RISK.search(text)
    if risk:
        text = text[: risk.start()] + " " + text[risk.end():]
    if tag is None and risk is None:
        return None
    name = " ".join(_FILLER.sub(" ", text).split())
    if not name:
        return RiskTagQuery(lang=inp.lang, week=inp.week, tag=tag) if tag is not None else None
    modules, asked, candidates = module_targets(name, inp.modules)
    if modules:
        return RiskTagQuery(lang=inp.lang, week=inp.week, tag=tag, modules=modules)
    topic = inp.modules.topic(name)
    if topic is not None:
        return RiskTagQuery(lang=inp.lang, week=inp.week, tag=tag, topic=topic)
    return RiskTagQuery(lang=inp.lang, week=inp.week, tag=tag, asked=asked, candidates=candidates)


def answer(q: RiskTagQuery, ctx: AnswerContext) -> Card:
    """The matching PRs with their reasons for the tag (all tags without one); words naming no
    module, topic or author give the module list (or the candidates) instead."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    author = None
    if q.asked:
        header = tr(lang, "card.help.header")
        if q.candidates:
            return ctx.candidates_card(header, q.asked, q.candidates)
        found = match_authors(q.asked, {p.author for p in d.prs if p.author}) if len(q.asked) >= 3 else []
        if len(found) != 1:
            return ctx.unknown_module_card(header, q.asked)
        author = found[0]
    prs = [p for p in d.prs if (p.risk_tags if q.tag is None else q.tag in p.risk_tags or (q.tag == "revert" and p.is_revert))
           and (not q.modules or any(m in p.modules for m in q.modules))
           and (q.topic is None or ctx.modules.topic_in(q.topic, p.title))
           and (author is None or p.author == author)]
    what = tr(lang, f"risk.{q.tag}") if q.tag else tr(lang, "card.filter.any_risk")
    if q.modules:
        names = tr(lang, "sep").join(ctx.modules.display(m, lang) for m in q.modules)
        what = tr(lang, "card.filter.in_module", what=what, module=names)
    elif q.topic is not None:
        what = tr(lang, "card.filter.in_module", what=what, module=ctx.modules.topic_display(q.topic, lang))
    elif author is not None:
        what = tr(lang, "card.filter.by_author", what=what, name=author)
    tags = (q.tag,) if q.tag else None

    def detail(p: AnalyzedPR) -> str:
        if tags == ("revert",) and "revert" not in p.risk_tags:  # a docs-only revert: the fact, no advice
            return tr(lang, "card.pr.reverts", number=p.reverts) if p.reverts is not None else tr(lang, "risk.revert")
        return tr(lang, "sep").join(p.risk_reasons.get(t, "") or tr(lang, f"risk.{t}") for t in (tags or p.risk_tags))

    return filtered_card(d, prs, header=tr(lang, "card.filter.header", what=what, repo=d.repo, week=w.week),
                         count_line=tr(lang, "card.filter.count", n=len(prs), total=d.total_prs),
                         empty_line=tr(lang, "card.filter.none", what=what, week=w.week), detail=detail,
                         report_url=w.report_url, limits=ctx.limits, notice=list(w.notice))


INTENT = Intent(name="risk_tag", query=RiskTagQuery, patterns={"en": tuple(e for _, e, _ in TAG_WORDS),
                                                               "zh": tuple(z for _, _, z in TAG_WORDS)},
                parse=parse, answer=answer, takes_week=True, help_rank=11,
                help={"en": "reverts / security / missing tests / tests removed / large / dependencies [in MODULE(S), "
                            "TOPIC or by AUTHOR] [last week]: PRs with that risk",
                      "zh": "回滚 / 安全 / 没有测试 / 删了测试 / 大改动 / 依赖 [模块、主题或作者] [上周]：带该风险的 PR"})
