"""Intent ``new_contributors``: the authors of a week whose first merged PR in the stored history is
in that week ("any new contributors?", "新贡献者"), with the week the history reaches back to, so
the reader knows what "first" means. Bots never count (as in the digest's contributors).
"""

from __future__ import annotations

from typing import Literal

from chatbot.cards import Block, Card, Line, PRRef, Section, Text, Untrusted, message_card, window_context
from chatbot.history import NewContributor, new_contributors
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns
from chatbot.render.escape import safe_url
from chatbot.weeks import load_zone


SHORT_HISTORY_WEEKS = 4
"""The answer warns that regular authors look new unless each of this many weeks before the
asked one holds stored PRs: with W19 alone before W20, 87 of 137 authors (Cyrus Leung among them)
had "merged their first PR"; with W15 and W20 only, 93 ("reaches back 5 weeks")."""


class NewContributorsQuery(QueryBase):
    """Authors whose first stored merge is in ``week``."""

    intent: Literal["new_contributors"] = "new_contributors"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\bnew (?:contributors?|authors?|people|faces|folks)\b|\bfirst[- ]time(?:rs?| contributors?| authors?)\b"
                   r"|\bnewcomers?\b|\bfirst (?:merges?|contributions?|prs?)\b",),
            "zh": ("新贡献者|新的贡献者|新作者|新人|新面孔|首次贡献|第一次贡献|首次合并|第一次合并",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> NewContributorsQuery | None:
    """``any new contributors?``, ``first-time contributors last week``, ``新贡献者``, ``上周的新人``."""
    return NewContributorsQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.rest) else None


def answer(q: NewContributorsQuery, ctx: AnswerContext) -> Card:
    """The new authors of the week with their PRs, after a line saying how far back the history goes
    (or that it holds nothing before the week, when nobody can be told apart)."""
    lang = ctx.lang
    if ctx.history is None:
        return message_card(tr(lang, "card.newc.header_plain"), [tr(lang, "card.newc.no_history")], lang=lang,
                            role="new_contributors")
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    header = tr(lang, "card.newc.header", repo=d.repo, week=w.week)
    zone = load_zone(ctx.tz)
    start = w.week.utc_window(zone)[0]
    oldest = ctx.history.oldest_merged_at()
    lines: list[Line] = []
    news: tuple[NewContributor, ...] = ()
    if oldest is None or oldest >= start:
        lines.append((Text(text=tr(lang, "card.newc.reach_none", week=w.week)),))
    else:
        first = ctx.zone_week(oldest)
        reach = (w.week.monday - first.monday).days // 7
        lines.append((Text(text=tr(lang, "card.newc.reach", first=first, week=w.week, n=reach)),))
        held, before = 0, w.week
        for _ in range(SHORT_HISTORY_WEEKS):
            before = before.previous()
            held += bool(ctx.history.titles_between(*before.utc_window(zone)))
        if held < SHORT_HISTORY_WEEKS:  # too few weeks, or gaps (W15 and W20 only: "reaches back 5 weeks")
            lines.append((Text(text=tr(lang, "card.newc.short", n=held, k=SHORT_HISTORY_WEEKS, week=w.week)),))
        news = new_contributors(d, ctx.history.authors_before(start, [c.login for c in d.contributors]))
        if not news:
            lines.append((Text(text=tr(lang, "card.newc.none", week=w.week)),))
        else:
            lines.append((Text(text=tr(lang, "card.newc.count", n=len(news), total=len(d.contributors))),))
    urls = {p.number: p.url for p in d.prs}
    for c in news[: ctx.limits.list_items]:
        runs: list[Text | Untrusted | PRRef] = [Text(text="• "), Untrusted(text=c.login), Text(text=tr(lang, "colon"))]
        for i, n in enumerate(c.prs):
            if i:
                runs.append(Text(text=" · "))
            runs.append(PRRef(number=n, url=safe_url(urls.get(n, ""))))
        lines.append(tuple(runs))
    if len(news) > ctx.limits.list_items:
        lines.append((Text(text=tr(lang, "card.more", n=len(news) - ctx.limits.list_items)),))
    blocks: list[Block] = [Section(role="notice", lines=tuple((Text(text=n),) for n in w.notice))] if w.notice else []
    blocks += [window_context(d), Section(role="new_contributors", lines=tuple(lines))]
    return Card(header=header, lang=lang, blocks=tuple(blocks), fallback=f"{header}: {len(news)}")


INTENT = Intent(name="new_contributors", query=NewContributorsQuery, patterns=PATTERNS, parse=parse, answer=answer,
                takes_week=True, help_rank=51,
                help={"en": "any new contributors? [last week]: first merges in the stored history",
                      "zh": "新贡献者 [上周]：在已存储历史中首次合并 PR 的作者"},
                before=("contributors",))
