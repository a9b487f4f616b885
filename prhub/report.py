"""The full report, wired: digests with history from the PR store (or input files), charts, HTML, PDF,
trends, and the report pages' provider for the web adapter.

History needs PRs of earlier weeks. They come from a *lookup*: anything with
``merged_between(repo, start, end)`` (the :class:`~chatbot.ports.PullRequestStore`, or
:class:`PrList` over the PRs of ``--input`` files).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from chatbot.digest import analysis_module_names, analysis_stats, build_digest, check_lang, input_window
from chatbot.digest_service import DigestService
from chatbot.errors import InputError
from chatbot.i18n import langs, tr
from chatbot.history import Trends, WeekHistory, WeekStats, build_trends, week_history, week_stats
from chatbot.models import DigestText, PullRequest
from chatbot.ports import FileUpload
from chatbot.render.html import ArchiveWeek, ChartImage, PageLink, render_archive_html, render_html, render_trends_html
from chatbot.render.trends import render_trends_markdown
from chatbot.rules import Rules
from chatbot.weeks import IsoWeek, load_zone

if TYPE_CHECKING:
    from chatbot.cards import Attachment
    from chatbot.queries import DigestCache

log = logging.getLogger(__name__)

ARCHIVE_WEEKS = 104
"""Weeks on one archive page (two years); older weeks are on the pages its "Older weeks" link leads to."""
CONTEXT_DAYS = 7
"""Days before a week whose PRs are read too (reverts and follow-up fixes), as ``prhub digest``."""
REPORT_TREND_WEEKS = 8
"""Weeks shown in a report's trend table and chart (ending with the report's week)."""


class PrLookup(Protocol):
    """Where history PRs and their aggregates come from (the store implements it; :class:`PrList` in memory).

    Only :meth:`merged_between` reads whole PRs, and only for the window asked; the other methods
    answer from indexed columns, so a report's cost does not grow with the stored history.
    """

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """PRs of ``repo`` merged in ``[start, end)``."""
        ...

    def any_merged_between(self, repo: str, start: datetime | None, end: datetime) -> bool:
        """Whether a PR of ``repo`` merged in ``[start, end)`` is held (``start`` None: no lower bound)."""
        ...

    def oldest_merged_at(self, repo: str) -> datetime | None:
        """The oldest ``merged_at`` held for ``repo`` (aware UTC), None when none."""
        ...

    def authors_before(self, repo: str, before: datetime, logins: Iterable[str]) -> set[str]:
        """The logins among ``logins`` with a PR merged before ``before`` by a non-bot author."""
        ...

    def merged_times(self, repo: str, start: datetime | None, end: datetime | None = None) -> list[datetime]:
        """The ``merged_at`` instants of ``repo`` in ``[start, end)`` (None: open bound), ascending."""
        ...

    def newest_merged_at(self, repo: str, *, before: datetime | None = None) -> datetime | None:
        """The newest ``merged_at`` held for ``repo`` (before ``before`` when given), None when none."""
        ...

    def window_version(self, repo: str, start: datetime, end: datetime) -> str:
        """A token that changes when a PR of ``repo`` merged in ``[start, end)`` is added or changed."""
        ...


class PrList:
    """A :class:`PrLookup` over PRs in memory (the PRs of ``--input`` files; one repository)."""

    def __init__(self, prs: Iterable[PullRequest]) -> None:
        self._prs = sorted(prs, key=lambda p: p.merged_at)

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """PRs merged in ``[start, end)`` (``repo`` is ignored: input files hold one repository)."""
        return sorted((p for p in self._prs if start <= p.merged_at < end), key=lambda p: p.number)

    def any_merged_between(self, repo: str, start: datetime | None, end: datetime) -> bool:
        """Whether a PR merged in ``[start, end)`` is held (``start`` None: no lower bound)."""
        return any((start is None or start <= p.merged_at) and p.merged_at < end for p in self._prs)

    def oldest_merged_at(self, repo: str) -> datetime | None:
        """The oldest ``merged_at`` held (None when empty)."""
        return self._prs[0].merged_at if self._prs else None

    def authors_before(self, repo: str, before: datetime, logins: Iterable[str]) -> set[str]:
        """The logins among ``logins`` with a PR merged before ``before`` by a non-bot author."""
        wanted = set(logins)
        return {p.author.login for p in self._prs
                if p.merged_at < before and p.author is not None and not _is_bot(p) and p.author.login in wanted}

    def merged_times(self, repo: str, start: datetime | None, end: datetime | None = None) -> list[datetime]:
        """The ``merged_at`` instants in ``[start, end)`` (None: open bound), ascending."""
        return [p.merged_at for p in self._prs
                if (start is None or start <= p.merged_at) and (end is None or p.merged_at < end)]

    def newest_merged_at(self, repo: str, *, before: datetime | None = None) -> datetime | None:
        """The newest ``merged_at`` held (before ``before`` when given), None when none."""
        times = self.merged_times(repo, None, before)
        return times[-1] if times else None

    def window_version(self, repo: str, start: datetime, end: datetime) -> str:
        """The PRs held in ``[start, end)`` counted (the list never changes)."""
        return str(len(self.merged_times(repo, start, end)))


def _is_bot(pr: PullRequest) -> bool:
    return pr.author is None or pr.author.is_bot or pr.author.login.endswith("[bot]")


def week_digest(lookup: PrLookup, repo: str, week: IsoWeek, tz: str, rules: Rules, lang: str,
                generated_at: datetime | None = None) -> DigestText:
    """The digest of ``week`` from ``lookup`` (the week plus :data:`CONTEXT_DAYS` days of context),
    written in ``lang``.

    Raises:
        InputError: unknown zone or language.
    """
    return lookup_service(lookup, rules, tz).written(repo, week, lang, generated_at=generated_at)


def lookup_service(lookup: PrLookup, rules: Rules | Callable[[str], Rules], tz: str, *,
                   version: Callable[[str, IsoWeek], str] | None = None, cache_size: int = 16) -> DigestService:
    """A :class:`DigestService` over ``lookup``: each week with :data:`CONTEXT_DAYS` days of context;
    ``rules`` one Rules or a function of the repository; ``version`` as :class:`DigestService`'s."""

    def prs(repo: str, week: IsoWeek) -> list[PullRequest]:
        return lookup.merged_between(repo, *input_window(week, load_zone(tz)))

    rules_for = rules if callable(rules) else (lambda _repo: rules)
    return DigestService(prs, rules_for=rules_for, tz_for=lambda _repo: tz, version=version, cache_size=cache_size)


def history_for(lookup: PrLookup, digest: DigestText, rules: Rules, *,
                known: Sequence[WeekStats] = ()) -> WeekHistory:
    """Week-over-week comparison and new contributors of ``digest`` from the PRs ``lookup`` holds.

    The previous week counts as stored when ``lookup`` has at least one PR merged in it. Whole PRs are
    read only for the previous week (plus :data:`CONTEXT_DAYS`); "anything earlier", the oldest merge
    and the authors seen before are aggregates, so the cost is flat as the stored history grows.
    ``known``: stats of weeks already analysed from the same ``lookup`` (the report's trend rows);
    the previous week's are taken from there instead of analysing it again.
    """
    zone = load_zone(digest.tz)
    week = IsoWeek.parse(digest.week)
    start, _ = week.utc_window(zone)
    previous: WeekStats | None = None
    prev = week.previous()
    pstart, pend = prev.utc_window(zone)
    stored = lookup.any_merged_between(digest.repo, pstart, pend)
    if stored:
        previous = next((st for st in known if st.week == str(prev)), None)
    if stored and previous is None:
        prev_prs = lookup.merged_between(digest.repo, pstart - timedelta(days=CONTEXT_DAYS), start)
        previous = analysis_stats(build_digest(prev_prs, repo=digest.repo, week=prev, rules=rules, tz=digest.tz).analysis)
    oldest = lookup.oldest_merged_at(digest.repo)
    history_start = IsoWeek.containing(oldest, zone) if oldest is not None and oldest < start else None
    weeks = 0
    if history_start is not None:
        weeks = (week.monday - history_start.monday).days // 7
        authors = lookup.authors_before(digest.repo, start, [c.login for c in digest.contributors])
    else:
        authors = set()
    return week_history(digest, previous=previous, earlier_authors=authors,
                        history_start=str(history_start) if history_start else None, history_weeks=weeks)


def trends_for(lookup: PrLookup, repo: str, weeks: Sequence[IsoWeek], tz: str, rules: Rules, lang: str,
               *, keep_empty: bool = False, digest: DigestText | None = None) -> Trends:
    """Trends over ``weeks`` (increasing): one query for the whole range, one analysis per week.

    ``digest``: the written digest of one of ``weeks`` in ``lang`` (a report's own week, built from the
    same PRs): its row and module names are read from it (:func:`chatbot.history.week_stats`, the same
    numbers as its analysis) instead of analysing that week a second time (~0.02 s CPU for W20's 217 PRs).

    A row's figures are read from the week's analysis (:func:`chatbot.digest.analysis_stats`: the
    numbers of its digest, without writing storylines, observations or text; the store holds no
    classification of PRs to aggregate instead).
    A week without PRs inside the stored history is an empty week (count 0); weeks before the oldest
    stored PR are left out (the store cannot tell them from weeks never imported), unless ``keep_empty``.
    """
    if not weeks:
        return build_trends(repo, [])
    zone = load_zone(tz)
    first, _ = weeks[0].utc_window(zone)
    _, last = weeks[-1].utc_window(zone)
    pool = PrList(lookup.merged_between(repo, first - timedelta(days=CONTEXT_DAYS), last))
    check_lang(lang)
    service = lookup_service(pool, rules, tz, cache_size=1)
    stats: list[WeekStats] = []
    names: dict[str, str] = {}
    own = digest.week if digest is not None and digest.repo == repo and digest.lang == lang else None
    for w in weeks:
        if digest is not None and str(w) == own:
            stats.append(week_stats(digest))
            names.update(digest.module_names)
            continue
        wa = service.analysis(repo, w)
        stats.append(analysis_stats(wa))
        names.update(analysis_module_names(wa, lang))
    lead = next((i for i, st in enumerate(stats) if st.total_prs), len(stats))
    if lead and not keep_empty:
        # leading empty weeks count only when something older is stored (a gap, not missing history)
        if not lookup.any_merged_between(repo, None, first):
            stats = stats[lead:]
    return build_trends(repo, stats, module_names=names)


def check_week_count(n: int) -> None:
    """``--weeks n`` is a count of ISO weeks from 1 to 520 (ten years).

    Raises:
        InputError: ``n`` < 1 or > 520.
    """
    if not 1 <= n <= 520:
        raise InputError(f"--weeks {n}: use a number from 1 to 520")


def trend_weeks(newest: IsoWeek, n: int) -> list[IsoWeek]:
    """The ``n`` weeks ending with ``newest``, oldest first.

    Raises:
        InputError: ``n`` < 1 or > 520.
    """
    check_week_count(n)
    weeks = [newest]
    while len(weeks) < n:
        weeks.insert(0, weeks[0].previous())
    return weeks


@dataclass(frozen=True)
class Report:
    """A digest with everything the long form shows: history, recent trends, charts."""

    digest: DigestText
    history: WeekHistory | None
    trends: Trends | None
    charts: tuple[ChartImage, ...]

    def html(self, links: Sequence[PageLink] = ()) -> str:
        """The report page (:func:`report_html`)."""
        return report_html(self, links)

    def pdf(self) -> bytes:
        """The report as PDF (:func:`report_pdf`)."""
        return report_pdf(self)


def build_report(digest: DigestText, lookup: PrLookup | None, rules: Rules, *, charts: bool = True) -> Report:
    """History and the last :data:`REPORT_TREND_WEEKS` weeks' trend from ``lookup`` (none without one),
    and the charts (matplotlib) unless ``charts`` is False."""
    history = trends = None
    if lookup is not None:
        trends = trends_for(lookup, digest.repo, trend_weeks(IsoWeek.parse(digest.week), REPORT_TREND_WEEKS),
                            digest.tz, rules, digest.lang, digest=digest)
        history = history_for(lookup, digest, rules, known=[w.stats for w in trends.weeks])  # its week once
    images: tuple[ChartImage, ...] = ()
    if charts and digest.total_prs:
        from adapters.report.charts import chart_images

        images = tuple(chart_images(digest, trends))
    return Report(digest, history, trends, images)


def report_html(report: Report, links: Sequence[PageLink] = ()) -> str:
    """The report page (see :func:`chatbot.render.html.render_html`)."""
    return render_html(report.digest, history=report.history, trends=report.trends, charts=report.charts, links=links)


def report_pdf(report: Report) -> bytes:
    """The report as PDF (WeasyPrint).

    Raises:
        adapters.report.ReportError: no CJK font for Chinese text, or rendering failed.
    """
    from adapters.report.pdf import html_to_pdf

    return html_to_pdf(report_html(report))


def report_attachment(attachment: Attachment, provider: DigestCache, rules: Rules) -> FileUpload:
    """The file an answer attaches: the full report of ``attachment.week`` in its
    language, with history from ``provider``'s PRs (:func:`report_file`: the PDF, or the
    HTML page when no CJK font can print it).

    Raises:
        InputError: a bad week.
    """
    digest = provider.digest(IsoWeek.parse(attachment.week), attachment.lang)
    return report_file(build_report(digest, PrList(provider.prs), rules))


def report_file(report: Report, *, pdf: Callable[[], bytes] | None = None) -> FileUpload:
    """The report as the file posted where no public URL links to its page: its PDF
    (``vllm-project-vllm-2026-W20-en.pdf``), or its HTML page (``….html``, charts inline) when the
    PDF cannot be printed (a ``ReportError``: no CJK font; logged in one line), titled
    ``report.file.title`` in the report's language.

    Args:
        report: the week's report.
        pdf: prints its PDF (default :meth:`Report.pdf`; :class:`StoreReports` passes its cache).
    """
    from adapters.report.errors import ReportError

    d = report.digest
    stem = f"{d.repo.replace('/', '-')}-{d.week}-{d.lang}"
    title = tr(d.lang, "report.file.title", repo=d.repo, week=d.week)
    try:
        return FileUpload(data=(pdf or report.pdf)(), filename=f"{stem}.pdf", title=title, kind="pdf")
    except ReportError as exc:
        log.warning("report %s %s (%s): no PDF (%s): the file is the HTML page", d.repo, d.week, d.lang, exc.user_message)
    return FileUpload(data=report.html().encode("utf-8"), filename=f"{stem}.html", title=title, kind="html")


def write_bytes(data: bytes, out: Path) -> None:
    """Write ``data`` to ``out`` (see :func:`prhub.output.write_file`).

    Raises:
        InputError: ``out`` cannot be written.
    """
    from prhub.output import write_file

    write_file(out, data)


def check_pdf_out(fmt: str, out: Path | None) -> None:
    """``--format pdf`` writes a binary file: ``--out`` is required.

    Raises:
        InputError: ``fmt`` is ``pdf`` and ``out`` is None.
    """
    from prhub.formats import output_format

    if output_format(fmt).binary and out is None:
        raise InputError("--format pdf writes a binary file: pass --out FILE.pdf")


def digest_report_bytes(digest: DigestText, fmt: str, *, prs: Sequence[PullRequest] | None, db: str | None,
                        from_store: bool, rules: Rules) -> bytes:
    """``prhub digest --format html|pdf``: the report of ``digest`` with history from the input PRs
    (``prs``) or, when ``from_store``, from the PR store at ``db``.

    Raises:
        InputError / adapters.storage.StoreError / adapters.report.ReportError.
    """
    from adapters.report.pdf import frozen_heap

    from prhub.formats import Rendering, output_format

    with frozen_heap():  # the input PRs are not scanned by every collection the report triggers
        if from_store:
            from prhub import bootstrap

            with bootstrap.open_store(db) as store:
                report = build_report(digest, store, rules)
        else:
            report = build_report(digest, PrList(prs or ()), rules)
        return output_format(fmt).render(Rendering(digest, report))


# -- trends ----------------------------------------------------------------------------------------

def store_trends(repo: str, *, weeks: int | None, from_week: str | None, to_week: str | None, tz: str,
                 db: str | None, rules: Rules, lang: str) -> Trends:
    """``prhub trends``: ``weeks`` weeks ending with the newest stored week (default 8), or ``from``..``to``.

    Raises:
        InputError: both ``--weeks`` and ``--from``, ``--to`` without ``--from``, the store holds no
            PRs of ``repo``, or a bad week.
        adapters.storage.StoreError: the store cannot be read.
    """
    from prhub import bootstrap

    if weeks is not None and from_week is not None:
        raise InputError("pass either --weeks N or --from W [--to W], not both")
    if to_week is not None and from_week is None:
        raise InputError("--to needs --from")
    count = 8 if weeks is None else weeks
    check_week_count(count)  # before the store is opened: an empty store must not hide a bad count
    zone = load_zone(tz)
    with bootstrap.open_store(db) as store:
        if from_week is not None:
            first = IsoWeek.parse(from_week)
            if to_week is None:
                newest = store.newest_merged_at(repo)
                last = IsoWeek.containing(newest, zone) if newest else first
            else:
                last = IsoWeek.parse(to_week)
            span = bootstrap.week_range(first, last)
        else:
            newest = store.newest_merged_at(repo)
            if newest is None:
                raise InputError(f"the PR store {store.url} holds no PRs of {repo}: run prhub import FILE... first")
            span = trend_weeks(IsoWeek.containing(newest, zone), count)
        return trends_for(store, repo, span, tz, rules, lang)


def trends_output(trends: Trends, fmt: str, lang: str) -> str:
    """Trends as ``markdown``, ``json`` (the :class:`~chatbot.history.Trends` model) or ``html`` (with a chart)."""
    if fmt == "json":
        return trends.model_dump_json(indent=2) + "\n"
    if fmt == "html":
        from adapters.report.charts import trend_chart

        return render_trends_html(trends, lang=lang, charts=trend_chart(trends, lang))
    return render_trends_markdown(trends, lang=lang)


# -- report pages (the web adapter's provider) -----------------------------------------------------

RECENT_VERSION_DAYS = 14
"""Days before the newest stored merge whose changes invalidate cached report pages: the span the sync job
and the webhook write (the previous and the current ISO week); one indexed aggregate per request."""


class StoreReports:
    """Report pages from the PR store, for :func:`adapters.web.create_app`.

    Digests are built on request and cached by (repo, week, lang, newest stored merge): importing
    newer PRs of a repository invalidates its cached weeks.
    """

    def __init__(self, store: Any, *, tz: str = "UTC", rules_file: str | None = None, cache_size: int = 32,
                 rules_for: Callable[[str], Rules] | None = None) -> None:
        self._store = store
        self._tz = tz
        self._rules_file = rules_file
        self._rules_for = rules_for
        self._cache: OrderedDict[tuple[str, ...], Report] = OrderedDict()
        self._pdfs: OrderedDict[int, tuple[Report, bytes]] = OrderedDict()  # id(report) -> PDF bytes
        self._size = cache_size
        self._lock = threading.Lock()
        self._digests = lookup_service(store, self._rules, tz, version=lambda repo, _week: self.version(repo),
                                       cache_size=cache_size)
        """One digest per repository-week (and stored version), written per language for each page."""

    def _rules(self, repo: str) -> Rules:
        if self._rules_for is not None:
            return self._rules_for(repo)
        from prhub import bootstrap

        return bootstrap.rules_for(repo, self._rules_file)

    def version(self, repo: str) -> str:
        """A token that changes when newer PRs of ``repo`` are stored (the newest ``merged_at``) or a PR
        of the :data:`RECENT_VERSION_DAYS` days before it is added or changed (the store's
        ``window_version``: the sync completing a PR the webhook stored without files); "" when none."""
        newest = self._store.newest_merged_at(repo)
        if newest is None:
            return ""
        recent = self._store.window_version(repo, newest - timedelta(days=RECENT_VERSION_DAYS),
                                            newest + timedelta(microseconds=1))
        return f"{newest.isoformat()}|{recent}"

    def weeks(self, repo: str, before: str | None = None) -> tuple[list[ArchiveWeek], str | None]:
        """Stored weeks of ``repo`` with their PR counts, newest first: the :data:`ARCHIVE_WEEKS` weeks
        ending with the newest week that has PRs (before the week ``before``, when given).

        Reads only the ``merged_at`` index of that span, so the cost does not grow with the history.

        Returns:
            ``(weeks, older)``: the rows, and the week to pass as ``before`` for the next older page
            (None when nothing older is stored).

        Raises:
            InputError: ``before`` is not an ISO week.
        """
        zone = load_zone(self._tz)
        end = IsoWeek.parse(before).utc_window(zone)[0] if before is not None else None
        last = self._store.newest_merged_at(repo) if end is None else self._store.newest_merged_at(repo, before=end)
        if last is None:
            return [], None
        top = IsoWeek.containing(last, zone)
        first = IsoWeek.containing(datetime.combine(top.monday - timedelta(weeks=ARCHIVE_WEEKS - 1),
                                                    datetime.min.time(), tzinfo=zone), zone)
        start = first.utc_window(zone)[0]
        counts: dict[IsoWeek, int] = {}
        for when in self._store.merged_times(repo, start, end):
            w = IsoWeek.containing(when, zone)
            counts[w] = counts.get(w, 0) + 1
        older = str(first) if self._store.any_merged_between(repo, None, start) else None
        return [ArchiveWeek(str(w), n, w.label()) for w, n in sorted(counts.items(), reverse=True)], older

    def report(self, repo: str, week: str, lang: str) -> Report:
        """The (cached) report of ``week``.

        Raises:
            InputError: a bad week, or no PR of ``repo`` stored in it.
        """
        iso = IsoWeek.parse(week)
        key = (repo, str(iso), lang, self.version(repo))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        rules = self._rules(repo)
        d = self._digests.written(repo, iso, lang)
        if d.total_prs == 0:
            raise InputError(f"no PRs of {repo} are stored for {iso}")
        rep = build_report(d, self._store, rules)
        with self._lock:
            self._cache[key] = rep
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return rep

    def _pdf(self, rep: Report, build: Callable[[], bytes]) -> bytes:
        """The PDF of ``rep``, printed once per cached report (a report is cached per store version, so
        the bytes are too: WeasyPrint takes seconds, a second request takes none)."""
        with self._lock:
            hit = self._pdfs.get(id(rep))
            if hit is not None and hit[0] is rep:
                self._pdfs.move_to_end(id(rep))
                return hit[1]
        data = build()
        with self._lock:
            self._pdfs[id(rep)] = (rep, data)
            while len(self._pdfs) > max(1, self._size // 4):
                self._pdfs.popitem(last=False)
        return data

    def render(self, repo: str, week: str, lang: str, fmt: str) -> bytes:
        """The report of ``week`` as ``html``, ``md``, ``pdf`` or ``json`` bytes.

        Raises:
            InputError: unknown format, bad week, nothing stored.
            adapters.report.ReportError: PDF rendering failed (e.g. no CJK font).
        """
        from prhub.formats import Rendering, page_format

        output = page_format(fmt)
        rep = self.report(repo, week, lang)
        if output.name == "pdf":
            return self._pdf(rep, lambda: output.render(Rendering(rep.digest, rep)))
        if output.name != "html":
            return output.render(Rendering(rep.digest, rep))
        w = rep.digest.week
        links = [PageLink("Markdown", f"{w}.md?lang={lang}"), PageLink("PDF", f"{w}.pdf?lang={lang}"),
                 PageLink("JSON", f"{w}.json?lang={lang}"),
                 *(PageLink(tr(other, "lang.name"), f"{w}.html?lang={other}") for other in langs() if other != lang),
                 PageLink(tr(lang, "html.archive_link"), "./")]
        return output.render(Rendering(rep.digest, rep, links))

    def file(self, repo: str, week: str, lang: str) -> FileUpload:
        """The report of ``week`` as a file to post in a chat (:func:`report_file`; the PDF from
        the same cache as the ``.pdf`` page).

        Raises:
            InputError: bad week, nothing stored.
        """
        rep = self.report(repo, week, lang)
        return report_file(rep, pdf=lambda: self._pdf(rep, rep.pdf))

    def archive(self, repo: str, lang: str, before: str | None = None) -> bytes:
        """The archive page of ``repo``: one page of :data:`ARCHIVE_WEEKS` weeks, newest first (see
        :meth:`weeks`), linking to the next older page when there is one.

        Raises:
            InputError: ``before`` is not an ISO week.
        """
        weeks, older = self.weeks(repo, before)
        return render_archive_html(repo, weeks, lang=lang, older=older).encode("utf-8")


def create_reports_app(store: Any, *, default_lang: str = "en", tz: str = "UTC",
                       rules_for: Callable[[str], Rules] | None = None) -> Any:
    """The report pages (``/reports/{owner}/{name}/...``) over an open store, for ``prhub serve``.

    ``rules_for`` maps a repository to its rules (default: the shipped rules for it).
    """
    from adapters.web import create_app

    from prhub.formats import PAGE_FORMATS

    return create_app(StoreReports(store, tz=tz, rules_for=rules_for), default_lang=default_lang,
                      mimetypes={suffix: f.media_type for suffix, f in PAGE_FORMATS.items()})
