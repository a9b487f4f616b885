"""prhub/config.py: one file, env secrets, one-line errors with FILE:LINE, the zero-config fallback,
and the repository a chat message names (chatbot/repo_mention.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from chatbot.errors import InputError
from chatbot.repo_mention import find_repo_mention
from chatbot.rules import shipped_rules
from prhub.config import load, parse_config
from tests.conftest import ROOT

GOOD = """repositories:
  - repo: example-org/example-repo
    rules: generic
    week_tz: Asia/Shanghai
    schedule: {weekly: mon 09:00}
    destinations:
      - {slack: C0123}
      - {feishu: oc_abc, lang: zh}
"""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for k in list(os.environ):
        if k.startswith(("SLACK_", "FEISHU_", "PRHUB_")):
            monkeypatch.delenv(k)


def error_of(text: str) -> str:
    with pytest.raises(InputError) as exc:
        parse_config(text, "prhub.yaml")
    assert "\n" not in exc.value.user_message
    return exc.value.user_message


def test_shorthand_destinations_expand_and_the_file_drives_the_chat_repositories(tmp_path):
    f = tmp_path / "prhub.yaml"
    f.write_text(GOOD)
    cfg = load(f)
    (repo,) = cfg.chat_repositories
    assert (repo.repo, repo.tz, repo.destinations) == ("example-org/example-repo", "Asia/Shanghai",
                                                       (("slack", "C0123"), ("feishu", "oc_abc")))
    assert repo.rules == shipped_rules("generic")  # rules: generic, a shipped name


def test_without_a_file_the_env_makes_a_one_repository_config(monkeypatch):
    monkeypatch.setenv("PRHUB_DEFAULT_REPO", "example-org/example-repo")
    monkeypatch.setenv("PRHUB_TZ", "Asia/Shanghai")
    cfg = load(None)
    assert cfg.file is None
    assert [(r.repo, r.tz, r.destinations) for r in cfg.chat_repositories] == [
        ("example-org/example-repo", "Asia/Shanghai", ())]


def test_with_a_file_the_env_repository_is_not_used(monkeypatch, tmp_path):
    f = tmp_path / "prhub.yaml"
    f.write_text(GOOD.replace("Asia/Shanghai", "UTC"))
    monkeypatch.setenv("PRHUB_DEFAULT_REPO", "vllm-project/vllm")
    monkeypatch.setenv("PRHUB_TZ", "Asia/Shanghai")
    assert [(r.repo, r.tz) for r in load(f).chat_repositories] == [("example-org/example-repo", "UTC")]


@pytest.mark.parametrize("text, expected", [
    (GOOD.replace("week_tz: Asia/Shanghai", "week_tz: Mars/Base"),
     "config prhub.yaml:4: repositories.0.week_tz: unknown time zone"),
    (GOOD.replace("    rules: generic\n", "    rulez: generic\n"),
     "config prhub.yaml:3: repositories.0.rulez: unknown key: check its spelling"),
    (GOOD.replace("{feishu: oc_abc, lang: zh}", "{discord: x1}"),
     "config prhub.yaml:8: repositories.0.destinations.1: give exactly one of"),
    (GOOD + "slack_bot_token: xoxb-secret-value\n",
     "config prhub.yaml:9: slack_bot_token: a secret does not belong in the file: remove it and export SLACK_BOT_TOKEN"),
    (GOOD + "chat: {default_lang: fr}\n", "config prhub.yaml:9: chat.default_lang: Input should be 'en' or 'zh'"),
    (GOOD + "chat: {public_urll: x}\n", "config prhub.yaml:9: chat.public_urll: unknown key"),
    (GOOD + "  - {slack: C9\n", "config prhub.yaml:10: invalid YAML"),
])
def test_config_errors_name_file_line_key_and_fix(text, expected):
    msg = error_of(text)
    assert msg.startswith(expected), msg
    assert "xoxb-secret-value" not in msg


def test_a_bad_chat_value_names_the_file_key_and_its_variable(tmp_path):
    f = tmp_path / "prhub.yaml"
    f.write_text(GOOD + "chat: {public_url: 'ftp://x'}\n")
    with pytest.raises(InputError) as exc:
        load(f)
    assert exc.value.user_message == (f"config {f}:9: chat.public_url 'ftp://x': not an http(s) URL such as "
                                      "https://prhub.example.com (or set PRHUB_PUBLIC_URL)")


def test_config_check_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("week_tz: Asia/Shanghai", "week_tz: Mars/Base"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_"))}
    env["PYTHONPATH"] = str(ROOT)
    errors = []
    for path in (bad, tmp_path / "missing.yaml"):
        r = subprocess.run([sys.executable, "-m", "prhub", "config", "check", "--config", str(path)],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith(f"prhub: error: config {path}"), r.stderr
        errors.append(r.stderr)
    assert "bad.yaml:4: repositories.0.week_tz: unknown time zone 'Mars/Base'" in errors[0]
    assert "missing.yaml: cannot read (No such file or directory): check the path" in errors[1]


C = ("vllm-project/vllm", "example-org/example-repo")
ROOTS = ("vllm", "csrc", "tests")


@pytest.mark.parametrize("text, repo, known, rest", [
    ("risks in example-org/example-repo this week", "example-org/example-repo", True, "risks this week"),
    ("RISKS FOR Example-Org/Example-Repo", "Example-Org/Example-Repo", True, "RISKS"),
    ("本周 example-org/example-repo 的风险", "example-org/example-repo", True, "本周风险"),
    ("example-org/example-repo的风险", "example-org/example-repo", True, "风险"),
    ("vllm-project/vllm 上周的风险", "vllm-project/vllm", True, "上周的风险"),
    ("vllm-project/vllm risks", "vllm-project/vllm", True, "risks"),  # a configured one, anywhere
    ("risks in vllm-project/vllm.", "vllm-project/vllm", True, "risks"),
    ("risks in foo-org/bar-repo", "foo-org/bar-repo", False, "risks"),
    ("risks in abcd/efgh", "abcd/efgh", False, "risks"),
    ("risks in foo/bar", "foo/bar", False, "risks"),  # 6 characters: long enough to be a repository
])
def test_repo_mentions(text, repo, known, rest):
    m = find_repo_mention(text, configured=C, path_roots=ROOTS)
    assert m is not None and (m.repo, m.known, m.rest) == (repo, known, rest)


@pytest.mark.parametrize("text", [
    "changes in vllm/v1",  # a top directory of the rules: a path
    "PRs touching vllm/v1/worker",  # three parts: a path
    "risks in ab/cde",  # 5 characters: a word, not a repository
    "risks in foo/bar.py", "改了 tools/setup.py 的 PR",  # a file extension: a path
    "risks in CI/CD", "risks in 2026/05", "foo-org/bar-repo risks",  # unconfigured and bare: not a mention
    "what changed in spec-decode",
])
def test_not_repo_mentions(text):
    assert find_repo_mention(text, configured=C, path_roots=ROOTS) is None


def test_the_jobs_path_names_the_file_line_of_a_bad_chat_value(tmp_path):
    """``prhub serve``/``run-job`` read the settings from the loaded file: the same FILE:LINE."""
    from prhub.bot import settings_for
    from prhub.config import load_config

    f = tmp_path / "prhub.yaml"
    f.write_text(GOOD + "chat:\n  slack_mode: socket\n  public_url: ftp://x\n")
    with pytest.raises(InputError) as exc:
        settings_for(load_config(f))
    assert exc.value.user_message.startswith(f"config {f}:11: chat.public_url 'ftp://x': not an http(s) URL")


ONE_REPO = "repositories:\n  - repo: a/b\n    source: github\n"
SCHEDULE = '    schedule: {cron: "0 9 * * mon", timezone: UTC}\n'


@pytest.mark.parametrize("body, expected", [
    (SCHEDULE + "    destinations: [{slack: C1, lang: fr}]\n",
     "repositories.0.destinations.0.lang: Input should be 'en' or 'zh'"),  # one fault, one error (no "2 more")
    ("    destinations: [{slack: C1}]\n",
     'repositories.0.schedule: Field required: add schedule: {cron: "0 9 * * mon", timezone: UTC} '
     '(or {weekly: "mon 09:00"})'),
    ("    destinations: [{slack: C1, lang: fr}]\n",  # two faults: the wrong value first, then the missing key
     "repositories.0.destinations.0.lang: Input should be 'en' or 'zh' (and 1 more error)"),
])
def test_config_errors_count_faults_not_pydantic_errors_and_say_how_to_fix(tmp_path, body, expected):
    f = tmp_path / "c.yaml"
    f.write_text(ONE_REPO + body)
    with pytest.raises(InputError) as exc:
        load(f)
    assert exc.value.user_message.split(": ", 1)[1] == expected


def test_config_check_prints_the_valid_lines_only_when_everything_passed(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(ONE_REPO + "    rules: /nope/r.yaml\n" + SCHEDULE + "    destinations: [{slack: C1}]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "PRHUB_", "GITHUB_"))}
    env.update(PYTHONPATH=str(ROOT), GITHUB_TOKEN="x", SLACK_BOT_TOKEN="xoxb-1")
    r = subprocess.run([sys.executable, "-m", "prhub", "config", "check", "--config", str(f)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert (r.returncode, r.stdout) == (2, ""), r.stdout
    assert r.stderr.startswith("prhub: error: a/b: rules: rules file /nope/r.yaml: cannot read it"), r.stderr
