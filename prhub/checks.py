"""``prhub config check`` and ``prhub doctor``: what is missing or refused, one line each with the fix.

:func:`config_problems` reads only the config and the environment (no network): a destination
whose platform has no token, a ``source: github`` repository without ``GITHUB_TOKEN``, a rules
file or export directory that does not exist. :func:`doctor` then asks the services themselves:
Slack ``auth.test`` (and the granted scopes it reports in ``x-oauth-scopes``) against the scopes of
:mod:`adapters.slack.manifest`, ``apps.connections.open`` for the app-level token, ``conversations.info``
for every destination channel (is the bot a member), the Feishu tenant token, bot info, the granted
permissions (``application/v6/scopes``) against :mod:`adapters.feishu.permissions`, and
``chats/{id}/members/is_in_chat`` for every destination chat, the PR store, and the GitHub token with
its rate limit (GraphQL ``rateLimit``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from chatbot.errors import PrhubError
from scheduler.config import LoadedConfig


@dataclass(frozen=True)
class Check:
    """One line of ``prhub doctor``: ``ok`` or not, what was checked, and the fix when not ok."""

    ok: bool
    what: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        return f"{mark} {self.what}: {self.detail}" + (f" -> {self.fix}" if not self.ok and self.fix else "")


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def inbound_checks(settings: Any) -> list[Check]:
    """One failed :class:`Check` per chat platform whose inbound settings ``prhub serve`` would
    refuse or run deaf with (``Platform.inbound_problem``: Slack with neither app token nor signing
    secret, Feishu HTTP callbacks without the encrypt key...); empty when every configured platform
    can receive events. Offline."""
    from prhub import platforms

    out = []
    for p in platforms.PLATFORMS.values():
        problem = p.inbound_problem(settings) if p.wants_inbound(settings) else None
        if problem is not None:
            out.append(Check(False, f"{p.name} events", problem[0], problem[1]))
    return out


def config_problems(loaded: LoadedConfig, settings: Any) -> list[str]:
    """Problems a config check finds without the network, one line each (empty: none): the file's
    (:func:`file_problems`) and the chat platforms' inbound settings (:func:`inbound_checks`).

    Args:
        loaded: the validated config.
        settings: :class:`prhub.config.Settings` (tokens).
    """
    return file_problems(loaded, settings) + [f"{c.what}: {c.detail}: {c.fix}" for c in inbound_checks(settings)]


def file_problems(loaded: LoadedConfig, settings: Any) -> list[str]:
    """What the config file asks for that is missing: rules files, the tokens of its destinations'
    platforms, ``GITHUB_TOKEN`` for ``source: github``; one line each."""
    from prhub.config import repo_rules

    out: list[str] = []
    need = {"slack": (("SLACK_BOT_TOKEN", settings.slack_bot_token),),
            "feishu": (("FEISHU_APP_ID", settings.feishu_app_id), ("FEISHU_APP_SECRET", settings.feishu_app_secret))}
    for r in loaded.config.repositories:
        try:
            repo_rules(loaded, r)
        except PrhubError as exc:
            out.append(f"{r.repo}: rules: {exc.user_message}")
        if r.source == "github" and not _env("GITHUB_TOKEN"):
            out.append(f"{r.repo}: source github but GITHUB_TOKEN is not set: export a token with read access")
        for d in r.destinations:
            missing = [name for name, value in need.get(d.platform, ()) if not value]
            if missing:
                out.append(f"{r.repo} posts to {d.platform}:{d.target} but {' and '.join(missing)} "
                           f"{'is' if len(missing) == 1 else 'are'} not set: export {'it' if len(missing) == 1 else 'them'}")
    return out


# -- doctor ------------------------------------------------------------------------------------------


def _slack_checks(loaded: LoadedConfig | None, settings: Any) -> list[Check]:
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
    for channel in _destinations(loaded, "slack"):
        try:
            info = client.conversations_info(channel=channel)
        except SlackApiError as exc:
            err = exc.response.get("error")
            fix = _slack_error_fix("conversations.info", err, exc.response.get("needed"), settings.slack_api_url)
            out.append(Check(False, f"slack channel {channel}", f"conversations.info: {err}", fix))
            continue
        ch = info.get("channel") or {}
        if ch.get("is_member") or ch.get("is_im"):
            out.append(Check(True, f"slack channel {channel}", "the bot is a member"))
        else:
            out.append(Check(False, f"slack channel {channel}", "the bot is not in the channel",
                             f"type /invite @prhub in #{ch.get('name') or channel}"))
    return out


def _slack_error_fix(method: str, error: object, needed: object, api_url: str) -> str:
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


def _feishu_checks(loaded: LoadedConfig | None, settings: Any) -> list[Check]:
    import requests

    if not (settings.feishu_app_id or settings.feishu_app_secret):
        return []
    if not (settings.feishu_app_id and settings.feishu_app_secret):
        return [Check(False, "feishu app", "FEISHU_APP_ID and FEISHU_APP_SECRET are both needed", "export the missing one")]
    base = settings.feishu_api_url.rstrip("/")
    try:
        r = requests.post(f"{base}/open-apis/auth/v3/tenant_access_token/internal", timeout=15,
                          json={"app_id": settings.feishu_app_id, "app_secret": settings.secret("feishu_app_secret")})
        data = r.json()
    except Exception as exc:  # noqa: BLE001 - network or not JSON
        return [Check(False, "feishu token", f"cannot reach {base} ({type(exc).__name__})",
                      "check FEISHU_API_URL (Lark: https://open.larksuite.com) and the network")]
    token = data.get("tenant_access_token")
    if data.get("code") != 0 or not token:
        return [Check(False, "feishu token", f"tenant token refused ({data.get('code')} {data.get('msg')})",
                      "copy App ID and App Secret from Credentials & Basic Info of the app")]
    out = [Check(True, "feishu token", "tenant_access_token ok")]
    auth = {"Authorization": f"Bearer {token}"}
    info = requests.get(f"{base}/open-apis/bot/v3/info", headers=auth, timeout=15).json()
    if info.get("code") == 0 and (info.get("bot") or {}).get("open_id"):
        out.append(Check(True, "feishu bot", f"bot {info['bot'].get('app_name', '')} ({info['bot']['open_id']})"))
    else:
        out.append(Check(False, "feishu bot", f"bot/v3/info: {info.get('code')} {info.get('msg')}",
                         "enable the Bot capability of the app and publish a version"))
    out.append(_feishu_permissions(base, auth))
    for chat in _destinations(loaded, "feishu"):
        resp = requests.get(f"{base}/open-apis/im/v1/chats/{chat}/members/is_in_chat", headers=auth, timeout=15).json()
        if resp.get("code") == 0 and (resp.get("data") or {}).get("is_in_chat"):
            out.append(Check(True, f"feishu chat {chat}", "the bot is a member"))
        elif resp.get("code") == 0:
            out.append(Check(False, f"feishu chat {chat}", "the bot is not in the chat",
                             "add the bot in the chat's settings (Group settings -> Bots -> Add bot)"))
        else:
            out.append(Check(False, f"feishu chat {chat}", f"is_in_chat: {resp.get('code')} {resp.get('msg')}",
                             "grant im:chat:readonly (or check the chat id) and publish a version"))
    return out


def _feishu_permissions(base: str, auth: dict[str, str]) -> Check:
    """Needed vs granted permissions (``application/v6/scopes``; ``grant_status`` 1 is granted)."""
    import requests

    from adapters.feishu.permissions import needed_permissions

    needed = needed_permissions()
    try:
        data = requests.get(f"{base}/open-apis/application/v6/scopes", headers=auth, timeout=15).json()
    except Exception as exc:  # noqa: BLE001 - network or not JSON: one line
        return Check(True, "feishu permissions", f"could not read the granted permissions ({type(exc).__name__}): skipped")
    if data.get("code") != 0:
        return Check(True, "feishu permissions",
                     f"could not read the granted permissions ({data.get('code')} {data.get('msg')}): skipped")
    granted = {s.get("scope_name") for s in (data.get("data") or {}).get("scopes") or [] if s.get("grant_status") == 1}
    missing = [p for p in needed if p not in granted]
    if missing:
        return Check(False, "feishu permissions", f"missing {', '.join(missing)}",
                     "add them under Permissions & Scopes of the app, then publish a version (an admin approves it)")
    return Check(True, "feishu permissions", f"all {len(needed)} needed permissions granted")


def _destinations(loaded: LoadedConfig | None, platform: str) -> list[str]:
    if loaded is None:
        return []
    seen: dict[str, None] = {}
    for r in loaded.config.repositories:
        for d in r.destinations:
            if d.platform == platform:
                seen[d.target] = None
    return list(seen)


def _store_check(db: str | None) -> Check:
    from prhub import bootstrap

    try:
        with bootstrap.open_store(db) as store:
            store.ping()
            return Check(True, "database", f"{store.url} answers")
    except PrhubError as exc:
        return Check(False, "database", exc.user_message, "fix PRHUB_DATABASE_URL (or --db) or start the database")


def _github_check(loaded: LoadedConfig | None, now: Callable[[], datetime]) -> Check | None:
    import requests

    needed = loaded is None or any(r.source == "github" for r in loaded.config.repositories)
    token = _env("GITHUB_TOKEN")
    if not token:
        if not needed:
            return None
        return Check(False, "github", "GITHUB_TOKEN is not set", "export a token with read access to the repositories")
    base = (_env("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    url = base[:-len("/api/v3")] + "/api/graphql" if base.endswith("/api/v3") else base + "/graphql"
    try:
        r = requests.post(url, json={"query": "{ rateLimit { limit remaining resetAt } }"},
                          headers={"Authorization": f"bearer {token}"}, timeout=15)
    except Exception as exc:  # noqa: BLE001
        return Check(False, "github", f"cannot reach {base} ({type(exc).__name__})", "check GITHUB_API_URL and the network")
    if r.status_code == 401:
        return Check(False, "github", "GitHub refused GITHUB_TOKEN (401 Bad credentials)", "create a new token and export it")
    try:
        rl = r.json()["data"]["rateLimit"]
    except (ValueError, KeyError, TypeError):
        return Check(False, "github", f"GraphQL answered HTTP {r.status_code}", "check GITHUB_API_URL")
    reset = datetime.fromisoformat(str(rl["resetAt"]).replace("Z", "+00:00")).astimezone(timezone.utc)
    low = int(rl["remaining"]) < 100
    detail = f"token ok, {int(rl['remaining']):,}/{int(rl['limit']):,} GraphQL points left, resets {reset:%H:%M} UTC"
    return Check(not low, "github", detail, "wait for the reset or use another token")


def doctor(loaded: LoadedConfig | None, settings: Any, *, db: str | None = None,
           now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> list[Check]:
    """Every check, in order: the config (offline), Slack, Feishu, the database, GitHub.

    Secrets are never printed; each failure names the variable or the console page to fix.
    """
    out: list[Check] = []
    if loaded is not None:
        problems = file_problems(loaded, settings)
        out += [Check(False, "config", p) for p in problems] or [Check(True, "config", "valid")]
    out += inbound_checks(settings)
    out += _slack_checks(loaded, settings)
    out += _feishu_checks(loaded, settings)
    if not (settings.slack_bot_token or settings.feishu_app_id):
        out.append(Check(False, "chat", "no platform configured",
                         "export SLACK_BOT_TOKEN (and SLACK_APP_TOKEN) or FEISHU_APP_ID and FEISHU_APP_SECRET"))
    out.append(_store_check(db))
    gh = _github_check(loaded, now)
    if gh is not None:
        out.append(gh)
    return out
