"""PDF of the full report: the HTML page printed by WeasyPrint (A4, running header, page numbers).

The page's ``@page``/``@media print`` CSS does the layout; this module only checks the CJK font,
forbids every fetch except ``data:`` URIs (the embedded charts) and returns the PDF bytes.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from adapters.report.errors import ReportError
from adapters.report.fonts import find_cjk_font, needs_cjk

log = logging.getLogger(__name__)

PRINT_CSS = """
table{table-layout:fixed;width:100%}
td,th{overflow-wrap:anywhere;padding:4px 5px}
th{white-space:normal;overflow-wrap:normal}
td.num,a.pr,.delta,.person strong{white-space:nowrap;overflow-wrap:normal}
.person,.tag{white-space:normal}
.tag{display:inline}
table.sortable th[data-sort]::after{content:none}
table.modules th:first-child{width:46%}
table.risks th:nth-child(1){width:5%}table.risks th:nth-child(2){width:17%}
table.key-prs th:nth-child(1){width:9%}table.key-prs th:nth-child(2){width:25%}table.key-prs th:nth-child(3){width:12.5%}
table.key-prs th:nth-child(4){width:14.5%}table.key-prs th:nth-child(5){width:18.5%}
html:lang(zh) table.key-prs th:nth-child(3),html:lang(zh) table.appendix th:nth-child(3){width:8%}
table.appendix th:nth-child(1){width:9%}table.appendix th:nth-child(2){width:33%}table.appendix th:nth-child(3){width:12.5%}
table.trend{table-layout:auto}table.trend th{overflow-wrap:anywhere}
html{font-family:"Noto Sans CJK SC","Noto Sans SC",sans-serif}
html:lang(en),html:lang(en) body{font-family:"DejaVu Sans","Noto Sans","Helvetica Neue",Arial,"Noto Sans CJK SC",sans-serif}
code{font-family:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,"Noto Sans Mono CJK SC",monospace}
@page{@top-left{font-family:inherit}@bottom-center{font-family:inherit}}
"""
"""The PDF's own stylesheet, after the page's: fixed table layout with explicit column widths (issue 13:
automatic layout was 68% of WeasyPrint's time; fixed layout also keeps every table inside the page
margins). In a fixed-width cell ``overflow-wrap:anywhere`` breaks a word only when it does not fit on
a line of its own, so the widths are what keeps tokens whole: the PR column fits ``#NNNNNN``, the
importance column its English header (``Importance``; the Chinese one is narrower), the module and
author columns the longest module word and login of the six real weeks (``documentation``,
``LopezCastroRoberto``), and the title and detail columns take the rest (there a long identifier or
hash still breaks: it must, to stay in the margins). PR links, numeric cells, deltas and logins of
the new-contributor list are ``nowrap``; headers break only between words. The trend table (at most
7 rows) keeps automatic layout, which sizes its label columns to ``documentation`` or ``new-model``
and, should they not all fit, wraps a header rather than run past the margin (a ``nowrap`` header in
fixed-width columns ran 30 pt past it). Risk and label tags are inline boxes (an ``inline-block`` is
shrink-to-fit: WeasyPrint measured each tag's min- and max-content widths, a third of the print's
Pango line layouts, 8,213 -> 5,351 for W20 en; the pill keeps its colours and side padding and, as
before, may wrap) and, for English pages, a Latin font comes before the CJK one (Chinese pages keep
the page's CJK-first stack for their text): in the text and in the running header and page numbers,
whose margin boxes inherit the root's font (the page context inherits from the root element: the CJK
stack the page gives them, Latin-first in English). ``code`` (paths, module ids) is DejaVu Sans Mono
in every language, the CJK mono only a fallback for a CJK character. Each CJK face that prints a glyph
is embedded with the glyph ids of the whole font kept (a 0.5-0.8 MB subset of a 20 MB collection, read,
subset and compressed for each face): W20 en embedded three (text in the header and footer, ``code``, a
bold Chinese login) and now embeds one, the bold login's; W20 zh three (regular, bold, mono) and now
two. The HTML page itself is unchanged."""

_FROZEN = [0]  # how many frozen_heap() blocks are open (any thread)
_FROZEN_LOCK = threading.Lock()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Keep the objects that exist on entry out of the garbage collector's scans until the last open
    block exits (``gc.freeze``/``gc.unfreeze``; re-entrant, across threads).

    A report allocates millions of short-lived objects (WeasyPrint's boxes, matplotlib's artists),
    which trigger collections; each older-generation collection also walked the long-lived heap (the
    loaded PRs, the imported modules): about 0.2 s of a W20 PDF's CPU. Frozen objects are only
    skipped, never freed early; garbage among them is collected after the unfreeze."""
    with _FROZEN_LOCK:
        if _FROZEN[0] == 0:
            gc.freeze()
        _FROZEN[0] += 1
    try:
        yield
    finally:
        with _FROZEN_LOCK:
            _FROZEN[0] -= 1
            if _FROZEN[0] == 0:
                gc.unfreeze()


def with_print_css(html: str) -> str:
    """``html`` with :data:`PRINT_CSS` as the last author stylesheet (in ``@media print``, before
    ``</head>``), so it overrides the page's own rules of equal specificity; WeasyPrint's
    ``stylesheets=`` would be user-level and lose to the page's font stack."""
    style = f"<style>@media print{{{PRINT_CSS}}}</style>"
    i = html.find("</head>")
    return html[:i] + style + html[i:] if i >= 0 else style + html


def _data_only_fetcher() -> Any:
    """A WeasyPrint URL fetcher that loads ``data:`` URIs only (anything else is skipped with a warning)."""
    try:
        from weasyprint.urls import URLFetcher
    except ImportError:  # pragma: no cover - WeasyPrint < 66 takes a function
        from weasyprint import default_url_fetcher

        def fetch(url: str, *args: Any, **kwargs: Any) -> Any:
            if not url.startswith("data:"):
                raise ValueError(f"blocked {url[:80]!r}: only data: URIs are loaded")
            return default_url_fetcher(url, *args, **kwargs)

        return fetch
    return URLFetcher(allowed_protocols=("data",))


def html_to_pdf(html: str) -> bytes:
    """Print a self-contained report page (:mod:`chatbot.render.html`) to PDF.

    Args:
        html: the page; only ``data:`` URIs are loaded, anything else fails the render.

    Returns:
        The PDF document (A4; fonts embedded and subset).

    Raises:
        ReportError: the page holds Chinese text and no CJK font is installed (names ``fonts-noto-cjk``),
            WeasyPrint is missing, or rendering fails.
    """
    if needs_cjk(html):
        find_cjk_font(required=True)
    try:
        from weasyprint import HTML
        from weasyprint.text.fonts import FontConfiguration
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ReportError(f"PDF output needs WeasyPrint (pip install weasyprint): {exc}") from None
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        with frozen_heap():
            pdf: bytes = HTML(string=with_print_css(html), url_fetcher=_data_only_fetcher()).write_pdf(
                font_config=FontConfiguration())
    except ReportError:
        raise
    except Exception as exc:
        log.exception("PDF rendering failed")
        raise ReportError(f"PDF rendering failed: {type(exc).__name__}: {exc}") from None
    return pdf
