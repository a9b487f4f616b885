"""``prhub doctor`` and ``prhub config check`` against the fakes: every token, scope, destination
channel, the database and the GitHub token; missing scopes, tokens and files are one line each with
the fix, and no secret is printed."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from adapters.slack.manifest import bot_scopes
from prhub.cli import app
from tests.conftest import shared_file
from tests.fakes.feishu_ws import FakeFeishuWs
from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_socket import FakeSlackSocket

CONFIG = """
repositories:
  - repo: vllm-project/vllm
    schedule: {weekly: "mon 09:00"}
    destinations:
      - {slack: C_DIGEST}
      - {feishu: oc_GROUP, lang: zh}
  - repo: example-org/example-repo
    rules: %(rules)s
    source: file
    path: %(path)s
    schedule: {weekly: "mon 09:30"}
    destinations:
      - {slack: C_OTHER}
"""


@pytest.fixture
def clean_env(monkeypatch):
    for k in list(os.environ):
        if k.startswith(("SLACK_", "FEISHU_", "PRHUB_", "GITHUB_")):
            monkeypatch.delenv(k)
    return monkeypatch


def _config(tmp_path, rules="generic", path=None) -> str:
    (tmp_path / "exports").mkdir(exist_ok=True)
    p = tmp_path / "prhub.yaml"
    p.write_text(CONFIG % {"rules": rules, "path": path or str(tmp_path / "exports" / "{week}.json")})
    return str(p)


def _env(slack, feishu, github, tmp_path) -> dict[str, str]:
    return {"SLACK_BOT_TOKEN": slack.token, "SLACK_APP_TOKEN": slack.app_token, "SLACK_API_URL": slack.base_url,
            "FEISHU_APP_ID": feishu.app_id, "FEISHU_APP_SECRET": feishu.app_secret, "FEISHU_API_URL": feishu.url,
            "GITHUB_TOKEN": github.token, "GITHUB_API_URL": github.base_url,
            "PRHUB_DATABASE_URL": f"sqlite:///{tmp_path / 'prhub.db'}"}


@pytest.fixture
def fakes():
    shared_file("github-schema.graphql")  # the fake GitHub's GraphQL needs GitHub's schema
    with FakeSlackSocket(scopes=frozenset(bot_scopes())) as slack, FakeFeishuWs() as feishu, FakeGitHub() as github:
        yield slack, feishu, github


def run(args, env):
    return CliRunner().invoke(app, args, env=env)


@pytest.mark.usefixtures("clean_env")
def test_doctor_all_green(tmp_path, fakes):
    slack, feishu, github = fakes
    r = run(["doctor", "--config", _config(tmp_path)], _env(slack, feishu, github, tmp_path))
    lines = r.stdout.splitlines()
    assert r.exit_code == 0, r.stdout
    assert all(line.startswith("ok  ") for line in lines), r.stdout
    whats = [line.split(":")[0][5:] for line in lines]
    assert whats == ["config", "slack token", "slack scopes", "slack socket mode", "slack channel C_DIGEST",
                     "slack channel C_OTHER", "feishu token", "feishu bot", "feishu permissions", "feishu chat oc_GROUP",
                     "database", "github"]
    assert "4,999/5,000" in lines[-1] and "UTC" in lines[-1]


@pytest.mark.usefixtures("clean_env")
def test_doctor_names_each_missing_scope_token_and_membership(tmp_path, fakes):
    slack, feishu, github = fakes
    slack.scopes = frozenset(s for s in bot_scopes() if s not in ("files:write", "commands"))
    slack.not_member.add("C_OTHER")
    feishu.bot_chats = set()
    env = _env(slack, feishu, github, tmp_path)
    env["GITHUB_TOKEN"] = "ghp_wrong_token_value"
    env["SLACK_APP_TOKEN"] = slack.token  # a bot token where the app-level token belongs
    r = run(["doctor", "--config", _config(tmp_path)], env)
    assert r.exit_code == 1
    fails = {line.split(":")[0][5:]: line for line in r.stdout.splitlines() if line.startswith("FAIL")}
    assert sorted(fails) == ["feishu chat oc_GROUP", "github", "slack channel C_OTHER", "slack scopes", "slack socket mode"]
    assert "missing commands, files:write -> add them under OAuth & Permissions" in fails["slack scopes"]
    assert "/invite @prhub" in fails["slack channel C_OTHER"]
    assert "not_allowed_token_type" in fails["slack socket mode"] and "xapp-" in fails["slack socket mode"]
    assert "Add bot" in fails["feishu chat oc_GROUP"]
    assert "401 Bad credentials" in fails["github"]
    for secret in (slack.token, feishu.app_secret, "ghp_wrong_token_value", slack.app_token):
        assert secret not in r.stdout


@pytest.mark.usefixtures("clean_env")
def test_doctor_compares_needed_and_granted_feishu_permissions(tmp_path, fakes):
    from adapters.feishu.permissions import needed_permissions

    slack, feishu, github = fakes
    feishu.granted = frozenset(needed_permissions()) - {"im:chat:readonly", "im:resource"}
    r = run(["doctor", "--config", _config(tmp_path)], _env(slack, feishu, github, tmp_path))
    assert r.exit_code == 1
    fails = {line.split(":")[0][5:]: line for line in r.stdout.splitlines() if line.startswith("FAIL")}
    assert sorted(fails) == ["feishu chat oc_GROUP", "feishu permissions"]
    assert fails["feishu permissions"] == ("FAIL feishu permissions: missing im:chat:readonly, im:resource -> add them "
                                           "under Permissions & Scopes of the app, then publish a version (an admin "
                                           "approves it)")
    # the fake refuses what Feishu refuses without the permission, and doctor names the fix
    assert "is_in_chat: 99991672 Access denied" in fails["feishu chat oc_GROUP"]
    assert "grant im:chat:readonly" in fails["feishu chat oc_GROUP"]
    feishu.granted = frozenset(needed_permissions())  # exactly the table: all green again
    ok = run(["doctor", "--config", _config(tmp_path)], _env(slack, feishu, github, tmp_path))
    assert ok.exit_code == 0 and "ok   feishu permissions: all 5 needed permissions granted" in ok.stdout


@pytest.mark.usefixtures("clean_env")
def test_doctor_slack_errors_get_their_own_fix(tmp_path, fakes):
    slack, feishu, github = fakes
    env = _env(slack, feishu, github, tmp_path)
    slack._m_conversations_info = None  # an API that does not serve conversations.info: unknown_method
    r = run(["doctor", "--config", _config(tmp_path)], env)
    line = next(x for x in r.stdout.splitlines() if x.startswith("FAIL slack channel C_DIGEST"))
    assert line == (f"FAIL slack channel C_DIGEST: conversations.info: unknown_method -> SLACK_API_URL "
                    f"({slack.base_url}) does not serve conversations.info: unset it or point it at https://slack.com/api/")
    del slack._m_conversations_info
    slack.scopes = frozenset(s for s in bot_scopes() if s != "channels:read")
    r = run(["doctor", "--config", _config(tmp_path)], env)
    line = next(x for x in r.stdout.splitlines() if x.startswith("FAIL slack channel C_DIGEST"))
    assert "missing_scope -> add channels:read under OAuth & Permissions" in line


def test_the_plain_fake_slack_serves_conversations_info():
    from slack_sdk import WebClient

    from tests.fakes.slack_server import FakeSlack

    with FakeSlack() as slack:
        slack.not_member.add("C_OTHER")
        client = WebClient(token=slack.token, base_url=slack.base_url)
        assert client.conversations_info(channel="C_DIGEST")["channel"]["is_member"] is True
        assert client.conversations_info(channel="C_OTHER")["channel"]["is_member"] is False


@pytest.mark.usefixtures("clean_env")
def test_doctor_refused_tokens(tmp_path, fakes):
    slack, feishu, github = fakes
    env = _env(slack, feishu, github, tmp_path)
    env.update(SLACK_BOT_TOKEN="xoxb-revoked", FEISHU_APP_SECRET="wrong-secret", PRHUB_DATABASE_URL="postgresql+psycopg://nobody@127.0.0.1:1/x")
    r = run(["doctor", "--config", _config(tmp_path)], env)
    assert r.exit_code == 1
    out = r.stdout
    assert "FAIL slack token: auth.test refused SLACK_BOT_TOKEN (invalid_auth) -> copy the Bot User OAuth Token" in out
    assert "FAIL feishu token: tenant token refused (10014" in out and "Credentials & Basic Info" in out
    assert "FAIL database:" in out and "PRHUB_DATABASE_URL" in out
    assert "xoxb-revoked" not in out and "wrong-secret" not in out


@pytest.mark.usefixtures("clean_env")
def test_config_check_fails_for_missing_tokens_and_files(tmp_path):
    cfg = _config(tmp_path, rules="rules/missing.yaml", path=str(tmp_path / "nowhere" / "{week}.json"))
    r = run(["config", "check", "--config", cfg], {})
    assert r.exit_code == 2
    errors = [line for line in r.stderr.splitlines() if line.startswith("prhub: error: ")]
    text = "\n".join(errors)
    assert "vllm-project/vllm: source github but GITHUB_TOKEN is not set" in text
    assert "vllm-project/vllm posts to slack:C_DIGEST but SLACK_BOT_TOKEN is not set" in text
    assert "posts to feishu:oc_GROUP but FEISHU_APP_ID and FEISHU_APP_SECRET are not set" in text
    assert "example-org/example-repo: rules:" in text and "missing.yaml" in text
    assert len(errors) == 5  # one line each (C_OTHER has its own)


@pytest.mark.usefixtures("clean_env")
def test_config_check_passes_with_tokens_and_files(tmp_path):
    env = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1", "FEISHU_APP_ID": "cli_1", "FEISHU_APP_SECRET": "s",
           "GITHUB_TOKEN": "t"}
    r = run(["config", "check", "--config", _config(tmp_path)], env)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("vllm-project/vllm: 0 9 * * mon (UTC), 2 destination(s)")


_VALID = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1", "FEISHU_APP_ID": "cli_1", "FEISHU_APP_SECRET": "s",
          "GITHUB_TOKEN": "t"}


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("change,line", [
    ({"SLACK_APP_TOKEN": None},
     "slack events: neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set, so no Slack event can arrive: export "
     "SLACK_APP_TOKEN (the app-level token xapp-... with connections:write: Socket Mode, no public URL), or "
     "SLACK_SIGNING_SECRET (HTTP mode behind a public URL)"),
    ({"SLACK_APP_TOKEN": None, "SLACK_SIGNING_SECRET": "x", "PRHUB_SLACK_MODE": "socket"},
     "slack events: PRHUB_SLACK_MODE=socket but SLACK_APP_TOKEN is not set: export SLACK_APP_TOKEN"),
    ({"PRHUB_SLACK_MODE": "http"}, "slack events: PRHUB_SLACK_MODE=http but SLACK_SIGNING_SECRET is not set: export "
                                   "SLACK_SIGNING_SECRET (HTTP mode behind a public URL), or unset PRHUB_SLACK_MODE"),
    ({"FEISHU_VERIFICATION_TOKEN": "v"},
     "feishu events: FEISHU_VERIFICATION_TOKEN selects HTTP callbacks but FEISHU_ENCRYPT_KEY is not set, so /feishu/* "
     "is not mounted and no Feishu event arrives: unset FEISHU_VERIFICATION_TOKEN for the long connection (no public "
     "URL), or set an Encrypt Key under Events & Callbacks -> Encryption Strategy and export FEISHU_ENCRYPT_KEY"),
    ({"PRHUB_FEISHU_MODE": "http"}, "feishu events: PRHUB_FEISHU_MODE=http but FEISHU_VERIFICATION_TOKEN is not set"),
])
def test_config_check_fails_where_serve_would_refuse_or_hear_nothing(tmp_path, change, line):
    """12dedfc passed each of these (exit 0) while ``serve`` refused them (Slack) or ran with
    ``/feishu/*`` not mounted (the verification token without the encrypt key)."""
    env = {k: v for k, v in {**_VALID, **change}.items() if v is not None}
    r = run(["config", "check", "--config", _config(tmp_path)], env)
    assert r.exit_code == 2, r.stdout
    errors = r.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith(f"prhub: error: {line}"), errors


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("change", [
    {},  # Socket Mode and the long connection
    {"SLACK_APP_TOKEN": None, "SLACK_SIGNING_SECRET": "x"},  # Slack HTTP mode
    {"FEISHU_VERIFICATION_TOKEN": "v", "FEISHU_ENCRYPT_KEY": "k"},  # Feishu HTTP callbacks, complete
    {"PRHUB_SLACK_MODE": "http", "SLACK_SIGNING_SECRET": "x"},
])
def test_config_check_passes_each_way_that_hears_events(tmp_path, change):
    env = {k: v for k, v in {**_VALID, **change}.items() if v is not None}
    r = run(["config", "check", "--config", _config(tmp_path)], env)
    assert r.exit_code == 0, r.stderr


@pytest.mark.usefixtures("clean_env")
def test_doctor_fails_on_slack_without_a_way_in_and_deaf_feishu(tmp_path, fakes):
    slack, feishu, github = fakes
    env = _env(slack, feishu, github, tmp_path)
    del env["SLACK_APP_TOKEN"]
    env["FEISHU_VERIFICATION_TOKEN"] = "verify-token-value"
    r = run(["doctor", "--config", _config(tmp_path)], env)
    assert r.exit_code == 1
    fails = {line.split(":")[0][5:]: line for line in r.stdout.splitlines() if line.startswith("FAIL")}
    assert sorted(fails) == ["feishu events", "slack events"]
    assert fails["slack events"].startswith("FAIL slack events: neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set")
    assert "-> export SLACK_APP_TOKEN" in fails["slack events"] and "or SLACK_SIGNING_SECRET" in fails["slack events"]
    assert "FEISHU_ENCRYPT_KEY is not set" in fails["feishu events"] and "-> unset FEISHU_VERIFICATION_TOKEN" in fails["feishu events"]
    assert "verify-token-value" not in r.stdout and slack.token not in r.stdout
