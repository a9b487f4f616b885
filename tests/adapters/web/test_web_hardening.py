"""Issue 9, failure 7: no /static route, 404 without reflecting the name for unknown repositories
and weeks, a CSP of sha256 hashes of the page's own inline blocks (no 'unsafe-inline'), nosniff.
Real data (skipped without ../shared)."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from adapters.web import create_app
from adapters.web.app import content_security_policy
from prhub.report import StoreReports
from tests.adapters.web.test_report_pages import MemoryStore
from tests.conftest import week_prs

LONG = "x" * 65_000


@pytest.fixture(scope="module")
def client():
    return create_app(StoreReports(MemoryStore(week_prs("2026-W20"))), default_lang="en").test_client()


def test_no_static_route(client, tmp_path, monkeypatch):
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "secret.txt").write_text("do not serve")
    monkeypatch.chdir(tmp_path)
    r = client.get("/static/secret.txt")
    assert r.status_code == 404 and b"do not serve" not in r.data
    assert "static" not in {rule.endpoint for rule in client.application.url_map.iter_rules()}


@pytest.mark.parametrize("path", [f"/reports/evil-org/{LONG}/", f"/reports/evil-org/{LONG}/2026-W20.html",
                                  f"/reports/vllm-project/vllm/2026-W{LONG}", "/reports/other/repo/",
                                  "/reports/vllm-project/vllm/2026-W30.json", "/reports/vllm-project/vllm/?before=" + LONG])
def test_unknown_repositories_and_weeks_are_404_without_reflecting_the_name(client, path):
    r = client.get(path)
    assert r.status_code in (400, 404)
    assert len(r.data) < 200 and b"xxxxxxxx" not in r.data and b"other/repo" not in r.data
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_report_csp_allows_exactly_the_inline_blocks_by_hash(client):
    r = client.get("/reports/vllm-project/vllm/2026-W20.html")
    csp = r.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "nonce" not in csp and r.headers["X-Content-Type-Options"] == "nosniff"
    body = r.data
    scripts = re.findall(rb"<script>(.*?)</script>", body, re.S)
    styles = re.findall(rb"<style>(.*?)</style>", body, re.S)
    assert scripts and styles
    for block, kind in [(b, "script-src") for b in scripts] + [(b, "style-src") for b in styles]:
        h = "'sha256-" + base64.b64encode(hashlib.sha256(block).digest()).decode() + "'"
        directive = next(d for d in csp.split(";") if d.strip().startswith(kind))
        assert h in directive
    assert client.get("/reports/vllm-project/vllm/2026-W20.html").headers["Content-Security-Policy"] == csp  # deterministic
    archive = client.get("/reports/vllm-project/vllm/")
    assert archive.status_code == 200 and "unsafe-inline" not in archive.headers["Content-Security-Policy"]
    assert client.get("/reports/vllm-project/vllm/2026-W20.json").headers["Content-Security-Policy"] == "default-src 'none'"


def test_csp_of_a_page_without_inline_blocks_allows_none():
    assert "script-src 'none'" in content_security_policy(b"<p>hi</p>")
    changed = content_security_policy(b"<script>a()</script>") != content_security_policy(b"<script>b()</script>")
    assert changed  # a changed block is no longer allowed


def test_every_page_has_exactly_one_charset_in_its_content_type():
    """The app ``prhub serve`` runs (media types from the output-format registry): Flask's ``mimetype=``
    appended a second ``charset=utf-8`` to the registry's ``text/html; charset=utf-8``."""
    from prhub.report import create_reports_app

    web = create_reports_app(MemoryStore(week_prs("2026-W20"))).test_client()
    for path, expected in [("/reports/vllm-project/vllm/2026-W20.html", "text/html; charset=utf-8"),
                           ("/reports/vllm-project/vllm/2026-W20", "text/html; charset=utf-8"),
                           ("/reports/vllm-project/vllm/2026-W20.md", "text/markdown; charset=utf-8"),
                           ("/reports/vllm-project/vllm/", "text/html; charset=utf-8")]:
        r = web.get(path)
        assert r.status_code == 200 and r.headers["Content-Type"] == expected, path
