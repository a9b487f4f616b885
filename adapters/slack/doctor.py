"""``prhub doctor``'s checks of the Slack app, asking Slack itself (one line each, with the fix)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.platform import Check


def slack_checks(settings: Any, channels: Sequence[str]) -> list[Check]:
    """``prhub doctor``'s Slack lines: ``auth.test`` (and the granted scopes it reports in
    ``x-oauth-scopes``) against :mod:`adapters.slack.manifest`, ``apps.connections.open`` for the
    app-level token in Socket Mode, and ``conversations.info`` for each destination ``channels``
    (is the bot a member); ``[]`` without ``SLACK_BOT_TOKEN``. Never prints a secret."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    from adapters.slack.manifest import app_token_scopes, bot_scopes

    if not settings.slack_bot_token:
        return []
    client = WebClient(token=settings.secret("slack_bot_token"), base_url=settings.slack_api_url, timeout=15)
    out: list[Check] = []
    try:
        resp = client.auth_test()
    except SlackApiError as exc:
        return [Check(False, "slack token", f"auth.test refused SLACK_BOT_TOKEN ({exc.response.get('error')})",
                      "copy the Bot User OAuth Token (xoxb-...) from OAuth & Permissions, reinstall the app if it was revoked")]
    except Exception as exc:  # noqa: BLE001 - network: one line
        return [Check(False, "slack token", f"cannot reach {settings.slack_api_url} ({type(exc).__name__})",
                      "check SLACK_API_URL and the network")]
    out.append(Check(True, "slack token", f"auth.test ok (team {resp.get('team')}, bot user {resp.get('user_id')})"))
    granted_header = (resp.headers or {}).get("x-oauth-scopes") or (resp.headers or {}).get("X-OAuth-Scopes")
    if granted_header is None:
        out.append(Check(True, "slack scopes", "Slack did not report the granted scopes (skipped)"))
    else:
        granted = {s.strip() for s in str(granted_header).split(",") if s.strip()}
        missing = [s for s in bot_scopes() if s not in granted]
        if missing:
            out.append(Check(False, "slack scopes", f"missing {', '.join(missing)}",
                             "add them under OAuth & Permissions (or paste `prhub slack manifest`) and reinstall the app"))
        else:
            out.append(Check(True, "slack scopes", f"all {len(bot_scopes())} needed scopes granted"))
    if settings.slack_socket_mode and settings.slack_app_token:  # without it: inbound_checks' line
        try:
            client.apps_connections_open(app_token=settings.secret("slack_app_token"))
            out.append(Check(True, "slack socket mode", "apps.connections.open ok"))
        except SlackApiError as exc:
            out.append(Check(False, "slack socket mode", f"apps.connections.open refused SLACK_APP_TOKEN "
                             f"({exc.response.get('error')})",
                             f"use the app-level token (xapp-...) with {', '.join(app_token_scopes())} and enable Socket Mode"))
    for channel in channels:
        try:
            info = client.conversations_info(channel=channel)
        except SlackApiError as exc:
            err = exc.response.get("error")
            fix = slack_error_fix("conversations.info", err, exc.response.get("needed"), settings.slack_api_url)
            out.append(Check(False, f"slack channel {channel}", f"conversations.info: {err}", fix))
            continue
        ch = info.get("channel") or {}
        if ch.get("is_member") or ch.get("is_im"):
            out.append(Check(True, f"slack channel {channel}", "the bot is a member"))
        else:
            out.append(Check(False, f"slack channel {channel}", "the bot is not in the channel",
                             f"type /invite @prhub in #{ch.get('name') or channel}"))
    return out


def slack_error_fix(method: str, error: object, needed: object, api_url: str) -> str:
    """The fix for a Slack Web API error of ``method``: an unknown channel, a missing scope (Slack's
    ``needed`` names it), an API URL that is not Slack's (``unknown_method``), else Slack's error list."""
    if error == "channel_not_found":
        return "the channel id is wrong or the bot cannot see it: invite the bot (/invite @prhub)"
    if error == "missing_scope":
        return (f"add {needed or 'the scope ' + method + ' needs'} under OAuth & Permissions "
                "(or paste `prhub slack manifest`) and reinstall the app")
    if error == "unknown_method":
        return f"SLACK_API_URL ({api_url}) does not serve {method}: unset it or point it at https://slack.com/api/"
    return f"see https://api.slack.com/methods/{method}#errors"
