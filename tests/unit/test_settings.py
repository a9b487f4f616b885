"""prhub.config: env vars and YAML, one-line errors naming the variable, secrets never shown."""

from __future__ import annotations

import pytest

from prhub.config import SettingsError, load_settings

SECRET = "xoxb-super-secret-value"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    import os

    for k in list(os.environ):
        if k.startswith(("SLACK_", "FEISHU_", "PRHUB_")):
            monkeypatch.delenv(k)


def test_env_values_and_secrets_hidden(monkeypatch):
    monkeypatch.setenv("SLACK_BOT_TOKEN", SECRET)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "sig-secret")
    monkeypatch.setenv("PRHUB_SLACK_ADMINS", "T1:U_ADMIN, T1:U_TWO")
    monkeypatch.setenv("PRHUB_PUBLIC_URL", "https://prhub.example.com/")
    monkeypatch.setenv("PRHUB_DEFAULT_LANG", "zh")
    s = load_settings()
    assert s.slack_enabled and not s.feishu_enabled
    assert s.admins("slack") == {"T1:U_ADMIN", "T1:U_TWO"}
    assert s.prhub_public_url == "https://prhub.example.com"
    assert s.prhub_default_lang == "zh"
    assert s.secret("slack_bot_token") == SECRET
    assert SECRET not in repr(s) and SECRET not in str(s) and "sig-secret" not in repr(s)


@pytest.mark.parametrize("var,value,needle", [
    ("PRHUB_DEFAULT_LANG", "fr", "PRHUB_DEFAULT_LANG"),
    ("PRHUB_PUBLIC_URL", "ftp://x", "PRHUB_PUBLIC_URL"),
    ("PRHUB_DEFAULT_REPO", "not a repo", "PRHUB_DEFAULT_REPO"),
    ("PRHUB_TZ", "Mars/Base", "PRHUB_TZ"),
    ("PRHUB_EVENT_RETENTION_HOURS", "6", "PRHUB_EVENT_RETENTION_HOURS"),
    ("SLACK_API_URL", "not-a-url", "SLACK_API_URL"),
])
def test_invalid_values_name_the_variable_in_one_line(monkeypatch, var, value, needle):
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as exc:
        load_settings()
    assert exc.value.user_message.startswith(needle) and "\n" not in exc.value.user_message


def test_missing_settings_name_the_variable(monkeypatch):
    monkeypatch.setenv("SLACK_BOT_TOKEN", SECRET)
    s = load_settings()
    with pytest.raises(SettingsError, match="^neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set"):
        s.require_slack()
    with pytest.raises(SettingsError, match="^FEISHU_APP_ID is not set"):
        s.require_feishu()


def test_create_app_with_half_a_platform_fails_naming_the_variable(monkeypatch, tmp_path):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from prhub.web import create_app

    monkeypatch.setenv("FEISHU_APP_ID", "cli_x")
    monkeypatch.setenv("FEISHU_APP_SECRET", "feishu-secret-value")
    monkeypatch.setenv("PRHUB_FEISHU_MODE", "http")  # HTTP callbacks need the verification token
    with SqlStore.open(f"sqlite:///{tmp_path / 'x.db'}", clock=SYSTEM_CLOCK) as store:
        with pytest.raises(SettingsError) as exc:
            create_app(load_settings(), store)
    assert exc.value.user_message.startswith("PRHUB_FEISHU_MODE=http but FEISHU_VERIFICATION_TOKEN is not set")
    assert "feishu-secret-value" not in exc.value.user_message


def test_one_file_and_env_precedence(monkeypatch, tmp_path):
    """The config file's chat: keys are below their environment variables; admins add up."""
    from prhub.config import load

    cfg = tmp_path / "prhub.yaml"
    cfg.write_text("repositories:\n  - repo: example-org/example-repo\n    rules: generic\n"
                   "    schedule: {weekly: mon 09:00}\n    destinations: [{feishu: oc_x}]\n"
                   "admins: {feishu: ['tk:ou_A']}\n"
                   "chat: {default_lang: zh, public_url: 'https://file.example.com/', event_retention_hours: 9}\n")
    monkeypatch.setenv("PRHUB_DEFAULT_LANG", "en")
    monkeypatch.setenv("PRHUB_FEISHU_ADMINS", "tk:ou_B")
    s = load(cfg).env
    assert s.prhub_default_lang == "en"  # the variable wins over chat.default_lang
    assert s.prhub_public_url == "https://file.example.com" and s.prhub_event_retention_hours == 9.0
    assert s.admins("feishu") == {"tk:ou_A", "tk:ou_B"}
