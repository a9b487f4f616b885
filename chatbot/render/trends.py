"""Markdown rendering of :class:`~chatbot.history.Trends` (template ``trends.md.j2``). Pure.

One table per view: per week (PRs, key PRs, average importance, authors, top labels), then the top
modules and risk tags per week. Each cell holds the count and its delta against the row above.
"""

from __future__ import annotations

from chatbot.history import Trends, TrendWeek, signed
from chatbot.i18n import tr
from chatbot.render.markdown import markdown_env


def _cell(value: int | float, delta: int | float | None) -> str:
    shown = f"{value:.1f}" if isinstance(value, float) else str(value)
    return f"{shown} ({signed(delta)})" if delta is not None else shown


def _count(row: TrendWeek, kind: str, key: str, first: bool) -> str:
    value = row.stats.counts(kind).get(key, 0)
    deltas = {"labels": row.label_deltas, "modules": row.module_deltas, "risk_tags": row.risk_tag_deltas}[kind]
    return _cell(value, None if first else deltas.get(key, 0))


def render_trends_markdown(trends: Trends, *, lang: str = "en") -> str:
    """Trends as a Markdown document in ``lang``: ``180``, ``186 (+6)``, ... per week; untrusted text escaped."""
    weeks = trends.weeks
    return markdown_env().get_template("trends.md.j2").render(
        tr_=trends, t=lambda key, **kw: tr(lang, key, **kw), cell=_cell, count=_count,
        first=weeks[0].stats.week if weeks else "", last=weeks[-1].stats.week if weeks else "",
        total=sum(w.stats.total_prs for w in weeks),
    )
