"""The traps an admin met installing from the README (issue 19, "Install without a trap"), each run
the way the admin runs it: the README's environment block and the Dockerfile's run line parsed and
checked against the settings, ``prhub serve`` as a subprocess, ``prhub run-job`` of a post held for
approval against the fake Slack, and the "Connect" steps read as written."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from typer.testing import CliRunner

from prhub.cli import app
from prhub.config import load_settings
from tests.conftest import ROOT, shared_file
from tests.e2e.bot_support import PYTHON, example_config, example_week_dir
from tests.fakes.slack_server import FakeSlack

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"### {title}\n")
    nxt = README.find("\n### ", start + 1)
    return README[start:nxt if nxt > 0 else len(README)]


def readme_env_names() -> list[str]:
    """The variables the ``export`` line of "Running the bot" sets."""
    block = re.search(r"```bash\n(.*?)```", _section("Running the bot"), re.S)
    assert block
    exports = " ".join(line.removeprefix("export ") for line in block.group(1).replace("\\\n", " ").splitlines()
                       if line.startswith("export "))
    return re.findall(r"([A-Z][A-Z0-9_]+)=", exports)


def dockerfile_env_names() -> list[str]:
    """The ``-e NAME`` variables of the Dockerfile's ``docker run`` comment."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    run = text[text.index("Run: docker run"):text.index("\nFROM ")]
    return re.findall(r"-e ([A-Z][A-Z0-9_]+)", run)


@pytest.mark.parametrize("names", [readme_env_names, dockerfile_env_names], ids=["readme", "dockerfile"])
def test_the_documented_environment_is_the_socket_mode_and_long_connection_set(names):
    """Every platform the documented set configures can receive events without a public URL:
    Slack over Socket Mode, Feishu over the long connection, and ``config check``'s inbound
    checks find nothing (12dedfc: SLACK_SIGNING_SECRET and FEISHU_VERIFICATION_TOKEN without
    FEISHU_ENCRYPT_KEY, i.e. HTTP mode with /feishu/* not mounted)."""
    from prhub.checks import inbound_checks

    found = names()
    assert {"SLACK_BOT_TOKEN", "FEISHU_APP_ID", "FEISHU_APP_SECRET", "GITHUB_TOKEN"} <= set(found)
    settings = load_settings(**{n.lower(): "placeholder-value" for n in found if n != "PRHUB_DATABASE_URL"})
    assert settings.slack_socket_mode and settings.feishu_long_connection
    assert [c.line() for c in inbound_checks(settings)] == []


def _clean_env(extra: dict[str, str]) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_", "GITHUB_"))}
    env.update(extra, PYTHONPATH=str(ROOT))
    return env


def test_serve_with_only_the_bot_token_names_both_ways(tmp_path):
    """``prhub serve`` refuses Slack without app token or signing secret in one line that names
    Socket Mode (SLACK_APP_TOKEN) and HTTP mode (SLACK_SIGNING_SECRET); 12dedfc named the secret only."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text(example_config(tmp_path, '{weekly: "mon 09:00"}', " [{slack: C_EX}]"))
    env = _clean_env({"SLACK_BOT_TOKEN": "xoxb-only-this", "PRHUB_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"})
    done = subprocess.run([PYTHON, "-m", "prhub", "serve", "--config", str(cfg), "--port", "0"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("prhub: error: neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set")
    assert "SLACK_APP_TOKEN (the app-level token xapp-... with connections:write: Socket Mode" in lines[0]
    assert "SLACK_SIGNING_SECRET (HTTP mode behind a public URL)" in lines[0]
    assert "xoxb-only-this" not in done.stderr


def test_run_job_waiting_for_approval_exits_0(tmp_path):
    """A post held for the admins' approval is a normal state: exit 0 and "waiting for approval"
    (12dedfc: exit 1); the channel gets nothing, the admin the preview."""
    edir = example_week_dir(tmp_path, ["2026-W20"])
    cfg = tmp_path / "config.yaml"
    cfg.write_text(example_config(edir, '{weekly: "mon 09:00", timezone: UTC}', " [{slack: C_EX}]",
                                  repo_keys="    approval: true\n    approval_deadline: 120\n",
                                  rest="admins: {slack: [T_TEST:U_ADMIN]}\n"))
    with FakeSlack() as slack:
        env = {"SLACK_BOT_TOKEN": slack.token, "SLACK_API_URL": slack.base_url, "SLACK_APP_TOKEN": "xapp-1",
               "PRHUB_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"}
        args = ["run-job", "weekly", "--repo", "example-org/example-repo", "--config", str(cfg), "--week", "2026-W20"]
        r = CliRunner().invoke(app, args, env=env)
        again = CliRunner().invoke(app, args, env=env)  # still held: the same answer, no second preview
        assert r.exit_code == 0, r.stdout
        assert r.stdout.splitlines()[:2] == [
            "example-org/example-repo 2026-W20: awaiting_approval",
            "  waiting for approval: the admins got the preview; Approve posts it (or the approval_deadline does)"]
        assert again.exit_code == 0 and "waiting for approval" in again.stdout
        assert slack.posts_to("C_EX") == []
        assert slack.posts and {p["channel"] for p in slack.posts} != {"C_EX"}


def _steps(section: str) -> list[str]:
    """The numbered steps of a README section, each with everything indented under it."""
    steps = re.split(r"\n(?=\d+\. )", section)
    return [s for s in steps if re.match(r"\d+\. ", s)]


@pytest.mark.parametrize("title,step_commands", [
    ("Connect Slack", {1: ["prhub slack manifest > slack-manifest.yaml"],
                       4: ["cat > config.yaml", "export SLACK_BOT_TOKEN=", "prhub config check", "prhub doctor",
                           "prhub serve"]}),
    ("Connect Feishu / Lark", {3: ["cat > config.yaml", "export FEISHU_APP_ID=", "prhub serve"],
                               4: ["prhub config check", "prhub doctor"]}),
])
def test_each_connect_step_holds_its_own_command(title, step_commands):
    """Every command of "Connect Slack" / "Connect Feishu" sits in the step that needs it (12dedfc:
    one block after the last step, so step 1's manifest command came after step 4)."""
    section = _section(title)
    steps = _steps(section.split("\n\n", 1)[1])
    blocks = re.findall(r"\n( *)```bash\n", section)
    assert blocks and all(indent == "   " for indent in blocks)  # every block inside a list item
    for number, commands in step_commands.items():
        step = steps[number - 1]
        assert step.startswith(f"{number}. ")
        code = "\n".join(line.strip() for b in re.findall(r"```bash\n(.*?)```", step, re.S) for line in b.splitlines())
        for command in commands:
            assert any(line.startswith(command) for line in code.splitlines()), (number, command)
    outside = [s for s in re.findall(r"```bash\n(.*?)```", section, re.S)
               if not any(s in step for step in steps)]
    assert outside == []


def test_the_readme_says_what_full_report_needs_without_a_public_url():
    """The no-public-URL path says "Full report" needs PRHUB_PUBLIC_URL and what it must be, that the
    report then comes as a file (the weekly post's own words), and the scopes that takes; Connect
    Slack points there."""
    from chatbot.i18n import tr

    assert "(#full-report-without-a-public-url)" in _section("Connect Slack")
    text = " ".join(_section("Full report without a public URL").split())
    assert "PRHUB_PUBLIC_URL" in text and "/reports/{owner}/{name}/{week}" in text
    assert tr("en", "card.report.attached") in text and "完整报告" in text
    assert "`files:write`" in text and "`im:resource`" in text


def test_the_readme_says_the_sample_has_threads_and_the_shared_weeks_do_not():
    """The PR store section says which inputs carry PR threads, with the counts of the real files."""
    shared = json.loads(shared_file("vllm", "2026-W20.json").read_text())
    threads = json.loads(shared_file("vllm-threads", "2026-W20.json").read_text())
    sample = json.loads((ROOT / "prhub" / "data" / "2026-W20.json").read_text())
    text = " ".join(_section("The PR store and the live GitHub source").split())
    described = sum(1 for p in shared if p.get("body"))
    assert f"a description on {described} of W20's {len(shared)} PRs" in text
    assert not any(p.get("reviewThreads") or p.get("reviews") or p.get("comments") for p in shared)
    assert "`gh pr list` exports **without PR threads**" in text
    assert f"the same {len(sample)} PRs **with their threads**, {sum(1 for p in sample if p.get('body'))} descriptions" in text
    assert [p["number"] for p in sample] == [p["number"] for p in threads]
    assert sum(1 for p in sample if p.get("reviewThreads")) > 0
