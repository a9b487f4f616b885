"""Admins are scoped to their workspace: ``WORKSPACE:USER`` (Slack ``T0123:U0456``, Feishu
``tenant_key:ou_xxx``), in the YAML ``admins:`` and in ``PRHUB_SLACK_ADMINS``/``PRHUB_FEISHU_ADMINS``.

A user id alone is not unique across Slack workspaces or Feishu tenants: an admin id used from
another workspace must not manage channel subscriptions there (issue 9, failure 8).
"""

from __future__ import annotations

import re

_SCOPED = re.compile(r"^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$")

FORM_HINT = "write WORKSPACE:USER, e.g. T0123:U0456 or tenant_key:ou_xxx (the workspace or tenant id, a colon, the user id)"


def check_scoped(value: str) -> str:
    """``value`` (trimmed) when it is ``WORKSPACE:USER``.

    Raises:
        ValueError: a bare user id or another shape; the message names the value and the form.
    """
    v = value.strip()
    if _SCOPED.match(v):
        return v
    if ":" not in v:
        raise ValueError(f"admin {v[:80]!r} is a bare user id: {FORM_HINT}")
    raise ValueError(f"admin {v[:80]!r} is not WORKSPACE:USER: {FORM_HINT}")


def admin_key(workspace: str, user: str) -> str:
    """The scoped id of ``user`` in ``workspace`` (compared against the configured admins)."""
    return f"{workspace}:{user}"


def admin_user(scoped: str) -> str:
    """The user id of a scoped admin (``T0123:U0456`` -> ``U0456``): where alerts are sent."""
    return scoped.rpartition(":")[2]
