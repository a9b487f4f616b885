"""The output-format registry: every way a digest is written, in one table.

A format is a name (``prhub digest --format NAME``), the report-page suffix that serves it (None:
not a page), its media type, whether it needs the full report (history, trends, charts) and its
renderer. ``prhub digest`` and the report pages (``/reports/{owner}/{name}/{week}.{suffix}``) both
dispatch through :func:`render`. Adding a format is one renderer module plus one line in
:data:`FORMATS` (see docs/architecture.md). Renderers import their libraries when called, so that
``import prhub.cli`` stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from chatbot.errors import InputError
from prhub import platforms

if TYPE_CHECKING:
    from chatbot.models import DigestText
    from chatbot.render.html import PageLink


class LongForm(Protocol):
    """What the formats that need the full report ask of it (:class:`prhub.report.Report`): its
    page and its PDF. A protocol, so that the registry does not import the report module that
    dispatches through it."""

    def html(self, links: Sequence[PageLink] = ()) -> str:
        """The report page, with ``links`` in its header."""
        ...

    def pdf(self) -> bytes:
        """The report as PDF."""
        ...


@dataclass(frozen=True)
class Rendering:
    """What a renderer gets: the digest, the full report when the format needs one, page links."""

    digest: DigestText
    report: LongForm | None = None
    links: Sequence[PageLink] = ()


@dataclass(frozen=True)
class OutputFormat:
    """One output format (see the module docstring); ``render`` returns the bytes written."""

    name: str
    suffix: str | None
    media_type: str
    needs_report: bool
    binary: bool
    render: Callable[[Rendering], bytes]


def _markdown(r: Rendering) -> bytes:
    from chatbot.render.markdown import render_markdown

    return render_markdown(r.digest).encode("utf-8")


def _json(r: Rendering) -> bytes:
    return (r.digest.model_dump_json(indent=2) + "\n").encode("utf-8")


def _chat(platform: str) -> Callable[[Rendering], bytes]:
    def render(r: Rendering) -> bytes:
        from prhub.chat import render_digest_chat

        return render_digest_chat(r.digest, platform).encode("utf-8")

    return render


def _html(r: Rendering) -> bytes:
    assert r.report is not None
    return r.report.html(r.links).encode("utf-8")


def _pdf(r: Rendering) -> bytes:
    assert r.report is not None
    return r.report.pdf()


FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("markdown", "md", "text/markdown; charset=utf-8", needs_report=False, binary=False, render=_markdown),
    OutputFormat("json", "json", "application/json", needs_report=False, binary=False, render=_json),
    *(OutputFormat(name, None, "application/json", needs_report=False, binary=False, render=_chat(name))
      for name, p in platforms.registry().items() if p.payload is not None),  # each platform's payloads
    OutputFormat("html", "html", "text/html; charset=utf-8", needs_report=True, binary=False, render=_html),
    OutputFormat("pdf", "pdf", "application/pdf", needs_report=True, binary=True, render=_pdf),
)}
"""Every output format, by name (the CLI's order): a registered platform with a ``payload`` is the
format of its name (``prhub digest --format slack``)."""

PAGE_FORMATS: dict[str, OutputFormat] = {f.suffix: f for f in FORMATS.values() if f.suffix is not None}
"""The formats report pages serve, by URL suffix."""


def output_format(name: str) -> OutputFormat:
    """The format called ``name``.

    Raises:
        InputError: no such format (the message lists them).
    """
    fmt = FORMATS.get(name)
    if fmt is None:
        raise InputError(f"unknown format {name!r}: use {', '.join(FORMATS)}")
    return fmt


def page_format(suffix: str) -> OutputFormat:
    """The format a report page serves for URL ``suffix``.

    Raises:
        InputError: no page has that suffix.
    """
    fmt = PAGE_FORMATS.get(suffix)
    if fmt is None:
        raise InputError(f"unknown format {suffix!r}: use {', '.join(PAGE_FORMATS)}")
    return fmt
