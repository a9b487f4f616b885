"""Start-up weight (issue 13): ``import prhub.cli`` loads no heavy SDK, and the Feishu HTTP path (app,
delivery, Open API client) never imports lark-oapi (its package costs ~2 s CPU and 150 MiB)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

HEAVY = ("lark_oapi", "slack_bolt", "slack_sdk", "weasyprint", "matplotlib", "github", "sqlalchemy", "openai", "flask",
         "pydantic_settings")  # pydantic-settings: 0.16 s, pulled in when a platform registered its settings eagerly


def _loaded(code: str) -> list[str]:
    probe = code + f"\nimport json, sys; print(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_prhub_cli_loads_no_heavy_module():
    assert _loaded("import prhub.cli") == []


def test_english_html_never_looks_up_the_cjk_font_and_chinese_html_does(tmp_path):
    """``prhub digest --sample --format html`` through the CLI entry point in one fresh process, English
    first: after it the chart CJK font is neither registered nor looked up (fontconfig not asked);
    the Chinese page then looks it up once."""
    code = ["import sys\nfrom prhub.cli import main\nfrom adapters.report import charts, fonts"]
    for lang in ("en", "zh"):
        out = tmp_path / f"w20.{lang}.html"
        code.append(f"sys.argv = ['prhub', 'digest', '--sample', '--format', 'html', '--lang', {lang!r}, '--out', {str(out)!r}]\n"
                    "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
                    "print(bool(charts._CJK_FAMILY), fonts._fc_list.cache_info().misses)")
    run = subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == ["False 0", "True 1"]
    for lang in ("en", "zh"):
        assert (tmp_path / f"w20.{lang}.html").read_text(encoding="utf-8").count('src="data:image/png;base64,') == 3


def test_the_served_app_with_feishu_over_http_does_not_import_lark_oapi():
    """The whole chat app (``prhub.web.create_app``: Slack and Feishu HTTP mounts, the store) as ``prhub
    serve`` builds it; the long connection alone needs lark-oapi."""
    code = ("from adapters.storage import SqlStore\nfrom prhub.clock import SYSTEM_CLOCK\nfrom prhub.config import load_settings\nfrom prhub.web import create_app\n"
            "s = load_settings(feishu_app_id='cli_x', feishu_app_secret='sec', feishu_encrypt_key='k', "
            "feishu_verification_token='t', feishu_bot_open_id='ou_BOT', feishu_api_url='http://127.0.0.1:9', "
            "slack_bot_token='xoxb-1', slack_signing_secret='s', slack_api_url='http://127.0.0.1:9/api/')\n"
            "app = create_app(s, SqlStore.open('sqlite://', clock=SYSTEM_CLOCK))\n"
            "assert sorted(app.platforms) == ['feishu', 'slack'], app.platforms\n")
    loaded = _loaded(code)
    assert "lark_oapi" not in loaded and "slack_bolt" in loaded and "flask" in loaded  # the probe sees what is imported
