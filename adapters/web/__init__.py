"""Report pages over HTTP: a small Flask (WSGI) app serving the weekly report archive."""

from adapters.web.app import ReportProvider, create_app

__all__ = ["ReportProvider", "create_app"]
