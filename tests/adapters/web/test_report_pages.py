"""The report archive app: routes with Flask's test client, then a real headless Chromium (Debian
``chromium`` driven by Playwright, never a downloaded browser) on 127.0.0.1. Real data; skipped
without ../shared, and the browser test without /usr/bin/chromium or Playwright."""

import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from adapters.web import create_app
from chatbot.i18n import tr
from chatbot.render.html import SECTION_IDS
from prhub.report import PrList, StoreReports
from tests.conftest import ROOT, week_prs

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts"


class MemoryStore(PrList):
    """The store methods the report pages use, over real PRs in memory (one repository)."""

    def newest_merged_at(self, repo, *, before=None):
        return super().newest_merged_at(repo, before=before) if repo == "vllm-project/vllm" else None


@pytest.fixture(scope="module")
def app():
    store = MemoryStore(week_prs("2026-W19") + week_prs("2026-W20"))
    return create_app(StoreReports(store), default_lang="en")


def test_archive_lists_weeks_newest_first(app):
    r = app.test_client().get("/reports/vllm-project/vllm/")
    assert r.status_code == 200
    body = r.get_data(as_text=True)
    assert body.index('href="2026-W20.html?lang=en"') < body.index('href="2026-W19.html?lang=en"')


def test_formats_and_errors(app):
    c = app.test_client()
    page = c.get("/reports/vllm-project/vllm/2026-W20")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert c.get("/reports/vllm-project/vllm/2026-W20.html").data == page.data  # cached, same bytes
    assert c.get("/reports/vllm-project/vllm/2026-W20.md?lang=zh").get_data(as_text=True).startswith("# vllm-project/vllm 周报")
    assert c.get("/reports/vllm-project/vllm/2026-W20.json").get_json()["total_prs"] == 217
    assert c.get("/reports/vllm-project/vllm/2026-W30").status_code == 404
    assert c.get("/reports/vllm-project/vllm/2026-W99").status_code == 404
    assert c.get("/reports/vllm-project/vllm/2026-W20.exe").status_code == 404
    assert c.get("/reports/vllm-project/vllm").status_code == 308


@pytest.fixture()
def server(app):
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    thread.join(5)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium (apt-get install chromium)")
def test_report_in_a_real_browser(server, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]
    with sync_api.sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True,
                                                    args=args, viewport={"width": 1280, "height": 900})
        try:
            page = ctx.new_page()
            outside = []
            page.on("request", lambda req: outside.append(req.url) if not req.url.startswith((server, "data:")) else None)
            page.goto(f"{server}/reports/vllm-project/vllm/2026-W20?lang=zh")
            for sid, key in zip(SECTION_IDS, ("h.summary", "h.highlights", "h.trends", "h.risks", "h.key_prs", "h.recommendations")):
                heading = page.locator(f"section#{sid} > h2")
                assert heading.is_visible() and heading.inner_text().startswith(tr("zh", key))

            rows = page.locator("#key-pr-table tbody tr")
            numbers = lambda: [int(x) for x in rows.evaluate_all("rs => rs.map(r => r.dataset.pr)")]
            before = numbers()
            assert len(before) == 24
            head = page.locator("#key-pr-table th", has_text=tr("zh", "kp.pr")).first
            head.click()
            assert numbers() == sorted(before) != before
            assert head.get_attribute("aria-sort") == "ascending"
            head.click()
            assert numbers() == sorted(before, reverse=True)

            link = page.locator("#key-pr-table tbody tr a.pr").first
            href = link.get_attribute("href")
            assert href == f"https://github.com/vllm-project/vllm/pull/{numbers()[0]}"
            page.route("https://github.com/**", lambda route: route.fulfill(status=200, body="github stub"))
            link.click()
            page.wait_for_url(href)
            assert page.url == href
            page.go_back()
            page.wait_for_selector("#key-pr-table")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "report-2026-W20-zh.png"), full_page=False)
            page.locator("#charts").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "report-2026-W20-zh-charts.png"))
            assert [u for u in outside if not u.startswith("https://github.com/")] == []
        finally:
            ctx.close()


def test_pdf_bytes_are_printed_once_per_report_version(monkeypatch):
    import prhub.report as report

    calls = []
    monkeypatch.setattr(report, "report_pdf", lambda rep: calls.append(rep) or b"%PDF-fake " + rep.digest.week.encode())
    reports = StoreReports(MemoryStore(week_prs("2026-W20")))
    first = reports.render("vllm-project/vllm", "2026-W20", "en", "pdf")
    assert reports.render("vllm-project/vllm", "2026-W20", "en", "pdf") is first and len(calls) == 1
    reports.render("vllm-project/vllm", "2026-W20", "zh", "pdf")
    assert len(calls) == 2  # another language is another report
