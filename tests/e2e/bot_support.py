"""Helpers of the scheduled-bot end-to-end tests: configs, environments for the fake platforms."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

from tests.conftest import DATA, FIXTURES, ROOT

SLACK_SECRET = "slack-signing-secret"
FEISHU_VERIFY = "feishu-verification-token"
EXAMPLE_REPO = "example-org/example-repo"
BOTH_DESTINATIONS = "\n      - {slack: C_EX}\n      - {feishu: oc_ex, lang: zh}"
"""The ``destinations:`` value of the example repo on both platforms (Feishu in Chinese), as a block list."""


def example_config(week_dir: Path | str, schedule: str, destinations: str = BOTH_DESTINATIONS,
                   repo_keys: str = "", rest: str = "") -> str:
    """YAML text of a config with the one file-sourced example repository (``rules: generic``), its
    weeks read from ``week_dir/{week}.json``. ``schedule`` is the flow mapping after ``schedule:``,
    ``destinations`` the text after ``destinations:`` (a flow list, or a block list starting with a
    newline), ``repo_keys`` more repository lines (indented 4) before ``destinations``, ``rest`` the
    top-level lines after the repository."""
    return f"""
repositories:
  - repo: {EXAMPLE_REPO}
    rules: generic
    source: file
    path: {week_dir}/{{week}}.json
    schedule: {schedule}
{repo_keys}    destinations:{destinations}
{rest}"""


def platform_env(slack, feishu) -> dict[str, str]:
    """Environment variables pointing the real adapters at the fake Slack and Feishu."""
    return {
        "SLACK_BOT_TOKEN": slack.token, "SLACK_SIGNING_SECRET": SLACK_SECRET, "SLACK_API_URL": slack.base_url,
        "FEISHU_APP_ID": feishu.app_id, "FEISHU_APP_SECRET": feishu.app_secret,
        "FEISHU_VERIFICATION_TOKEN": FEISHU_VERIFY, "FEISHU_API_URL": feishu.url,
        "FEISHU_BOT_OPEN_ID": feishu.bot_open_id,
    }


REPORT_LINK = "https://prhub.example.com"
"""A public URL for :func:`subprocess_env`'s ``public_url``: the weekly post links to the report
instead of rendering and uploading it as a PDF (about 7 s of a 15 s ``run-job`` on the 2-core
machine; a serve SIGTERM'd while its job renders them waits for the job), for the process tests that
check deliveries, not the report file (tests/e2e/test_report_file.py covers the file)."""


def subprocess_env(slack, feishu, db_url: str, public_url: str | None = None) -> dict[str, str]:
    """The environment of a ``prhub`` child process: the real adapters pointed at the fakes, the
    store at ``db_url``, INFO logs; ``PRHUB_PUBLIC_URL`` only when ``public_url`` is given (None: the
    weekly job posts the full report as a file)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_"))}
    env.update(platform_env(slack, feishu))
    env.update({"PYTHONPATH": str(ROOT), "PRHUB_DATABASE_URL": db_url, "PRHUB_LOG_LEVEL": "INFO"})
    if public_url is not None:
        env["PRHUB_PUBLIC_URL"] = public_url
    return env


def example_week_dir(tmp: Path, weeks: list[str]) -> Path:
    """A directory with the synthetic example-repo week saved as ``{week}.json`` for each of ``weeks``
    (merge times moved into that week)."""
    from datetime import date, datetime, timedelta

    data = json.loads((FIXTURES / "example-repo-week.json").read_text())
    d = tmp / "example"
    d.mkdir(exist_ok=True)
    for week in weeks:
        year, w = int(week[:4]), int(week.split("W")[1])
        shift = date.fromisocalendar(year, w, 1) - date(2026, 5, 11)  # the fixture is 2026-W20
        moved = []
        for pr in data:
            pr = dict(pr)
            t = datetime.fromisoformat(pr["mergedAt"].replace("Z", "+00:00")) + timedelta(days=shift.days)
            pr["mergedAt"] = t.isoformat().replace("+00:00", "Z")
            moved.append(pr)
        (d / f"{week}.json").write_text(json.dumps(moved))
    return d


def vllm_github_config(channel: str, threads: int) -> str:
    """YAML text of a config with vllm-project/vllm read from GitHub, scheduled once a year (1 Jan
    09:00 UTC, so no run in a test), digests to the Slack ``channel``, no delivery reconciler, and
    the server on 127.0.0.1 with ``threads`` worker threads (the port given on the command line)."""
    return f"""
repositories:
  - repo: vllm-project/vllm
    source: github
    schedule: {{cron: "0 9 1 1 *", timezone: UTC}}
    destinations: [{{slack: {channel}}}]
delivery: {{reconcile_seconds: 0}}
server: {{host: 127.0.0.1, threads: {threads}}}
"""

def vllm_dir() -> Path | None:
    d = DATA / "vllm"
    return d if (d / "2026-W20.json").exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PYTHON = sys.executable
