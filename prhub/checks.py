"""``prhub config check`` and ``prhub doctor``: what is missing or refused, one line each with the fix.

:func:`config_problems` reads only the config and the environment (no network): a destination
whose platform has no token, a ``source: github`` repository without ``GITHUB_TOKEN``, a rules
file or export directory that does not exist. :func:`doctor` then asks the services themselves:
each registered chat platform's checks (``Platform.doctor``: Slack ``auth.test``, its scopes and
channels; the Feishu tenant token, permissions and chats), the PR store, and the GitHub token with
its rate limit (GraphQL ``rateLimit``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from adapters.platform import Check
from chatbot.errors import PrhubError
from prhub import platforms
from scheduler.config import LoadedConfig


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def inbound_checks(settings: Any) -> list[Check]:
    """One failed :class:`Check` per chat platform whose inbound settings ``prhub serve`` would
    refuse or run deaf with (``Platform.inbound_problem``: Slack with neither app token nor signing
    secret, Feishu HTTP callbacks without the encrypt key...); empty when every configured platform
    can receive events. Offline."""

    out = []
    for p in platforms.registry().values():
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
    registry = platforms.registry()
    for r in loaded.config.repositories:
        try:
            repo_rules(loaded, r)
        except PrhubError as exc:
            out.append(f"{r.repo}: rules: {exc.user_message}")
        if r.source == "github" and not _env("GITHUB_TOKEN"):
            out.append(f"{r.repo}: source github but GITHUB_TOKEN is not set: export a token with read access")
        for d in r.destinations:
            p = registry.get(d.platform)
            missing = list(p.missing(settings)) if p is not None else []
            if missing:
                out.append(f"{r.repo} posts to {d.platform}:{d.target} but {' and '.join(missing)} "
                           f"{'is' if len(missing) == 1 else 'are'} not set: export {'it' if len(missing) == 1 else 'them'}")
    return out


# -- doctor ------------------------------------------------------------------------------------------


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
    """Every check, in order: the config (offline), each chat platform's (``Platform.doctor``, in
    registry order), the database, GitHub.

    Secrets are never printed; each failure names the variable or the console page to fix.
    """
    out: list[Check] = []
    if loaded is not None:
        problems = file_problems(loaded, settings)
        out += [Check(False, "config", p) for p in problems] or [Check(True, "config", "valid")]
    out += inbound_checks(settings)
    registry = platforms.registry().values()
    for p in registry:
        out += p.doctor(settings, _destinations(loaded, p.name))
    if not any(p.can_send(settings) or p.wants_inbound(settings) for p in registry):
        out.append(Check(False, "chat", "no platform configured",
                         "export " + " or ".join(p.credentials for p in registry)))
    out.append(_store_check(db))
    gh = _github_check(loaded, now)
    if gh is not None:
        out.append(gh)
    return out
