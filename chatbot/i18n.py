"""Message catalogs for every piece of free text prhub writes, one data file per language.

The catalogs are ``chatbot/catalogs/<lang>.yaml`` (``en`` first; ``zh``); a language is a file
there, and :data:`LANGS` lists the files found. ``tr(lang, key, **values)`` formats the catalog
entry with :meth:`str.format` (an entry is returned as written when no values are given). Values
that come from PRs (titles, paths) are inserted as given: escaping is the renderer's job, per output
format. A key missing from a language falls back to English.
"""

from __future__ import annotations

import re

from importlib import resources
from collections.abc import Mapping
from typing import Any

from chatbot.yamlfile import load_yaml

DEFAULT_LANG = "en"


def _load_catalogs() -> dict[str, dict[str, str]]:
    """Every ``catalogs/*.yaml`` of the package: ``{lang: {key: template}}``, English first.

    Raises:
        RuntimeError: a catalog is not a mapping of strings (a packaging error).
    """
    out: dict[str, dict[str, str]] = {}
    files = sorted(resources.files("chatbot").joinpath("catalogs").iterdir(), key=lambda f: (f.name != f"{DEFAULT_LANG}.yaml", f.name))
    for f in files:
        if not f.name.endswith(".yaml"):
            continue
        data = load_yaml(f.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise RuntimeError(f"message catalog {f.name}: expected a mapping of keys to strings")
        out[f.name.removesuffix(".yaml")] = data
    return out


_CATALOGS = _load_catalogs()
_EN = _CATALOGS[DEFAULT_LANG]
LANGS: tuple[str, ...] = tuple(_CATALOGS)
"""The languages prhub writes (one catalog file each), English first."""


def tr(lang: str, key: str, **values: Any) -> str:
    """The catalog text for ``key`` in ``lang`` (falls back to English), formatted with ``values``.

    Raises:
        KeyError: ``key`` is in no catalog (a programming error, caught by the catalog test).
    """
    catalog = _CATALOGS.get(lang, _EN)
    text = catalog.get(key)
    if text is None:
        text = _EN[key]
    out = text.format(**values) if values else text
    return _plurals(out) if "(s)" in out else out


_PLURAL = re.compile(r"(?<![\d,.])(\d[\d,]*)((?: [A-Za-z-]+){0,2}) (\w+)\(s\)")
"""A count, up to two words, and a word marked ``(s)``: ``3 key PR(s)``, ``1 more part(s)``."""


def _plurals(text: str) -> str:
    """English count words: ``1 PR(s)`` -> ``1 PR``, ``3 PR(s)`` -> ``3 PRs``, ``1 key PR(s)`` ->
    ``1 key PR``, ``2 were`` stays."""
    return _PLURAL.sub(lambda m: f"{m.group(1)}{m.group(2)} {m.group(3)}" + ("" if m.group(1) == "1" else "s"), text)


def has_text(key: str) -> bool:
    """True when ``key`` is in the English catalog (every key is; other languages fall back to it)."""
    return key in _EN


def catalog_keys(lang: str) -> set[str]:
    """Keys defined for ``lang`` (for tests that keep the catalogs in step)."""
    return set(_CATALOGS[lang])


def lines_text(additions: int, deletions: int) -> str:
    """``+1,234/-56``: added and deleted line counts, ASCII signs, thousands separators."""
    return f"+{additions:,}/-{deletions:,}"


def add_texts(texts: Mapping[str, Mapping[str, str]]) -> None:
    """Add catalog entries a plug-in brings (a risk rule's ``texts``): ``{lang: {key: template}}``.

    A key the catalog already holds must keep its text (registering the same rule twice is fine).

    Raises:
        ValueError: a key would change an existing entry, or ``lang`` has no catalog file.
    """
    for lang, entries in texts.items():
        if lang not in _CATALOGS:
            raise ValueError(f"no catalog for language {lang!r}: add chatbot/catalogs/{lang}.yaml")
        cat = _CATALOGS[lang]
        for key, text in entries.items():
            if cat.get(key, text) != text:
                raise ValueError(f"catalog key {key!r} ({lang}) is already defined with another text")
            cat[key] = text
