"""HTML rendering of the full report: a digest page, a trends page and a week archive (Jinja2).

Each page is one self-contained document: inline CSS, a tiny inline script that sorts tables, no
external fetches (charts arrive as PNG bytes and are embedded as ``data:`` URIs). Autoescaping is on:
every untrusted string (titles, logins, paths, reasons) is escaped exactly once by Jinja2 or by the
helpers below, which build :class:`markupsafe.Markup` only from escaped parts. The same inputs give
the same bytes; nothing here reads a clock.

The same HTML feeds the PDF (WeasyPrint, ``@media print`` rules: A4, running header, page numbers,
table headers repeated on every page).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

import jinja2
from markupsafe import Markup, escape

from chatbot.gist_line import shown_gist
from chatbot.history import Trends, WeekHistory, signed
from chatbot.i18n import lines_text, tr
from chatbot.models import AnalyzedPR, DigestText, ProseInfo
from chatbot.render.escape import one_line, safe_url
from chatbot.writer import model_slots, prose_note, sentence_mark

SECTION_IDS = ("summary", "highlights", "trends", "risks", "key-prs", "recommendations", "appendix")
"""Anchor ids of the digest page's sections, in page order (``#key-prs`` holds the sortable table,
``#appendix`` every PR with a risk tag and its reasons: the observations name at most three each)."""

_SECTION_KEYS = dict(zip(SECTION_IDS, ("h.summary", "h.highlights", "h.trends", "h.risks", "h.key_prs",
                                       "h.recommendations", "h.appendix")))
_PR_REF = re.compile(r"(?<![&\w])#(\d+)\b")


@dataclass(frozen=True)
class ChartImage:
    """A chart to embed: anchor ``id`` (``[a-z0-9-]+``), caption ``title`` (plain text), PNG bytes."""

    id: str
    title: str
    png: bytes

    def data_uri(self) -> str:
        """``data:image/png;base64,...`` of :attr:`png`."""
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


@dataclass(frozen=True)
class PageLink:
    """A link shown under the page title (other formats, the archive): visible ``label`` and ``href``
    (relative or http(s); anything else is dropped)."""

    label: str
    href: str


def _safe_href(href: str) -> str:
    if safe_url(href):
        return href
    return href if re.match(r"^[A-Za-z0-9_./#?=&%-]+$", href) and ":" not in href else ""


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("chatbot", "render/templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["signed"] = signed
    env.filters["lines"] = lambda p: lines_text(p.additions, p.deletions)
    env.filters["one_line"] = _one_line_clipped
    return env


class _Html:
    """Helpers bound to one page's language (and, for a digest page, its PR table)."""

    def __init__(self, lang: str, prs: Iterable[AnalyzedPR] = (), prose: ProseInfo | None = None) -> None:
        self.lang = lang
        self.prs = {p.number: p for p in prs}
        self.sep = tr(lang, "sep")
        self.prose = prose
        self.model_slots = model_slots(prose)

    def mark(self, slot: str) -> str:
        """The model's mark after a sentence it wrote (see :func:`chatbot.writer.sentence_mark`)."""
        return sentence_mark(self.model_slots, slot)

    def prose_note(self) -> str:
        """The provenance line of a writer run (:func:`chatbot.writer.prose_note`); empty without one."""
        return prose_note(self.lang, self.prose) if self.prose is not None else ""

    def t(self, key: str, /, **kw: Any) -> str:
        return tr(self.lang, key, **kw)

    def tm(self, key: str, /, **kw: Any) -> Markup:
        """Catalog text with Markup values inserted unescaped and every other value escaped."""
        return Markup(escape(tr(self.lang, key))).format(**kw)

    def join(self, items: Iterable[Any]) -> Markup:
        return Markup(self.sep).join(escape(x) for x in items)

    def paren(self, text: Any) -> Markup:
        return self.tm("paren.bare", text=text)

    def pr_url(self, number: int) -> str:
        p = self.prs.get(number)
        return safe_url(p.url) if p else ""

    def pr_ref(self, number: int) -> Markup:
        url = self.pr_url(number)
        if url:
            return Markup('<a class="pr" href="{}">#{}</a>').format(url, number)
        return Markup("#{}").format(number)

    def pr_refs(self, numbers: Sequence[int], limit: int = 0) -> Markup:
        shown = list(numbers[:limit] if limit else numbers)
        text = self.join(self.pr_ref(n) for n in shown)
        rest = len(numbers) - len(shown)
        if rest > 0:
            text += Markup(" ") + self.tm("card.more", n=rest)
        return text

    def linkify(self, text: str) -> Markup:
        """Escape ``text`` (collapsed to one line) and turn ``#1234`` of this digest's PRs into links."""
        escaped = str(escape(one_line(text)))

        def link(m: re.Match[str]) -> str:
            n = int(m.group(1))
            return str(self.pr_ref(n)) if n in self.prs else m.group(0)

        return Markup(_PR_REF.sub(link, escaped))

    def delta(self, d: int | float | None) -> Markup:
        """A coloured ``+2``/``-3``/``±0`` span; empty for None."""
        if d is None:
            return Markup("")
        cls = "up" if d > 0 else "down" if d < 0 else "flat"
        return Markup('<span class="delta {}">{}</span>').format(cls, signed(d))

    def vs(self, value: Any, d: int | float | None, week: str | None) -> Markup:
        """``54, +2 vs 2026-W19`` (en) / ``54（较 2026-W19 +2）`` (zh); just ``value`` without a delta."""
        if d is None or week is None:
            return Markup(escape(value))
        return self.tm("hist.vs", value=escape(value), delta=self.delta(d), week=escape(week))

    def count_vs(self, name: str, n: int, kind: str, history: WeekHistory | None, key: str | None = None) -> Markup:
        """``bugfix 54, +2 vs 2026-W19``: a keyed count with its delta against the previous week
        (``key`` is the count's id when ``name`` is a display name)."""
        prev = history.previous.week if history is not None and history.previous is not None else None
        d = history.delta(kind, key or name, n) if history is not None else None
        if d is None:
            return self.tm("paren", text=name, inner=n)
        return Markup("{} {}").format(name, self.vs(n, d, prev))

    def prev_week(self, history: WeekHistory | None) -> str | None:
        return history.previous.week if history is not None and history.previous is not None else None

    def stat_delta(self, history: WeekHistory | None, field: str, value: int | float) -> Markup:
        """Delta span of a :class:`~chatbot.history.WeekStats` field (``total_prs``, ``key_prs``,
        ``contributors``, ``avg_importance``) against the previous week; empty without one."""
        if history is None or history.previous is None:
            return Markup("")
        prev = getattr(history.previous, field)
        d = round(value - prev + 0.0, 1) if isinstance(value, float) else value - prev
        return self.delta(d)

    def stat_vs(self, history: WeekHistory | None, field: str, value: int | float) -> Markup:
        """``217, +18 vs 2026-W19`` for a WeekStats field; just the value without a previous week."""
        shown = "%.1f" % value if isinstance(value, float) else str(value)
        if history is None or history.previous is None:
            return Markup(escape(shown))
        prev = getattr(history.previous, field)
        d = round(value - prev + 0.0, 1) if isinstance(value, float) else value - prev
        return self.vs(shown, d, history.previous.week)

    def counts_vs(self, counts: dict[str, int], kind: str, history: WeekHistory | None, limit: int = 0,
                  risk_names: bool = False) -> Markup:
        """``bugfix 54, +2 vs 2026-W19; v1 75, -3 vs 2026-W19`` for the first ``limit`` entries (all when 0)."""
        items = list(counts.items())
        if limit:
            items = items[:limit]
        if not items:
            return Markup(escape(self.t("sum.none")))
        joiner = Markup(escape(self.t("sep.clause"))) if history is not None and history.previous else \
            Markup(self.sep)
        return joiner.join(self.count_vs(self.risk(k) if risk_names else k, v, kind, history, key=k)
                           for k, v in items)

    def paths(self, items: Iterable[Any]) -> Markup:
        """``<code>path</code> (n)`` for :class:`~chatbot.models.PathCount` items, joined."""
        return Markup(self.sep).join(Markup("<code>{}</code> ({})").format(x.path, x.prs) for x in items)

    def people(self, items: Iterable[Any]) -> str:
        """``hmellor 12, BugenZhao 10`` for :class:`~chatbot.models.ContributorCount` items (plain text)."""
        return self.sep.join(f"{c.login} {c.prs}" for c in items)

    def directions(self, themes: Iterable[Any]) -> Markup:
        """``Speculative decoding (7)`` per :class:`~chatbot.models.Theme`: its name and how many PRs the
        storyline holds (:attr:`~chatbot.models.Theme.total`, as the Markdown digest says; the highlights
        name its PRs), joined. It once listed three cited PRs "and 2 more" of a 10-PR storyline."""
        return Markup(self.sep).join(self.tm("paren", text=th.name, inner=th.total) for th in themes)

    def risk(self, tag: str) -> str:
        return tr(self.lang, "risk." + tag)

    def gist(self, p: AnalyzedPR) -> str:
        return shown_gist(p, self.lang)

    @staticmethod
    def names_pr(text: str, number: int) -> bool:
        """True when ``text`` names ``#number``."""
        return any(int(m.group(1)) == number for m in _PR_REF.finditer(text))

    def pct(self, share: float) -> str:
        return "%.1f%%" % (share * 100)


def _links(links: Sequence[PageLink]) -> list[PageLink]:
    return [PageLink(label=x.label, href=h) for x in links if (h := _safe_href(x.href))]


def _lang_attr(lang: str) -> str:
    return tr(lang, "lang.html")


def render_html(
    digest: DigestText,
    *,
    history: WeekHistory | None = None,
    trends: Trends | None = None,
    charts: Sequence[ChartImage] = (),
    links: Sequence[PageLink] = (),
) -> str:
    """The digest as one self-contained HTML page in ``digest.lang``.

    Args:
        digest: the week's digest.
        history: comparison with the stored weeks before (deltas, new contributors); None: no history.
        trends: the last weeks up to this one, shown as a table in the trends section.
        charts: PNG charts, embedded as ``data:`` URIs in the trends section, in the given order.
        links: links under the title (other formats of this report, the archive).

    Returns:
        The page (UTF-8 text, ``\\n`` line ends). Sections carry the anchors of :data:`SECTION_IDS`.
    """
    start = digest.start
    last_day = digest.end - timedelta(days=1)
    h = _Html(digest.lang, digest.prs, digest.prose)
    return _env().get_template("report.html.j2").render(
        d=digest, h=h, history=history, trends=trends, charts=list(charts), links=_links(links),
        html_lang=_lang_attr(digest.lang), first_day=f"{start:%Y-%m-%d}", last_day=f"{last_day:%Y-%m-%d}",
        week_label=f"{digest.week} ({start:%m-%d} – {last_day:%m-%d})",
        sections=[(sid, h.t(_SECTION_KEYS[sid])) for sid in SECTION_IDS],
    )


def render_trends_html(trends: Trends, *, lang: str = "en", charts: Sequence[ChartImage] = (),
                       links: Sequence[PageLink] = ()) -> str:
    """The trends of :func:`chatbot.history.build_trends` as one self-contained HTML page.

    Args:
        trends: weeks oldest first with deltas.
        lang: ``en`` or ``zh``.
        charts: PNG charts to embed (e.g. the PR-count trend).
        links: links under the title.
    """
    return _env().get_template("trends.html.j2").render(
        trends=trends, h=_Html(lang), charts=list(charts), links=_links(links), html_lang=_lang_attr(lang),
    )


@dataclass(frozen=True)
class ArchiveWeek:
    """One row of the archive page: ``week`` (``2026-W20``), its merged PR count and its date range label."""

    week: str
    total_prs: int
    label: str


def render_archive_html(repo: str, weeks: Sequence[ArchiveWeek], *, lang: str = "en", older: str | None = None) -> str:
    """The archive page of ``repo``: one row per week (in the order given, newest first by convention),
    each linking to ``{week}.html`` and its Markdown, PDF and JSON siblings (relative links); with
    ``older`` (an ISO week), a last link to the page of the weeks before it (``./?before=WEEK``)."""
    return _env().get_template("archive.html.j2").render(
        repo=repo, weeks=list(weeks), h=_Html(lang), html_lang=_lang_attr(lang), lang=lang, older=older,
    )


TITLE_CHARS = 300
"""Longest PR title shown in a report (GitHub caps titles at 256 characters; longer input is
clipped so that a hostile title cannot make the PDF layout crawl)."""


def _one_line_clipped(text: str) -> str:
    s = one_line(text)
    return s if len(s) <= TITLE_CHARS else s[: TITLE_CHARS - 1] + "…"
