"""Language-neutral text: a :class:`Phrase` is a catalog key and its arguments, rendered in a language
only when an output is written (:func:`say`).

Arguments are strings already formatted without language (numbers with ``,`` separators, line
counts as ``+a/-d``, paths, PR numbers) or nested phrases (``where.title``); PR text stays
unescaped, as in the catalogs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from chatbot.i18n import tr


class Phrase(BaseModel):
    """Catalog ``key`` (``chatbot/catalogs/<lang>.yaml``) with ``args`` for its ``{placeholders}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    args: dict[str, str | Phrase] = {}


def say(lang: str, phrase: Phrase) -> str:
    """``phrase`` written in ``lang`` (nested phrases first).

    Raises:
        KeyError: the key is in no catalog.
    """
    if not phrase.args:
        return tr(lang, phrase.key)
    return tr(lang, phrase.key, **{k: say(lang, v) if isinstance(v, Phrase) else v for k, v in phrase.args.items()})


def phrase(key: str, **args: str | int | Phrase) -> Phrase:
    """A :class:`Phrase`; int arguments become decimal strings (``{n}`` in a template)."""
    return Phrase(key=key, args={k: v if isinstance(v, (str, Phrase)) else str(v) for k, v in args.items()})
