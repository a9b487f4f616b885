"""Charts of a digest (and of its recent weeks) as PNG images: matplotlib's ``Figure`` on an Agg canvas
(no pyplot: no figure manager, no backend switch).

The data behind every chart comes from the pure ``*_series`` functions (deterministic: same digest,
same lists); :func:`chart_images` draws them. A chart's PNG is cached in the process by a hash of
what it is drawn from (its series, its texts, the font chosen and :data:`CHART_VERSION`), so a report
page, its PDF and the chat chart of the same week draw each chart once. Chinese charts (and charts whose labels hold Chinese
text) use Noto Sans CJK SC, registered with matplotlib from the file fontconfig reports the first time
one is drawn; English charts use DejaVu Sans and never look the CJK font up. PNG bytes are
written without a timestamp, but need not be identical across matplotlib or FreeType versions.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chatbot.history import Trends
from chatbot.i18n import tr
from chatbot.models import DigestText
from chatbot.render.html import ChartImage

from adapters.report.fonts import find_cjk_font, needs_cjk

PALETTE = ("#0969da", "#1a7f37", "#bf8700", "#cf222e", "#8250df", "#1b7c83", "#bc4c00", "#57606a")
_LOCK = threading.Lock()  # the font rcParams are global: draw one chart at a time
_CJK_FAMILY: list[str] = []  # the registered CJK family ("" when none is installed), once looked up
DPI = 120
"""Pixels per inch of the PNGs, and of the figures' layout (measured and drawn at one resolution)."""
PNG_COMPRESS_LEVEL = 1
"""zlib level of the PNGs: 1 encodes W20's four charts in ~18 ms CPU instead of ~25 ms at Pillow's
default 6, for ~7% more bytes (~125 KB in all); the PDF's copy is re-encoded by WeasyPrint anyway."""
CHART_VERSION = "3"
"""Part of every cache key: bump it when a change to the drawing code changes the PNGs."""
CACHE_SIZE = 64
"""PNGs kept in the process cache (least recently used dropped first; ~30 KB each)."""
_CACHE: OrderedDict[str, bytes] = OrderedDict()


@dataclass(frozen=True)
class ModulePoint:
    """One module bar: display ``name``, ``prs`` and ``churn`` (added + deleted lines)."""

    name: str
    prs: int
    churn: int


@dataclass(frozen=True)
class TrendSeries:
    """Weeks (oldest first), the merged-PR count per week and, per top label, its count per week."""

    weeks: tuple[str, ...]
    totals: tuple[int, ...]
    labels: tuple[tuple[str, tuple[int, ...]], ...]


def label_series(digest: DigestText, limit: int = 12) -> list[tuple[str, int]]:
    """The ``limit`` most frequent labels with their PR counts (digest order: count desc, then name)."""
    return list(digest.label_counts.items())[:limit]


def module_series(digest: DigestText, limit: int = 10) -> list[ModulePoint]:
    """The ``limit`` most active modules (digest order), with PR counts and churn in lines."""
    return [ModulePoint(s.name, s.prs, s.additions + s.deletions) for s in digest.module_stats[:limit]]


def contributor_series(digest: DigestText, limit: int = 10) -> list[tuple[str, int]]:
    """The ``limit`` most active human authors with their PR counts (digest order)."""
    return [(c.login, c.prs) for c in digest.contributors[:limit]]


def trend_series(trends: Trends, labels: int = 4) -> TrendSeries:
    """Merged PRs per week and the counts of the ``labels`` top labels of ``trends`` (oldest first)."""
    weeks = tuple(w.stats.week for w in trends.weeks)
    totals = tuple(w.stats.total_prs for w in trends.weeks)
    series = tuple((lb, tuple(w.stats.label_counts.get(lb, 0) for w in trends.weeks)) for lb in trends.top_labels[:labels])
    return TrendSeries(weeks, totals, series)


def _setup(cjk: bool) -> str:
    """Set the chart font and return its family ("" for DejaVu Sans alone): DejaVu Sans, with the CJK
    font first only when ``cjk`` (a Chinese chart, or Chinese text in its labels). The CJK font files
    are looked up (``fc-list``) and registered with matplotlib the first time a chart needs them, so
    English charts never pay for them (issue 13). Call with ``_LOCK`` held."""
    from matplotlib import font_manager, rcParams

    if cjk and not _CJK_FAMILY:
        font = find_cjk_font(required=False)
        if font is not None:
            for f in font.files:
                font_manager.fontManager.addfont(f)
        _CJK_FAMILY.append(font.family if font else "")
    family = _CJK_FAMILY[0] if cjk and _CJK_FAMILY else ""
    rcParams["font.family"] = ["sans-serif"]
    rcParams["font.sans-serif"] = ([family] if family else []) + ["DejaVu Sans"]
    rcParams["axes.unicode_minus"] = False
    rcParams["svg.hashsalt"] = "prhub"
    return family


def _figure(**kw: Any) -> Any:
    """A matplotlib ``Figure`` on its own Agg canvas (``kw``: ``figsize`` and the like), outside pyplot:
    nothing to close, no figure manager."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(dpi=DPI, **kw)  # tight_layout measures the text with the renderer that then draws it
    FigureCanvasAgg(fig)
    return fig


def _cached(family: str, kind: str, data: object, draw: Callable[[], bytes]) -> bytes:
    """The PNG of chart ``kind`` drawn from ``data`` (its series and texts, a repr-stable value) with
    font ``family``: from the process cache, else ``draw()`` (then kept; at most :data:`CACHE_SIZE`).
    Call with ``_LOCK`` held."""
    key = hashlib.sha256(repr((CHART_VERSION, DPI, family, kind, data)).encode("utf-8")).hexdigest()
    png = _CACHE.get(key)
    if png is not None:
        _CACHE.move_to_end(key)
        return png
    png = draw()
    _CACHE[key] = png
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return png


def _wants_cjk(lang: str, *texts: str) -> bool:
    """Whether a chart in ``lang`` with these label ``texts`` needs the CJK font: its catalog's chart
    titles or any label hold CJK characters (no language is named here)."""
    return any(needs_cjk(t) for t in (tr(lang, "chart.labels"), tr(lang, "chart.modules"), *texts))


def _png(fig: object) -> bytes:
    """The PNG of ``fig`` (laid out by ``tight_layout``): drawn once at :data:`DPI`, opaque RGB.

    ``fig.tight_layout()`` leaves a placeholder layout engine on the figure, and ``savefig`` would
    draw a figure with any engine once more before the real draw: the engine is dropped and the
    canvas drawn once. The figure is opaque white, so its alpha channel is dropped: fewer bytes to
    encode here and no soft mask for WeasyPrint to split off and encode again. No timestamp and no
    software tag (deterministic); the resolution (pHYs) is :data:`DPI`."""
    import numpy as np
    from PIL import Image

    fig.set_layout_engine(None)  # type: ignore[attr-defined]
    canvas = fig.canvas  # type: ignore[attr-defined]
    canvas.draw()
    rgb = np.ascontiguousarray(np.asarray(canvas.buffer_rgba())[..., :3])
    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL, dpi=(DPI, DPI))
    return buf.getvalue()


def _style(ax: object) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)  # type: ignore[attr-defined]
    ax.tick_params(labelsize=8)  # type: ignore[attr-defined]


TICK_CHARS = 32
"""Characters of a bar's tick label (a label, module or login) drawn before an ellipsis: longer ones made
matplotlib's tight layout give up ("Tight layout not applied", a warning in the serve log)."""


def _tick(name: str) -> str:
    return name if len(name) <= TICK_CHARS else name[: TICK_CHARS - 1] + "…"


def _top(values: Sequence[float]) -> float:
    """The axis maximum of bars of ``values``: their largest, 1 when all are 0 (or none) — equal limits
    make matplotlib warn ("Attempting to set identical low and high xlims")."""
    return max([*values, 0]) or 1


def _hbar(items: Sequence[tuple[str, int]], title: str, color: str) -> bytes:
    names = [_tick(n) for n, _ in items][::-1]
    values = [v for _, v in items][::-1]
    fig = _figure(figsize=(6.4, 0.3 * max(len(items), 3) + 0.9))
    ax = fig.subplots()
    bars = ax.barh(range(len(names)), values, color=color, tick_label=names)  # two equal ticks stay two bars
    ax.bar_label(bars, padding=2, fontsize=7)
    ax.set_title(title, fontsize=10, loc="left")
    ax.set_xlim(0, _top(values) * 1.12)
    _style(ax)
    fig.tight_layout()
    return _png(fig)


def _modules(points: Sequence[ModulePoint], title: str, prs_title: str, churn_title: str) -> bytes:
    names = [_tick(p.name) for p in points][::-1]
    fig = _figure(figsize=(6.4, 0.3 * max(len(points), 3) + 1.0))
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    b1 = ax1.barh(range(len(names)), [p.prs for p in points][::-1], color=PALETTE[0], tick_label=names)
    ax1.bar_label(b1, padding=2, fontsize=7)
    ax1.set_title(prs_title, fontsize=9, loc="left")
    ax1.set_xlim(0, _top([p.prs for p in points]) * 1.18)
    b2 = ax2.barh(range(len(names)), [p.churn / 1000 for p in points][::-1], color=PALETTE[2])
    ax2.bar_label(b2, labels=[f"{p.churn / 1000:.1f}" for p in points][::-1], padding=2, fontsize=7)
    ax2.set_title(churn_title, fontsize=9, loc="left")
    ax2.set_xlim(0, _top([p.churn / 1000 for p in points]) * 1.2)
    for ax in (ax1, ax2):
        _style(ax)
    fig.suptitle(title, fontsize=10, x=0.02, ha="left")
    fig.tight_layout()
    return _png(fig)


def _trend(series: TrendSeries, title: str, total: str) -> bytes:
    x = list(range(len(series.weeks)))
    short = [w[2:] if len(w) > 4 else w for w in series.weeks]  # 26-W20
    fig = _figure(figsize=(6.4, 3.2))
    ax = fig.subplots()
    bars = ax.bar(x, series.totals, color="#d0e4fb", label=total)
    ax.bar_label(bars, padding=1, fontsize=7)
    for i, (name, values) in enumerate(series.labels):
        ax.plot(x, values, marker="o", markersize=3, linewidth=1.5, color=PALETTE[(i + 1) % len(PALETTE)],
                label=_tick(name))
    ax.set_xticks(x, short)
    ax.set_ylim(0, _top(series.totals) * 1.15)
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(fontsize=7, frameon=False, ncol=min(5, len(series.labels) + 1), loc="upper left",
              bbox_to_anchor=(0, -0.1))
    _style(ax)
    fig.tight_layout()
    return _png(fig)


def _hbar_chart(family: str, items: Sequence[tuple[str, int]], title: str, color: str) -> bytes:
    """:func:`_hbar`'s PNG through the cache (call with ``_LOCK`` held)."""
    return _cached(family, "hbar", (tuple(items), title, color), lambda: _hbar(items, title, color))


def _modules_chart(family: str, points: Sequence[ModulePoint], lang: str) -> bytes:
    """:func:`_modules`' PNG in ``lang`` through the cache (call with ``_LOCK`` held)."""
    texts = (tr(lang, "chart.modules"), tr(lang, "chart.modules.prs"), tr(lang, "chart.modules.churn"))
    return _cached(family, "modules", (tuple(points), texts), lambda: _modules(points, *texts))


def _trend_chart(family: str, series: TrendSeries, lang: str) -> ChartImage:
    """The trend chart in ``lang`` (its PNG through the cache; call with ``_LOCK`` held)."""
    title = tr(lang, "chart.trend", n=len(series.weeks))
    total = tr(lang, "chart.trend.total")
    return ChartImage("trend", title, _cached(family, "trend", (series, title, total), lambda: _trend(series, title, total)))


def chart_images(digest: DigestText, trends: Trends | None = None) -> list[ChartImage]:
    """The charts of ``digest`` in ``digest.lang``: the last weeks' trend (when ``trends`` holds two or
    more weeks), label distribution, module activity (PRs and churn) and top contributors.

    Returns:
        PNG charts in display order (empty charts are left out; an empty week gives []).
    """
    lang = digest.lang
    out: list[ChartImage] = []
    labels, modules, people = label_series(digest), module_series(digest), contributor_series(digest)
    series = trend_series(trends) if trends is not None and len(trends.weeks) >= 2 else None
    texts = [n for n, _ in labels] + [m.name for m in modules] + [n for n, _ in people]
    texts += [n for n, _ in series.labels] if series is not None else []
    with _LOCK:
        family = _setup(_wants_cjk(lang, *texts))
        if series is not None:
            out.append(_trend_chart(family, series, lang))
        if labels:
            out.append(ChartImage("labels", tr(lang, "chart.labels"),
                                  _hbar_chart(family, labels, tr(lang, "chart.labels"), PALETTE[0])))
        if modules:
            out.append(ChartImage("modules", tr(lang, "chart.modules"), _modules_chart(family, modules, lang)))
        if people:
            out.append(ChartImage("contributors", tr(lang, "chart.contributors"),
                                  _hbar_chart(family, people, tr(lang, "chart.contributors"), PALETTE[1])))
    return out


def main_chart(digest: DigestText) -> ChartImage | None:
    """The one chart posted with the weekly chat digest, in ``digest.lang``: the label distribution,
    or module activity when no PR has a label; None for a week without PRs."""
    lang = digest.lang
    labels, modules = label_series(digest), module_series(digest)
    with _LOCK:
        family = _setup(_wants_cjk(lang, *(n for n, _ in labels), *(m.name for m in modules)))
        if labels:
            return ChartImage("labels", tr(lang, "chart.labels"),
                              _hbar_chart(family, labels, tr(lang, "chart.labels"), PALETTE[0]))
        if modules:
            return ChartImage("modules", tr(lang, "chart.modules"), _modules_chart(family, modules, lang))
    return None


def trend_chart(trends: Trends, lang: str) -> list[ChartImage]:
    """The trend chart alone (for the trends page); [] with fewer than two weeks."""
    if len(trends.weeks) < 2:
        return []
    series = trend_series(trends)
    with _LOCK:
        return [_trend_chart(_setup(_wants_cjk(lang, *(n for n, _ in series.labels))), series, lang)]
