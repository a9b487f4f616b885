"""prhub.settings: env vars and YAML, one-line errors naming the variable, secrets never shown."""

from __future__ import annotations

import pytest

from prhub.settings import SettingsError, load_settings

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
    with pytest.raises(SettingsError, match="^SLACK_SIGNING_SECRET is not set"):
        s.require_slack()
    with pytest.raises(SettingsError, match="^FEISHU_APP_ID is not set"):
        s.require_feishu()


def test_create_app_with_half_a_platform_fails_naming_the_variable(monkeypatch, tmp_path):
    from adapters.storage import SqlStore
    from prhub.web import create_app

    monkeypatch.setenv("FEISHU_APP_ID", "cli_x")
    monkeypatch.setenv("FEISHU_APP_SECRET", "feishu-secret-value")
    monkeypatch.setenv("PRHUB_FEISHU_MODE", "http")  # HTTP callbacks need the verification token
    with SqlStore.open(f"sqlite:///{tmp_path / 'x.db'}") as store:
        with pytest.raises(SettingsError) as exc:
            create_app(load_settings(), store)
    assert exc.value.user_message.startswith("FEISHU_VERIFICATION_TOKEN is not set")
    assert "feishu-secret-value" not in exc.value.user_message


def test_yaml_file_and_env_precedence(monkeypatch, tmp_path):
    cfg = tmp_path / "prhub.yaml"
    cfg.write_text("prhub_default_repo: example-org/example-repo\nprhub_default_lang: zh\nprhub_feishu_admins: tk:ou_A,tk:ou_B\n")
    monkeypatch.setenv("PRHUB_DEFAULT_LANG", "en")
    s = load_settings(cfg)
    assert s.prhub_default_repo == "example-org/example-repo" and s.prhub_default_lang == "en"
    assert s.admins("feishu") == {"tk:ou_A", "tk:ou_B"}
    with pytest.raises(SettingsError, match="PRHUB_CONFIG"):
        load_settings(tmp_path / "missing.yaml")


def test_secret_errors_do_not_echo_the_value(monkeypatch):
    with pytest.raises(SettingsError) as exc:
        load_settings(slack_bot_token=["not", "a", "string", SECRET])
    assert SECRET not in exc.value.user_message and exc.value.user_message.startswith("SLACK_BOT_TOKEN")


@pytest.mark.parametrize("env, socket, long", [
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}, True, False),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1", "PRHUB_SLACK_MODE": "http"}, False, False),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}, False, False),
    ({"FEISHU_APP_ID": "cli_x", "FEISHU_APP_SECRET": "x"}, False, True),
    ({"FEISHU_APP_ID": "cli_x", "FEISHU_APP_SECRET": "x", "FEISHU_VERIFICATION_TOKEN": "v"}, False, False),
    ({"FEISHU_APP_ID": "cli_x", "FEISHU_APP_SECRET": "x", "FEISHU_VERIFICATION_TOKEN": "v",
      "PRHUB_FEISHU_MODE": "long"}, False, True),
])
def test_event_modes_follow_the_settings(monkeypatch, env, socket, long):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = load_settings()
    assert (s.slack_socket_mode, s.feishu_long_connection) == (socket, long)


def test_socket_mode_needs_the_app_token_not_the_signing_secret(monkeypatch):
    monkeypatch.setenv("SLACK_BOT_TOKEN", SECRET)
    monkeypatch.setenv("PRHUB_SLACK_MODE", "socket")
    with pytest.raises(SettingsError, match="^SLACK_APP_TOKEN is not set"):
        load_settings().require_slack()
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-x")
    load_settings().require_slack()  # no SLACK_SIGNING_SECRET needed


def test_bare_admin_ids_in_the_environment_are_an_error_naming_the_form(monkeypatch):
    monkeypatch.setenv("PRHUB_SLACK_ADMINS", "U_ADMIN")
    with pytest.raises(SettingsError) as e:
        load_settings()
    assert "PRHUB_SLACK_ADMINS" in str(e.value) and "T0123:U0456" in str(e.value)
