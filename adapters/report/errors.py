"""Errors of the report adapter (PDF and chart rendering)."""

from __future__ import annotations

from chatbot.errors import PrhubError


class ReportError(PrhubError):
    """A report cannot be rendered: a missing font or tool, or a rendering failure (exit code 2)."""

    exit_code = 2
