"""A third language is one catalog file: a toy Esperanto catalog in a temporary directory, named by
``PRHUB_CATALOGS`` (the one register line), is accepted by the config, the chat, the report pages
and the CLI, with no other file changed. Keys the toy catalog leaves out fall back to English."""

import os
import subprocess
import sys

import pytest

from chatbot.i18n import CATALOGS_ENV, langs, text_lang, tr
from tests.conftest import ROOT, week_prs

TOY = """\
lang.script: '[ĉĝĥĵŝŭ]'
lang.html: eo
lang.name: Esperanto
sep: ' kaj '
paren: '{text} [{inner}]'
paren.bare: '[{text}]'
card.more: kaj {n} pliaj
md.title: '{repo} semajna PR-resumo {week}'
h.summary: Resumo
h.risks: Riskoj
card.risks.header: Riskoj · {repo} {week}
"""


@pytest.fixture()
def toy(tmp_path, monkeypatch):
    """The toy catalog ``eo.yaml`` registered through the environment (returned: the environment)."""
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "eo.yaml").write_text(TOY, encoding="utf-8")
    monkeypatch.setenv(CATALOGS_ENV, str(tmp_path / "catalogs"))
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def prhub(env, *args):
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def test_the_toy_language_is_a_language(toy):
    assert langs() == ("en", "eo", "zh")
    assert tr("eo", "h.risks") == "Riskoj" and tr("eo", "h.trends") == tr("en", "h.trends")  # fallback
    assert text_lang("risks ĉi-semajne") == "eo" and text_lang("本周风险") == "zh" and text_lang("risks") == "en"


def test_config_accepts_it_and_names_it_in_the_error(toy, tmp_path):
    from chatbot.errors import InputError
    from prhub.config import load

    good = tmp_path / "prhub.yaml"
    good.write_text("chat: {default_lang: eo}\nrepositories:\n  - repo: vllm-project/vllm\n"
                    "    schedule: {weekly: \"mon 09:00\"}\n"
                    "    destinations: [{platform: slack, target: C1, lang: eo}]\n", encoding="utf-8")
    config = load(good)
    assert config.env.prhub_default_lang == "eo"
    assert config.file is not None and config.file.config.repositories[0].destinations[0].lang == "eo"
    bad = tmp_path / "bad.yaml"
    bad.write_text("chat: {default_lang: fr}\n", encoding="utf-8")
    with pytest.raises(InputError, match="chat.default_lang: Input should be 'en', 'eo' or 'zh'"):
        load(bad)


def test_chat_reads_and_answers_in_it(toy):
    from chatbot.queries import read

    assert read("risks ĉi-semajne").query.lang == "eo"
    r = prhub(toy, "ask", "--sample", "--lang", "eo", "risks")
    assert r.returncode == 0 and r.stdout.startswith("Riskoj · vllm-project/vllm 2026-W20"), r.stderr


def test_report_pages_serve_it(toy):
    from adapters.web import create_app
    from prhub.report import PrList, StoreReports

    app = create_app(StoreReports(PrList(week_prs("2026-W20"))), default_lang="eo")
    page = app.test_client().get("/reports/vllm-project/vllm/2026-W20").get_data(as_text=True)
    assert '<html lang="eo">' in page and "<h2>Resumo<a" in page
    assert 'href="2026-W20.html?lang=en">English</a>' in page and 'href="2026-W20.html?lang=zh">中文</a>' in page
    md = app.test_client().get("/reports/vllm-project/vllm/2026-W20.md?lang=eo").get_data(as_text=True)
    assert md.startswith("# vllm-project/vllm semajna PR-resumo 2026-W20")


def test_the_cli_offers_it(toy):
    r = prhub(toy, "digest", "--sample", "--lang", "eo")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# vllm-project/vllm semajna PR-resumo 2026-W20") and "## Riskoj" in r.stdout
    r = prhub(toy, "digest", "--sample", "--lang", "fr")
    assert r.returncode == 2 and "'fr' is not one of 'en', 'eo', 'zh'" in r.stderr
    r = prhub({k: v for k, v in toy.items() if k != CATALOGS_ENV}, "digest", "--sample", "--lang", "eo")
    assert r.returncode == 2  # without the register line, no toy language
