"""Table cells of the printed report never split a PR number, a number, a login or a header word:
the shipped sample week through ``prhub digest --sample --format pdf``, read back by ``pdftotext``
(with and without ``-layout``), in both languages."""

import json
import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from adapters.report import fonts
from prhub.cli import app

needs_pdftotext = pytest.mark.skipif(not shutil.which("pdftotext"), reason="needs poppler-utils (pdftotext)")

ENV = {"PRHUB_DATABASE_URL": "sqlite://"}


def _digest(args: list[str]) -> str:
    r = CliRunner().invoke(app, ["digest", "--sample", *args], env=ENV, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module")
def key_prs() -> list[dict]:
    return json.loads(_digest(["--format", "json"]))["key_prs"]


@pytest.fixture(scope="module", params=["en", "zh"])
def pdf_texts(request, tmp_path_factory) -> dict[str, str]:
    """``pdftotext -layout`` and plain ``pdftotext`` of the sample week's PDF in one language."""
    if request.param == "zh" and fonts.find_cjk_font(required=False) is None:
        pytest.skip("needs fonts-noto-cjk")
    out = tmp_path_factory.mktemp("wrap") / f"sample.{request.param}.pdf"
    _digest(["--lang", request.param, "--format", "pdf", "--out", str(out)])
    return {mode: subprocess.run(["pdftotext", *flags, "-enc", "UTF-8", str(out), "-"], capture_output=True,
                                 text=True, check=True).stdout
            for mode, flags in (("layout", ["-layout"]), ("plain", []))}


@needs_pdftotext
def test_every_key_pr_number_is_printed_whole(pdf_texts, key_prs):
    """Before the print CSS kept PR numbers on one line, the 8% PR column printed ``#4194`` / ``6``."""
    for mode, text in pdf_texts.items():
        printed = set(re.findall(r"#(\d+)", text))
        missing = [p["number"] for p in key_prs if str(p["number"]) not in printed]
        assert not missing, f"{mode}: key PRs not printed whole: {missing}"


@needs_pdftotext
def test_no_pr_number_fragment_after_a_cut_number(pdf_texts, key_prs):
    """No line starting with ``#NNNN`` is followed (within the row's next lines: plain mode prints a
    row's cells one after the other) by a line starting with a lone 1-2 digit fragment that completes
    it to a key PR number."""
    numbers = {str(p["number"]) for p in key_prs}
    for mode, text in pdf_texts.items():
        lines = text.splitlines()
        for i, a in enumerate(lines):
            cut = re.match(r"\s*#(\d{3,5})(\s|$)", a)
            for b in lines[i + 1:i + 5] if cut else ():
                frag = re.match(r"\s*(\d{1,2})(\s|$)", b)
                if frag and cut.group(1) + frag.group(1) in numbers:
                    pytest.fail(f"{mode}: PR number split across lines: {a.strip()[:40]!r} / {b.strip()[:20]!r}")


@needs_pdftotext
def test_logins_and_header_words_are_not_split(pdf_texts, key_prs):
    """Each key PR's author login (a single word) and the English table headers appear whole."""
    for mode, text in pdf_texts.items():
        flat = re.sub(r"[ \t]+", " ", text)
        for login in {p["author"] for p in key_prs if " " not in p["author"]}:
            assert re.search(rf"(?<![\w-]){re.escape(login)}(?![\w-])", flat), f"{mode}: login {login} split"
        if "Key PRs" in text:
            for word in ("Importance", "documentation"):
                assert word in text, f"{mode}: header {word} split"
