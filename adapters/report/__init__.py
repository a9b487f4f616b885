"""The full report's binary outputs: charts (matplotlib, Agg, PNG) and PDF (WeasyPrint).

Both need a CJK font for Chinese text: Noto Sans CJK SC from Debian's ``fonts-noto-cjk``, found
with fontconfig (``fc-list``). matplotlib and WeasyPrint load only when these modules are imported.
"""

from adapters.report.errors import ReportError
from adapters.report.fonts import CJK_PACKAGE, find_cjk_font

__all__ = ["CJK_PACKAGE", "ReportError", "find_cjk_font"]
