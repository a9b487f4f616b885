"""``prhub doctor``'s checks of the Feishu/Lark app, asking Feishu itself (one line each, with the fix)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.platform import Check


def feishu_checks(settings: Any, chats: Sequence[str]) -> list[Check]:
    """``prhub doctor``'s Feishu lines: the tenant token, bot info, the granted permissions
    (``application/v6/scopes``) against :mod:`adapters.feishu.permissions`, and
    ``chats/{id}/members/is_in_chat`` for each destination of ``chats``; ``[]`` when neither
    ``FEISHU_APP_ID`` nor ``FEISHU_APP_SECRET`` is set. Never prints a secret."""
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
    out.append(feishu_permissions(base, auth))
    for chat in chats:
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


def feishu_permissions(base: str, auth: dict[str, str]) -> Check:
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
