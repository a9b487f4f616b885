"""The Feishu/Lark permissions (scopes) prhub's app needs, in one table: what each is for.

``prhub doctor`` compares them with what the tenant granted (``GET /open-apis/application/v6/scopes``,
``grant_status`` 1 = granted); the README's "Connect Feishu / Lark" lists the same names. Names are
from Feishu's permission list (Developer Console -> Permissions & Scopes).
"""

from __future__ import annotations

FEISHU_PERMISSIONS: dict[str, str] = {
    "im:message": "send and reply as the bot (digests, slices, chat answers)",
    "im:message.group_at_msg:readonly": "receive group messages that @ the bot",
    "im:message.p2p_msg:readonly": "receive direct messages to the bot",
    "im:resource": "upload the weekly chart image and the full report file (without a public URL)",
    "im:chat:readonly": "prhub doctor: is the bot in each destination chat",
}
"""Permission name -> what prhub uses it for."""


def needed_permissions() -> list[str]:
    """Every permission the app needs, sorted."""
    return sorted(FEISHU_PERMISSIONS)
