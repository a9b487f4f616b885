"""The few Feishu/Lark Open API calls prhub makes, over ``requests`` (no lark-oapi on the HTTP path).

lark-oapi's package imports all of its API namespaces (about 2 s CPU and 150 MiB at start-up); prhub
needs six endpoints, called here directly:

* ``POST /open-apis/auth/v3/tenant_access_token/internal`` (``app_id``, ``app_secret``): the tenant
  token, cached until 5 minutes before its ``expire`` (seconds) and fetched again after a token error;
* ``POST /open-apis/im/v1/messages?receive_id_type=…`` (``im.v1.message.create``);
* ``POST /open-apis/im/v1/messages/{message_id}/reply`` (``im.v1.message.reply``);
* ``POST /open-apis/im/v1/images`` (``im.v1.image.create``, multipart ``image_type`` + ``image``);
* ``POST /open-apis/im/v1/files`` (``im.v1.file.create``, multipart ``file_type``, ``file_name``, ``file``);
* ``GET /open-apis/bot/v3/info`` (the bot's ``open_id``).

Every answer is ``{"code": 0 | N, "msg": …, "data": …}``; :class:`FeishuResponse` keeps the HTTP status,
headers and that body, and ``success()`` is ``code == 0`` with a 2xx status (as lark-oapi's). The app
secret and the tenant token are never logged or put in an error.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
TOKEN_MARGIN_SECONDS = 300.0
"""A cached tenant token is renewed this long before Feishu's ``expire`` (Feishu hands out a new one
when less than 30 minutes are left)."""
TOKEN_ERRORS = frozenset({99991663, 99991668, 99991661})
"""Codes meaning the tenant token was refused (invalid, expired, missing): fetch a new one once and retry."""


class TokenError(Exception):
    """The tenant token could not be obtained; ``code`` is Feishu's (or None for a network failure)."""

    def __init__(self, code: int | None, msg: str) -> None:
        super().__init__(f"tenant_access_token failed: {code} {msg}".strip())
        self.code = code


@dataclass
class FeishuResponse:
    """One Open API answer: HTTP ``status``, response ``headers``, the JSON ``body`` (``{}`` if none)."""

    status: int
    headers: Mapping[str, str]
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> int | None:
        """Feishu's ``code`` (0 = success; None when the body has none)."""
        code = self.body.get("code")
        return int(code) if isinstance(code, int) else None

    @property
    def msg(self) -> str:
        """Feishu's ``msg``."""
        return str(self.body.get("msg") or "")

    @property
    def data(self) -> dict[str, Any]:
        """The ``data`` object (``{}`` when absent)."""
        data = self.body.get("data")
        return data if isinstance(data, dict) else {}

    def success(self) -> bool:
        """True for HTTP 2xx with ``code == 0``."""
        return 200 <= self.status < 300 and self.code == 0

    def header(self, name: str) -> str | None:
        """A response header, case-insensitively."""
        for k, v in self.headers.items():
            if k.lower() == name.lower():
                return str(v)
        return None


class FeishuApi:
    """A self-built app's Open API client: tenant-token cache plus :meth:`call`.

    Args:
        app_id: ``FEISHU_APP_ID``.
        app_secret: ``FEISHU_APP_SECRET`` (never in repr, logs or errors).
        domain: ``https://open.feishu.cn`` (Lark: ``https://open.larksuite.com``; tests: a fake).
        timeout: per-request timeout, seconds.
        clock: monotonic seconds (for the token cache; tests may inject one).
    """

    def __init__(self, app_id: str, app_secret: str, *, domain: str, timeout: float = 15.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app_id = app_id
        self._secret = app_secret
        self.domain = domain.rstrip("/")
        self.timeout = timeout
        self._clock = clock
        self._session = requests.Session()
        self._lock = threading.Lock()
        self._token: str | None = None
        self._token_until = 0.0

    def __repr__(self) -> str:
        return f"FeishuApi(app_id={self.app_id!r}, domain={self.domain!r}, app_secret=<hidden>)"

    def _request(self, method: str, path: str, **kw: Any) -> FeishuResponse:
        raw = self._session.request(method, self.domain + path, timeout=self.timeout, **kw)
        try:
            body = raw.json() if raw.content else {}
        except ValueError:
            body = {}
        return FeishuResponse(raw.status_code, dict(raw.headers), body if isinstance(body, dict) else {})

    def tenant_token(self, *, renew: bool = False) -> str:
        """The cached tenant access token, fetched when missing, near expiry or ``renew``.

        Raises:
            TokenError: Feishu refused the app id/secret (``code``), or answered without a token.
            OSError: network failure (``requests``' errors are OSErrors).
        """
        with self._lock:
            if renew or self._token is None or self._clock() >= self._token_until:
                resp = self._request("POST", TOKEN_PATH, json={"app_id": self.app_id, "app_secret": self._secret})
                token = resp.body.get("tenant_access_token")
                if not resp.success() or not isinstance(token, str) or not token:
                    raise TokenError(resp.code, resp.msg[:200])
                expire = resp.body.get("expire")
                self._token = token
                self._token_until = self._clock() + max(float(expire if isinstance(expire, int) else 7200)
                                                        - TOKEN_MARGIN_SECONDS, 0.0)
            return self._token

    def call(self, method: str, path: str, *, params: Mapping[str, str] | None = None,
             json: Mapping[str, Any] | None = None, files: Mapping[str, Any] | None = None,
             data: Mapping[str, str] | None = None, body: bytes | None = None) -> FeishuResponse:
        """One authorised request (``Authorization: Bearer <tenant token>``); a refused token is renewed
        once and the request sent again. ``body``: JSON bytes sent as they are
        (``application/json; charset=utf-8``), for sends whose size is checked beforehand.

        Raises:
            TokenError / OSError: as :meth:`tenant_token`; ``ValueError`` never (bad JSON becomes ``{}``).
        """
        for attempt in (0, 1):
            token = self.tenant_token(renew=attempt == 1)
            headers = {"Authorization": f"Bearer {token}"}
            if body is not None:
                headers["Content-Type"] = "application/json; charset=utf-8"
            resp = self._request(method, path, params=params, json=json, files=files,
                                 data=body if body is not None else data, headers=headers)
            if resp.code not in TOKEN_ERRORS:
                break
        return resp
