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
