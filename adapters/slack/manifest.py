"""The Slack app prhub needs, in one table: every Web API method the code calls and the scopes it
needs, the bot events it subscribes to, and the app manifest generated from them
(``prhub slack manifest``; https://docs.slack.dev/reference/app-manifest).

``tests/adapters/slack/test_manifest.py`` checks that every Slack method the code calls (the
``WebClient`` methods named in ``adapters/`` and ``prhub/``, expanded to the API methods they call)
is in :data:`SLACK_METHODS`, and runs the real code paths against a fake Slack that grants exactly
the manifest's scopes and answers ``missing_scope`` for anything else.

Scopes are from Slack's method reference (one per channel kind where Slack has several: public
``channels:``, private ``groups:``, direct ``im:``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class SlackMethod:
    """A Slack Web API method prhub calls: the bot scopes it needs and why prhub calls it."""

    scopes: tuple[str, ...]
    why: str
    token: str = "bot"
    """``bot`` (``SLACK_BOT_TOKEN``) or ``app`` (the app-level ``SLACK_APP_TOKEN``)."""


SLACK_METHODS: dict[str, SlackMethod] = {
    "auth.test": SlackMethod((), "check the token; learn the bot's user id (bolt, prhub doctor)"),
    "chat.postMessage": SlackMethod(("chat:write",), "post digests, subscription slices and chat answers"),
    "conversations.history": SlackMethod(("channels:history", "groups:history", "im:history"),
                                         "find a part already posted (delivery reconciliation)"),
    "conversations.replies": SlackMethod(("channels:history", "groups:history", "im:history"),
                                         "find a threaded part already posted"),
    "conversations.open": SlackMethod(("im:write",), "DM a subscriber or an admin"),
    "conversations.info": SlackMethod(("channels:read", "groups:read", "im:read"),
                                      "prhub doctor: is the bot in each destination channel"),
    "files.getUploadURLExternal": SlackMethod(("files:write",),
                                              "upload the weekly chart, and the full report without a public URL (files_upload_v2)"),
    "files.completeUploadExternal": SlackMethod(("files:write",), "share the chart or the report in part 1's thread"),
    "views.publish": SlackMethod((), "publish the App Home tab (subscriptions with add/remove)"),
    "apps.connections.open": SlackMethod(("connections:write",), "open a Socket Mode connection", token="app"),
}
"""Every Slack Web API method prhub calls -> the scopes it needs."""

BOT_EVENTS: dict[str, tuple[str, ...]] = {
    "app_home_opened": (),
    "app_mention": ("app_mentions:read",),
    "message.im": ("im:history",),
    "message.channels": ("channels:history",),
    "message.groups": ("groups:history",),
}
"""Bot events prhub subscribes to -> the scopes Slack requires for them."""

COMMAND = "/prhub"
COMMAND_SCOPES = ("commands",)


def bot_scopes() -> list[str]:
    """Every bot-token scope the app needs (methods, events, the slash command), sorted."""
    scopes: set[str] = set(COMMAND_SCOPES)
    for m in SLACK_METHODS.values():
        if m.token == "bot":
            scopes.update(m.scopes)
    for s in BOT_EVENTS.values():
        scopes.update(s)
    return sorted(scopes)


def app_token_scopes() -> list[str]:
    """Scopes of the app-level token (Socket Mode)."""
    return sorted({s for m in SLACK_METHODS.values() if m.token == "app" for s in m.scopes})


def manifest(*, name: str = "prhub", socket_mode: bool = True, public_url: str | None = None) -> dict[str, Any]:
    """The Slack app manifest (a dict; :func:`manifest_yaml` for the YAML).

    Args:
        name: the app's and bot user's display name.
        socket_mode: events, the slash command and buttons over Socket Mode (no request URLs).
        public_url: with ``socket_mode=False``: the base URL of ``prhub serve``
            (``https://prhub.example.org``); request URLs are ``/slack/events``, ``/slack/commands``
            and ``/slack/actions`` under it.

    Raises:
        ValueError: HTTP mode without ``public_url``.
    """
    if not socket_mode and not public_url:
        raise ValueError("HTTP mode needs the public URL of prhub serve (--public-url or PRHUB_PUBLIC_URL)")
    base = (public_url or "").rstrip("/")
    command: dict[str, Any] = {"command": COMMAND, "description": "Ask prhub about merged PRs",
                               "usage_hint": "risks this week | PR #42202 | help", "should_escape": False}
    events: dict[str, Any] = {"bot_events": sorted(BOT_EVENTS)}
    interactivity: dict[str, Any] = {"is_enabled": True}
    if not socket_mode:
        command["url"] = f"{base}/slack/commands"
        events["request_url"] = f"{base}/slack/events"
        interactivity["request_url"] = f"{base}/slack/actions"
    return {
        "_metadata": {"major_version": 1, "minor_version": 1},
        "display_information": {"name": name, "description": "Weekly digests of merged GitHub PRs, and answers about them",
                                "background_color": "#24292f"},
        "features": {
            "app_home": {"home_tab_enabled": True, "messages_tab_enabled": True,
                         "messages_tab_read_only_enabled": False},
            "bot_user": {"display_name": name, "always_online": True},
            "slash_commands": [command],
        },
        "oauth_config": {"scopes": {"bot": bot_scopes()}},
        "settings": {
            "event_subscriptions": events,
            "interactivity": interactivity,
            "org_deploy_enabled": False,
            "socket_mode_enabled": socket_mode,
            "token_rotation_enabled": False,
        },
    }


def manifest_yaml(**kwargs: Any) -> str:
    """:func:`manifest` as YAML (keys in manifest order), with a comment naming the app-level token scope."""
    head = ("# Slack app manifest for prhub: https://api.slack.com/apps -> Create New App -> From a manifest.\n"
            + (f"# Socket Mode: also create an app-level token with {', '.join(app_token_scopes())} "
               "(Basic Information -> App-Level Tokens) and export it as SLACK_APP_TOKEN.\n"
               if kwargs.get("socket_mode", True) else ""))
    return head + yaml.safe_dump(manifest(**kwargs), sort_keys=False, allow_unicode=True)
