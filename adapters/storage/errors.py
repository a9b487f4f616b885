"""Store errors and URL masking: database URLs shown to people never carry a password."""

from __future__ import annotations

import re

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from chatbot.errors import PrhubError

_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^:/@?#]*):(?P<password>[^/?#]*)@")
_PASSWORD_PARAM = re.compile(r"(?i)(password=)[^&\s]*")


class StoreError(PrhubError):
    """The PR store cannot be opened or cannot answer: bad URL, unreachable server, schema or SQL error.

    ``user_message`` is one line and never contains a database password. ``table_missing`` is True
    when the driver said a table does not exist (SQLite ``no such table``, PostgreSQL SQLSTATE
    ``42P01``): the schema was dropped or replaced under a running process, so no retry can succeed.
    """

    def __init__(self, user_message: str, *, table_missing: bool = False) -> None:
        super().__init__(user_message)
        self.table_missing = table_missing


def mask_url(url: str) -> str:
    """``url`` safe to show: the password (userinfo or ``password=`` query parameter) becomes ``***``.

    Works on strings SQLAlchemy cannot parse too (they are masked with a regular expression).
    """
    masked = _USERINFO.sub(lambda m: f"{m['scheme']}{m['user']}:***@", url)
    return _PASSWORD_PARAM.sub(r"\1***", masked)


def url_secrets(url: str) -> list[str]:
    """The secret parts of ``url`` (password in userinfo or query), to scrub from driver messages."""
    secrets: list[str] = []
    m = _USERINFO.search(url)
    if m and m["password"]:
        secrets.append(m["password"])
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        parsed = None
    if parsed is not None:
        if parsed.password:
            secrets.append(str(parsed.password))
        for key, value in parsed.query.items():
            if key.lower() == "password":
                secrets.extend([value] if isinstance(value, str) else list(value))
    return sorted({s for s in secrets if s}, key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """``text`` (e.g. a driver's error message) with every secret of ``url`` replaced by ``***``."""
    for secret in url_secrets(url):
        text = text.replace(secret, "***")
    return mask_url(text)
