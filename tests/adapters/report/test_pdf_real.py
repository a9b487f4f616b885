"""The PDF report of 2026-W20 (real data, skipped without ../shared) checked with poppler's tools,
the charts' data, and the missing-CJK-font error."""

import re
import shutil
import subprocess

import pytest

from adapters.report import ReportError, fonts
from adapters.report.charts import chart_images, label_series, module_series, trend_series
from chatbot.i18n import tr
from prhub.report import PrList, build_report, report_pdf, week_digest
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs

WEEKS = ("2026-W18", "2026-W19", "2026-W20")
needs_poppler = pytest.mark.skipif(not shutil.which("pdftotext") or not shutil.which("pdffonts"),
                                   reason="needs poppler-utils (pdftotext, pdffonts)")


@pytest.fixture(scope="module")
def lookup():
    return PrList([p for w in WEEKS for p in week_prs(w)])


@pytest.fixture(scope="module")
def zh_report(lookup, vllm_rules):
    d = week_digest(lookup, "vllm-project/vllm", IsoWeek.parse("2026-W20"), "UTC", vllm_rules, "zh")
    return build_report(d, lookup, vllm_rules)


@pytest.fixture(scope="module")
def zh_pdf(zh_report, tmp_path_factory):
    if fonts.find_cjk_font(required=False) is None:
        pytest.skip("needs fonts-noto-cjk")
    path = tmp_path_factory.mktemp("pdf") / "w20-zh.pdf"
    path.write_bytes(report_pdf(zh_report))
    return path


@needs_poppler
def test_pdf_has_every_chinese_heading_and_key_pr(zh_pdf, zh_report):
    text = subprocess.run(["pdftotext", "-layout", str(zh_pdf), "-"], capture_output=True, text=True, check=True).stdout
    for key in ("h.summary", "h.highlights", "h.trends", "h.risks", "h.key_prs", "h.recommendations"):
        assert tr("zh", key) in text
    flat = re.sub(r"\s+", "", text)
    for p in zh_report.digest.key_prs:
        assert f"#{p.number}" in flat
    assert "vllm-project/vllm 周报 2026-W20" in text  # the running header


@needs_poppler
def test_pdf_embeds_a_cjk_font_and_has_pages(zh_pdf):
    fonts_out = subprocess.run(["pdffonts", str(zh_pdf)], capture_output=True, text=True, check=True).stdout
    cjk = [ln for ln in fonts_out.splitlines() if "CJK" in ln]
    assert cjk and all(ln.split()[-5] == "yes" for ln in cjk)  # emb column
    info = subprocess.run(["pdfinfo", str(zh_pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    assert pages >= 2


def test_chart_data_is_deterministic(zh_report):
    d, trends = zh_report.digest, zh_report.trends
    assert label_series(d)[:2] == [("bugfix", 77), ("v1", 75)]
    assert module_series(d) == module_series(d) and module_series(d)[0].prs == d.module_stats[0].prs
    s = trend_series(trends)
    assert s.weeks == WEEKS and s.totals == (177, 199, 217)
    assert [c.id for c in zh_report.charts] == ["trend", "labels", "modules", "contributors"]
    assert all(c.png.startswith(b"\x89PNG") for c in zh_report.charts)


def test_missing_cjk_font_names_the_package(monkeypatch, zh_report):
    monkeypatch.setattr(fonts, "_fc_list", lambda: ())
    with pytest.raises(ReportError) as exc:
        report_pdf(zh_report)
    assert "fonts-noto-cjk" in exc.value.user_message and "\n" not in exc.value.user_message


@pytest.fixture(scope="module")
def en_pdf(lookup, vllm_rules):
    d = week_digest(lookup, "vllm-project/vllm", IsoWeek.parse("2026-W20"), "UTC", vllm_rules, "en")
    return report_pdf(build_report(d, lookup, vllm_rules))


@needs_poppler
def test_every_word_of_the_largest_week_is_inside_the_side_margins(zh_pdf, en_pdf):
    """W20 (217 PRs, the largest shipped week) in both languages: ``pdftotext -bbox`` finds no word
    left or right of the 14 mm margins. Before the print CSS let headers wrap, the trend table's
    ``documentation``/``new-model`` headers (``nowrap`` in fixed-width columns) ran 30 pt past the
    right margin."""
    from tests.goldens import words_outside_margins

    assert words_outside_margins(zh_pdf.read_bytes()) == []
    assert words_outside_margins(en_pdf) == []
