"""The report archive as a WSGI app (Flask).

Routes (``{week}`` is an ISO week such as ``2026-W20``; ``?lang=en|zh`` picks the language):

- ``GET /reports/{owner}/{name}/``: the weeks stored for the repository, newest first;
- ``GET /reports/{owner}/{name}/{week}``: the report page (HTML; what chat cards' "Full report" links open);
- ``GET /reports/{owner}/{name}/{week}.{html,md,pdf,json}``: the report in that format.

Pages come from an injected :class:`ReportProvider` (``prhub/report.py`` builds digests from the PR
store); rendered bytes are cached by (repo, week, lang, format, provider version).

Hardening (issue 9, failure 7): no ``/static`` route; an unknown repository or week is a 404 whose
text never repeats the name asked for; HTML pages carry a Content-Security-Policy whose
``script-src`` and ``style-src`` are the ``'sha256-…'`` hashes of the page's inline blocks (no
nonce, so pages stay byte-for-byte deterministic); every response has ``nosniff``.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Protocol

from flask import Flask, Response, redirect, request

from chatbot.errors import InputError, PrhubError
from chatbot.i18n import lang_or
from chatbot.weeks import IsoWeek

log = logging.getLogger(__name__)

MIMETYPES: Mapping[str, str] = {"html": "text/html; charset=utf-8", "md": "text/markdown; charset=utf-8",
             "pdf": "application/pdf", "json": "application/json"}
_PART = re.compile(r"^[A-Za-z0-9_.-]+$")


class ReportProvider(Protocol):
    """What the app needs: stored weeks, rendered reports, and a version that changes with the data."""

    def version(self, repo: str) -> str:
        """A token that changes whenever the stored data of ``repo`` changes."""
        ...

    def archive(self, repo: str, lang: str, before: str | None = None) -> bytes:
        """The archive page (HTML) of ``repo``: the newest weeks, or those before the ISO week ``before``.

        Raises:
            chatbot.errors.InputError: ``before`` is not an ISO week.
        """
        ...

    def render(self, repo: str, week: str, lang: str, fmt: str) -> bytes:
        """The report of ``week`` in ``fmt`` (``html``, ``md``, ``pdf``, ``json``).

        Raises:
            chatbot.errors.InputError: nothing stored for that week, or a bad week.
            chatbot.errors.PrhubError: rendering failed.
        """
        ...


class _Cache:
    def __init__(self, size: int) -> None:
        self._data: OrderedDict[tuple[str, ...], bytes] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: tuple[str, ...]) -> bytes | None:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        return None

    def put(self, key: tuple[str, ...], value: bytes) -> None:
        with self._lock:
            self._data[key] = value
            while len(self._data) > self._size:
                self._data.popitem(last=False)


_INLINE = re.compile(rb"<(script|style)>(.*?)</\1>", re.S)
NOT_FOUND = "not found: use /reports/OWNER/NAME/ or /reports/OWNER/NAME/YYYY-Www[.html|.md|.pdf|.json]"


def content_security_policy(html: bytes) -> str:
    """The CSP of an HTML page: nothing but ``data:`` images and the page's own inline
    ``<script>``/``<style>`` blocks, allowed by their SHA-256 hashes (CSP level 2 ``'sha256-…'``)."""
    hashes: dict[str, list[str]] = {"script": [], "style": []}
    for m in _INLINE.finditer(html):
        digest = base64.b64encode(hashlib.sha256(m.group(2)).digest()).decode()
        hashes[m.group(1).decode()].append(f"'sha256-{digest}'")
    script = " ".join(dict.fromkeys(hashes["script"])) or "'none'"
    style = " ".join(dict.fromkeys(hashes["style"])) or "'none'"
    return (f"default-src 'none'; img-src data:; style-src {style}; script-src {script}; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def _text(status: int, message: str) -> Response:
    resp = Response(message + "\n", status=status, mimetype="text/plain")
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


def _page(body: bytes, fmt: str, mimetypes: Mapping[str, str] = MIMETYPES) -> Response:
    resp = Response(body, content_type=mimetypes[fmt])  # as given: mimetype= would add a second charset
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Security-Policy"] = content_security_policy(body) if fmt == "html" else "default-src 'none'"
    return resp


def create_app(provider: ReportProvider, *, default_lang: str = "en", cache_size: int = 64,
               mimetypes: Mapping[str, str] = MIMETYPES) -> Flask:
    """The Flask app serving ``provider``'s reports under ``/reports/``.

    Args:
        provider: builds pages (from the PR store in production, a fake in tests).
        default_lang: language when the request has no ``?lang=`` (``en`` or ``zh``).
        cache_size: rendered responses kept (LRU).
        mimetypes: media type of each page suffix served (prhub passes its output-format registry's).

    Returns:
        A WSGI application. Unknown repositories/weeks give 404, bad weeks or formats 404/400,
        rendering errors 503 with the error's one-line ``user_message``.
    """
    app = Flask("prhub-reports", static_folder=None)
    app.config["PROPAGATE_EXCEPTIONS"] = True  # exceptions reach prhub.guard.RequestGuard (one line, JSON 500), not an HTML page
    cache = _Cache(cache_size)

    def lang() -> str:
        value = request.args.get("lang", default_lang)
        return lang_or(value, default_lang)

    def repo_of(owner: str, name: str) -> str | None:
        return f"{owner}/{name}" if _PART.match(owner) and _PART.match(name) else None

    def cached(key: tuple[str, ...], build: Callable[[], bytes]) -> bytes:
        hit = cache.get(key)
        if hit is None:
            hit = build()
            cache.put(key, hit)
        return hit

    @app.get("/reports/<owner>/<name>")
    def repo_no_slash(owner: str, name: str) -> Response:
        return redirect(f"/reports/{owner}/{name}/", code=308)  # type: ignore[return-value]

    @app.get("/reports/<owner>/<name>/")
    def archive(owner: str, name: str) -> Response:
        repo = repo_of(owner, name)
        if repo is None or not provider.version(repo):  # nothing stored: not a repository we know
            return _text(404, NOT_FOUND)
        lg = lang()
        before = request.args.get("before") or None
        if before is not None:
            try:
                before = str(IsoWeek.parse(before))
            except InputError:
                return _text(400, "bad ?before=: use an ISO week such as 2026-W20")
        try:
            body = cached((repo, before or "", lg, "archive", provider.version(repo)),
                          lambda: provider.archive(repo, lg, before))
        except PrhubError as exc:
            return _text(503, exc.user_message)
        return _page(body, "html")

    @app.get("/reports/<owner>/<name>/<page>")
    def report(owner: str, name: str, page: str) -> Response:
        repo = repo_of(owner, name)
        week, _, fmt = page.partition(".")
        fmt = fmt or "html"
        if repo is None or fmt not in mimetypes or not provider.version(repo):
            return _text(404, NOT_FOUND)
        try:
            iso = str(IsoWeek.parse(week))
        except InputError:
            return _text(404, NOT_FOUND)
        lg = lang()
        try:
            body = cached((repo, iso, lg, fmt, provider.version(repo)), lambda: provider.render(repo, iso, lg, fmt))
        except InputError:
            return _text(404, "no report for this week")
        except PrhubError as exc:
            log.warning("report %s %s %s failed: %s", repo, iso, fmt, exc.user_message)
            return _text(503, exc.user_message)
        resp = _page(body, fmt, mimetypes)
        if fmt == "pdf":
            resp.headers["Content-Disposition"] = f'inline; filename="{repo.replace("/", "-")}-{iso}-{lg}.pdf"'
        return resp

    return app
