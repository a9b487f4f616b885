"""The chat-platform registry as the wiring sees it: the platform packages imported, their
:class:`adapters.platform.Platform` entries listed.

A platform is one package whose ``__init__`` registers its :class:`Platform`
(``adapters/slack/__init__.py``: ``register(Platform(name="slack", ...))``). :func:`registry`
imports the built-in packages (:data:`BUILTIN`) and those named by ``PRHUB_PLATFORMS`` (a
comma-separated list of importable packages: a platform shipped outside prhub), then everything in
``prhub/`` loops over it — settings, ``config check``/``doctor``, endpoints, outbound connections,
payload formats, reply pools, SDK loggers and CLI commands. Configuration destinations
``{platform, target}`` (and the shorthand ``{slack: C0123}``), admins and subscriptions are checked
against it; the core and the scheduler only ever see the name. SDKs are imported only when a
platform is configured.
"""

from __future__ import annotations

import importlib
import os

import adapters.platform
from adapters.platform import Mount, Platform, register

__all__ = ["BUILTIN", "PLATFORMS_ENV", "Mount", "Platform", "display_names", "get", "names", "register", "registry"]

BUILTIN = ("adapters.slack", "adapters.feishu")
"""The platform packages shipped with prhub, in registry order."""

PLATFORMS_ENV = "PRHUB_PLATFORMS"
"""Environment variable naming more platform packages (comma-separated module names)."""

_imported: set[str] = set()


def packages() -> tuple[str, ...]:
    """The platform packages: :data:`BUILTIN`, then those ``$PRHUB_PLATFORMS`` names, once each."""
    extra = (p.strip() for p in os.environ.get(PLATFORMS_ENV, "").split(","))
    return tuple(dict.fromkeys((*BUILTIN, *(p for p in extra if p))))


def registry() -> dict[str, Platform]:
    """Every registered platform by name, in the order of :func:`packages` (then registration
    order), after importing the platform packages not imported yet (each registers itself).

    Raises:
        chatbot.errors.InputError: a package ``PRHUB_PLATFORMS`` names cannot be imported.
    """
    from chatbot.errors import InputError

    order = packages()
    for name in order:
        if name in _imported:
            continue
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise InputError(f"{PLATFORMS_ENV} names {name!r}, which cannot be imported ({exc}): "
                             "fix the name or PYTHONPATH") from None
        _imported.add(name)
    found = adapters.platform.PLATFORMS
    rank = {pkg: i for i, pkg in enumerate(order)}
    by = adapters.platform.REGISTERED_BY
    return dict(sorted(found.items(), key=lambda kv: rank.get(by.get(kv[0], ""), len(rank))))


def names() -> tuple[str, ...]:
    """The registered platform names, sorted."""
    return tuple(sorted(registry()))


def display_names() -> tuple[str, ...]:
    """Each registered platform's display name (``Platform.title``, else its name), in registry order."""
    return tuple(p.title or p.name for p in registry().values())


def get(name: str) -> Platform:
    """The platform called ``name``.

    Raises:
        chatbot.errors.InputError: no such platform (the message lists the known ones).
    """
    from chatbot.errors import InputError

    try:
        return registry()[name]
    except KeyError:
        raise InputError(f"unknown chat platform {name!r} (known: {', '.join(names())})") from None
