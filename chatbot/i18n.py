"""Message catalogs for every piece of free text prhub writes, one data file per language.

The catalogs are ``chatbot/catalogs/<lang>.yaml`` (``en`` first; ``zh``) plus the ``*.yaml`` files of
the directories named in ``PRHUB_CATALOGS`` (:data:`CATALOGS_ENV`, ``os.pathsep``-separated: a
language shipped outside the package); a language is a file, and :func:`langs` lists the files found.
:data:`Lang` is the type every config model, query, action value and CLI option takes a language as:
a string that must name one of them. ``tr(lang, key, **values)`` formats the catalog entry with
:meth:`str.format` (an entry is returned as written when no values are given). Values that come from
PRs (titles, paths) are inserted as given: escaping is the renderer's job, per output format. A key
missing from a language falls back to English.

Besides texts, a catalog says what the code asks of a language: ``lang.script`` (a regex of the
characters that identify a message as written in it, empty for the default; also where a template's
space beside an inserted value goes), ``lang.tight`` (punctuation that takes no space beside it),
``lang.html`` (the HTML ``lang`` attribute), ``sep`` / ``sep.clause`` / ``paren`` / ``paren.bare`` (its punctuation) and
``card.more`` ("and N more").
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema

DEFAULT_LANG = "en"
CATALOGS_ENV = "PRHUB_CATALOGS"
"""Environment variable naming extra catalog directories (``os.pathsep``-separated)."""

_Source = Any  # a Traversable or a Path: something with ``name`` and ``read_text``


def _files(extra: str) -> dict[str, _Source]:
    """``{lang: file}``: the package's catalogs, then those of the ``extra`` directories (a later
    file of the same language wins), the default language first, then by name."""
    found: dict[str, _Source] = {}
    dirs: list[Any] = [resources.files("chatbot").joinpath("catalogs")]
    dirs += [Path(d) for d in extra.split(os.pathsep) if d]
    for d in dirs:
        if not d.is_dir():
            continue
        for f in d.iterdir():
            if f.name.endswith(".yaml"):
                found[f.name.removesuffix(".yaml")] = f
    return {k: found[k] for k in sorted(found, key=lambda k: (k != DEFAULT_LANG, k))}


@lru_cache(maxsize=8)
def _lang_names(extra: str) -> tuple[str, ...]:
    return tuple(_files(extra))


def langs() -> tuple[str, ...]:
    """The languages prhub writes (one catalog file each), English first. Reads file names only
    (``import prhub.cli`` builds its ``--lang`` choices from it without parsing YAML)."""
    return _lang_names(os.environ.get(CATALOGS_ENV, ""))


@lru_cache(maxsize=8)
def _load_catalogs(extra: str) -> dict[str, dict[str, str]]:
    """Every catalog file: ``{lang: {key: template}}``, English first.

    Raises:
        RuntimeError: a catalog is not a mapping of strings (a packaging error).
    """
    from chatbot.yamlfile import load_yaml

    out: dict[str, dict[str, str]] = {}
    for lang, f in _files(extra).items():
        data = load_yaml(f.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise RuntimeError(f"message catalog {f.name}: expected a mapping of keys to strings")
        out[lang] = data
    return out


_ADDED: dict[str, dict[str, str]] = {}
"""Entries plug-ins bring (:func:`add_texts`), ``{lang: {key: template}}``, below the files'."""


def _catalogs() -> dict[str, dict[str, str]]:
    return _load_catalogs(os.environ.get(CATALOGS_ENV, ""))


def _lookup(lang: str, key: str) -> str | None:
    cats = _catalogs()
    text = cats.get(lang, {}).get(key)
    if text is None:
        text = _ADDED.get(lang, {}).get(key)
    return text


def is_lang(value: object) -> bool:
    """True when ``value`` names a language with a catalog."""
    return isinstance(value, str) and value in langs()


def lang_or(value: object, default: str = DEFAULT_LANG) -> str:
    """``value`` when it names a language with a catalog, else ``default``."""
    return value if isinstance(value, str) and is_lang(value) else default


def _expected(names: tuple[str, ...]) -> str:
    """``'en' or 'zh'``, ``'en', 'xx' or 'zh'``: the wording of pydantic's literal errors."""
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _check_lang(value: str) -> str:
    if value not in langs():
        from pydantic_core import PydanticCustomError

        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": _expected(langs())})
    return value


class _LangType:
    """Pydantic hooks of :data:`Lang`: a string checked against :func:`langs` when validated (so a
    catalog added through ``PRHUB_CATALOGS`` is accepted), an ``enum`` of them in JSON schemas."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(_check_lang, handler(str))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        out = handler(schema)
        out["enum"] = list(langs())
        return out


Lang = Annotated[str, _LangType()]
"""A language with a catalog (``en``, ``zh``, …): the type of every ``lang`` field and option."""


def text_lang(text: str) -> str:
    """The language ``text`` is written in: the first language (after the default) whose catalog's
    ``lang.script`` characters occur in it (``zh``: CJK ideographs), else the default language."""
    for lang, rx in _scripts(os.environ.get(CATALOGS_ENV, "")):
        if rx.search(text):
            return lang
    return DEFAULT_LANG


@lru_cache(maxsize=8)
def _scripts(extra: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    cats = _load_catalogs(extra)
    return tuple((lang, re.compile(c["lang.script"])) for lang, c in cats.items()
                 if lang != DEFAULT_LANG and c.get("lang.script"))


def tr(lang: str, key: str, **values: Any) -> str:
    """The catalog text for ``key`` in ``lang`` (falls back to English), formatted with ``values``.

    Raises:
        KeyError: ``key`` is in no catalog (a programming error, caught by the catalog test).
    """
    text = _lookup(lang, key)
    if text is None:
        text = _lookup(DEFAULT_LANG, key)
        if text is None:
            raise KeyError(key)
    if not values:
        out = text
    elif (spacing := _spacing(lang))[0] and (" {" in text or "} " in text):
        out = _close_script_gaps(_marked(text).format(**values), *spacing)
    else:
        out = text.format(**values)
    return _plurals(out) if "(s)" in out else out


_OPEN, _CLOSE = "\ue000", "\ue001"
"""Marks around an inserted value while a template's spaces are judged (never left in a text): two
private-use characters, since callers pass their own control characters through values (a card's
link line splits its text at a ``"\\x00"`` value)."""
_FIELD = re.compile(r"(?<!\{)\{[^{}]*\}(?!\})")


@lru_cache(maxsize=1024)
def _marked(template: str) -> str:
    """``template`` with each ``{field}`` between :data:`_OPEN` and :data:`_CLOSE`."""
    return _FIELD.sub(lambda m: f"{_OPEN}{m.group(0)}{_CLOSE}", template)


def _spacing(lang: str) -> tuple[str, str]:
    """``(lang.script, lang.tight)`` of ``lang``'s catalog (``("", "")`` for the default language): the
    character classes :func:`_close_script_gaps` judges a template's spaces by."""
    if lang == DEFAULT_LANG:
        return "", ""
    c = _catalogs().get(lang, {})
    return c.get("lang.script", ""), c.get("lang.tight", "")


@lru_cache(maxsize=16)
def _gap_rules(script: str, tight: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    before = f"(?<={script}) {_OPEN}(?={script})"
    after = f"(?<={script}){_CLOSE} (?={script})"
    if tight:
        before += f"|(?<={tight}) {_OPEN}| {_OPEN}(?={tight})"
        after += f"|(?<={tight}){_CLOSE} |{_CLOSE} (?={tight})"
    return re.compile(before), re.compile(after)


def _close_script_gaps(marked: str, script: str, tight: str = "") -> str:
    """Drop a template's space where one side is an inserted value and the space stands between two
    characters of ``script`` or next to one of ``tight`` (the catalog's ``lang.tight``: punctuation
    that carries its own spacing, Chinese full-width brackets): a Chinese template "为 {target}"
    spaces a PR link ("为 #41035") but not a value that is Chinese itself ("为风险 1 所列的 PR", not
    "为 风险 1") nor one ending in "）" ("#42706（风险 2）补上", not "（风险 2） 补上"); spaces inside
    values are kept."""
    before, after = _gap_rules(script, tight)
    return after.sub(_CLOSE, before.sub(_OPEN, marked)).replace(_OPEN, "").replace(_CLOSE, "")


_PLURAL = re.compile(r"(?<![\d,.])(\d[\d,]*)((?: [A-Za-z-]+){0,2}) (\w+)\(s\)")
"""A count, up to two words, and a word marked ``(s)``: ``3 key PR(s)``, ``1 more part(s)``."""


def _plurals(text: str) -> str:
    """English count words: ``1 PR(s)`` -> ``1 PR``, ``3 PR(s)`` -> ``3 PRs``, ``1 key PR(s)`` ->
    ``1 key PR``, ``2 were`` stays."""
    return _PLURAL.sub(lambda m: f"{m.group(1)}{m.group(2)} {m.group(3)}" + ("" if m.group(1) == "1" else "s"), text)


def has_text(key: str) -> bool:
    """True when ``key`` is in the English catalog (every key is; other languages fall back to it)."""
    return _lookup(DEFAULT_LANG, key) is not None


def catalog_keys(lang: str) -> set[str]:
    """Keys defined for ``lang`` (for tests that keep the catalogs in step).

    Raises:
        KeyError: ``lang`` has no catalog.
    """
    return set(_catalogs()[lang]) | set(_ADDED.get(lang, ()))


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
        if lang not in langs():
            raise ValueError(f"no catalog for language {lang!r}: add chatbot/catalogs/{lang}.yaml")
        added = _ADDED.setdefault(lang, {})
        for key, text in entries.items():
            if _lookup(lang, key) not in (None, text):
                raise ValueError(f"catalog key {key!r} ({lang}) is already defined with another text")
            added[key] = text
