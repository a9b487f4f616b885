"""Start-up weight (issue 13): ``import prhub.cli`` loads no heavy SDK, and the Feishu HTTP path (app,
delivery, Open API client) never imports lark-oapi (its package costs ~2 s CPU and 150 MiB)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

HEAVY = ("lark_oapi", "slack_bolt", "slack_sdk", "weasyprint", "matplotlib", "github", "sqlalchemy", "openai", "flask")


def _loaded(code: str) -> list[str]:
    probe = code + f"\nimport json, sys; print(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_prhub_cli_loads_no_heavy_module():
    assert _loaded("import prhub.cli") == []


def test_the_feishu_http_path_does_not_import_lark_oapi():
    loaded = _loaded("import adapters.feishu.app, adapters.feishu.delivery, adapters.feishu.openapi")
    assert "lark_oapi" not in loaded and "flask" in loaded  # the probe sees modules that are imported


def _html_fonts(lang: str, tmp_path) -> tuple[bool, int, str]:
    """``prhub digest --sample --format html --lang LANG`` in a fresh process (the real CLI path): whether
    the chart CJK font was registered, how often fontconfig was asked, and the page."""
    out = tmp_path / f"w20.{lang}.html"
    code = ("import sys\nfrom prhub.cli import main\n"
            f"sys.argv = ['prhub', 'digest', '--sample', '--format', 'html', '--lang', {lang!r}, '--out', {str(out)!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
            "from adapters.report.charts import _CJK_FAMILY\nfrom adapters.report.fonts import _fc_list\n"
            "print(bool(_CJK_FAMILY), _fc_list.cache_info().misses)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    registered, asked = run.stdout.split()
    return registered == "True", int(asked), out.read_text(encoding="utf-8")


def test_english_html_never_looks_up_the_cjk_font_and_chinese_html_does(tmp_path):
    registered, asked, page = _html_fonts("en", tmp_path)
    assert (registered, asked) == (False, 0) and page.count('src="data:image/png;base64,') == 3
    registered, asked, page = _html_fonts("zh", tmp_path)
    assert (registered, asked) == (True, 1) and page.count('src="data:image/png;base64,') == 3
