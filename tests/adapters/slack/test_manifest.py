"""The Slack method/scope table and the manifest made from it: every WebClient method the code names
is in the table; the real code paths, run against a fake Slack that grants exactly the manifest's
scopes (and answers ``missing_scope`` like Slack otherwise), never miss a scope; the manifest is
valid YAML with Socket Mode on or off."""

from __future__ import annotations

import ast
import inspect
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from slack_sdk import WebClient

from adapters.slack.delivery import SlackDelivery
from adapters.slack.manifest import BOT_EVENTS, SLACK_METHODS, app_token_scopes, bot_scopes, manifest, manifest_yaml
from chatbot.ports import Destination, FileUpload
from tests.conftest import ROOT
from tests.fakes.slack_socket import FakeSlackSocket

IMPLICIT = {"auth.test": "slack_bolt.App checks the token at start", "apps.connections.open": "SocketModeHandler"}
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def api_methods(sdk_name: str, seen: set[str] | None = None) -> set[str]:
    """The Slack API methods a WebClient method calls (its ``api_call("x.y")``, helpers followed)."""
    seen = seen if seen is not None else set()
    if sdk_name in seen:
        return set()
    seen.add(sdk_name)
    src = inspect.getsource(getattr(WebClient, sdk_name))
    out = set(re.findall(r'api_call\(\s*"([a-zA-Z.]+)"', src))
    for helper in re.findall(r"self\.([a-z]+_[A-Za-z0-9_]+)\(", src):
        if helper != sdk_name and hasattr(WebClient, helper) and callable(getattr(WebClient, helper)):
            out |= api_methods(helper, seen)
    return out


def webclient_names_in_code() -> set[str]:
    """Every WebClient API method our code names (called or passed on), in adapters/ and prhub/."""
    names: set[str] = set()
    api = {n for n in dir(WebClient) if re.match(r"^[a-z]+_[A-Za-z0-9_]+$", n) and callable(getattr(WebClient, n))
           and api_methods(n)}
    for folder in ("adapters", "prhub"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr in api:
                    names.add(node.attr)
    return names


def test_every_method_the_code_calls_is_in_the_table():
    names = webclient_names_in_code()
    assert {"chat_postMessage", "conversations_history", "files_upload_v2"} <= names  # the scan sees them
    called = set().union(*(api_methods(n) for n in names)) | set(IMPLICIT)
    assert {"files.getUploadURLExternal", "files.completeUploadExternal"} <= called  # files_upload_v2 expanded
    missing = sorted(called - set(SLACK_METHODS))
    assert not missing, f"add these Slack methods and their scopes to adapters/slack/manifest.py: {missing}"


def test_manifest_is_valid_yaml_naming_every_scope():
    text = manifest_yaml()
    m = yaml.safe_load(text)
    assert m["oauth_config"]["scopes"]["bot"] == bot_scopes()
    needed = {s for meth in SLACK_METHODS.values() if meth.token == "bot" for s in meth.scopes}
    needed |= {s for scopes in BOT_EVENTS.values() for s in scopes} | {"commands"}
    assert set(m["oauth_config"]["scopes"]["bot"]) == needed
    assert m["settings"]["socket_mode_enabled"] is True and m["settings"]["interactivity"] == {"is_enabled": True}
    assert "request_url" not in m["settings"]["event_subscriptions"] and "url" not in m["features"]["slash_commands"][0]
    assert m["settings"]["event_subscriptions"]["bot_events"] == ["app_home_opened", "app_mention", "message.channels", "message.groups", "message.im"]
    assert "connections:write" in text and app_token_scopes() == ["connections:write"]


def test_http_manifest_has_the_three_request_urls():
    m = manifest(socket_mode=False, public_url="https://prhub.example.org/")
    assert m["settings"]["socket_mode_enabled"] is False
    assert m["settings"]["event_subscriptions"]["request_url"] == "https://prhub.example.org/slack/events"
    assert m["features"]["slash_commands"][0]["url"] == "https://prhub.example.org/slack/commands"
    assert m["settings"]["interactivity"]["request_url"] == "https://prhub.example.org/slack/actions"
    with pytest.raises(ValueError, match="public URL"):
        manifest(socket_mode=False)


def _exercise(slack: FakeSlackSocket) -> None:
    """The Slack calls prhub makes: post, thread, reconcile, DM, chart upload, doctor's checks."""
    d = SlackDelivery(WebClient(token=slack.token, base_url=slack.base_url))
    dest = Destination(platform="slack", target="C_DIGEST")
    first = d.send(dest, {"text": "part 1", "blocks": []}, thread=None, delivery_key="k1")
    d.send(dest, {"text": "part 2", "blocks": []}, thread=first.message_id, delivery_key="k2")
    now = datetime.now(timezone.utc)
    d.find_sent(dest, "k1", now)
    d.find_sent(dest, "k2", now, thread=first.message_id)
    d.send(Destination(platform="slack", target="U_ALICE"), {"text": "dm", "blocks": []}, thread=None, delivery_key="k3")
    d.upload_image(dest, PNG, title="chart", thread=first.message_id)
    d.upload_file(dest, FileUpload(data=b"%PDF-1.7\n", filename="report.pdf", title="report"), thread=first.message_id,
                  delivery_key="k4")
    client = WebClient(token=slack.token, base_url=slack.base_url)
    client.auth_test()
    client.conversations_info(channel="C_DIGEST")


def test_the_manifest_scopes_are_enough_for_every_call():
    with FakeSlackSocket(scopes=frozenset(bot_scopes())) as slack:
        _exercise(slack)
        errors = [(m, e) for m, _, e in slack.calls if e]
        called = {m for m, _, _ in slack.calls if m != "upload"}
    assert errors == []
    assert called <= set(SLACK_METHODS)


def test_the_fake_refuses_a_call_without_its_scope():
    with FakeSlackSocket(scopes=frozenset(s for s in bot_scopes() if s != "files:write")) as slack:
        d = SlackDelivery(WebClient(token=slack.token, base_url=slack.base_url))
        dest = Destination(platform="slack", target="C_DIGEST")
        first = d.send(dest, {"text": "part 1", "blocks": []}, thread=None, delivery_key="k1")
        with pytest.raises(Exception):
            d.upload_image(dest, PNG, title="chart", thread=first.message_id)
        assert ("files.getUploadURLExternal", "missing_scope") in [(m, e) for m, _, e in slack.calls]


def test_cli_prints_the_manifest(tmp_path):
    from typer.testing import CliRunner

    from prhub.cli import app

    r = CliRunner().invoke(app, ["slack", "manifest"])
    assert r.exit_code == 0 and yaml.safe_load(r.stdout)["settings"]["socket_mode_enabled"] is True
    r = CliRunner().invoke(app, ["slack", "manifest", "--http", "--public-url", "https://bot.example.org"])
    assert r.exit_code == 0 and "https://bot.example.org/slack/events" in r.stdout
    assert Path(ROOT / "adapters" / "slack" / "manifest.py").exists()
