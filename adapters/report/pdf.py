"""PDF of the full report: the HTML page printed by WeasyPrint (A4, running header, page numbers).

The page's ``@page``/``@media print`` CSS does the layout; this module only checks the CJK font,
forbids every fetch except ``data:`` URIs (the embedded charts) and returns the PDF bytes.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from adapters.report.errors import ReportError
from adapters.report.fonts import find_cjk_font

log = logging.getLogger(__name__)

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def needs_cjk(text: str) -> bool:
    """True when ``text`` holds CJK ideographs or full-width punctuation."""
    return _CJK.search(text) is not None


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
        pdf: bytes = HTML(string=html, url_fetcher=_data_only_fetcher()).write_pdf(font_config=FontConfiguration())
    except ReportError:
        raise
    except Exception as exc:
        log.exception("PDF rendering failed")
        raise ReportError(f"PDF rendering failed: {type(exc).__name__}: {exc}") from None
    return pdf
