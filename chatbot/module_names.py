"""Module names as chat users type them: ids, display names in every language, aliases.

Matching (see :meth:`ModuleIndex.resolve`): by id, display name or alias (case, spaces, ``-``/``_``
ignored), then by unique prefix, then by :class:`difflib.SequenceMatcher` ratio >= 0.8; a name
that fits several modules gives the candidates instead of a guess.

Topics (the rules' ``topics:``, e.g. DeepSeek-V4, Kimi, Qwen3) are matched the same way by
:meth:`ModuleIndex.topic` (id, name, Chinese name or alias; letters and digits only compared), and
:meth:`ModuleIndex.topic_in` tells whether a PR title names a topic (its name or an alias as a
whole word, as the storylines do).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Collection
from functools import lru_cache

from chatbot.i18n import langs
from chatbot.rules import Rules, shipped_rules


def squash(text: str) -> str:
    """``text`` case folded (NFKC) with only its letters and digits: "DeepSeek V4" -> ``deepseekv4``."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _name_key(text: str) -> str:
    s = unicodedata.normalize("NFKC", text).casefold().replace("-", " ").replace("_", " ")
    return " ".join(s.split())


class ModuleIndex:
    """Module ids, display names and aliases of one rules file, for matching names in chat.

    Args:
        rules: the repository's rules (its ``modules``).
    """

    def __init__(self, rules: Rules) -> None:
        self.ids: tuple[str, ...] = tuple(m.id for m in rules.modules)
        self.order = {m: i for i, m in enumerate(self.ids)}
        self._display = {m.id: {lang: m.display(lang) for lang in langs()} for m in rules.modules}
        names: list[tuple[str, str]] = []
        for m in rules.modules:
            for n in (m.id, *m.name.values(), *m.aliases):
                k = _name_key(n)
                if k and (k, m.id) not in names:
                    names.append((k, m.id))
        self.names = tuple(names)
        self._topic_display = {t.id: {lang: t.display(lang) for lang in langs()} for t in rules.topics}
        self._topic_names = tuple(dict.fromkeys(n for t in rules.topics for n in (*t.name.values(), *t.aliases)))
        self._topic_keys: dict[str, str] = {}
        self._topic_rx: dict[str, re.Pattern[str]] = {}
        for t in rules.topics:
            for n in (t.id, *t.name.values(), *t.aliases):
                if squash(n):
                    self._topic_keys.setdefault(squash(n), t.id)
            alts = "|".join(re.escape(a) for a in (*t.name.values(), *t.aliases))
            self._topic_rx[t.id] = re.compile(rf"(?<![\w-])(?:{alts})(?![\w])", re.IGNORECASE)
        self._cache: dict[tuple[str, bool], tuple[str | None, tuple[str, ...]]] = {}
        labels: dict[str, tuple[str, ...]] = {r.name: () for r in rules.labels}
        for label, prefixes in rules.prefix_aliases.items():
            labels[label] = (*labels.get(label, ()), *prefixes)
        self._labels = labels

    def label_aliases(self) -> dict[str, tuple[str, ...]]:
        """Every label of the rules (``labels`` names and ``prefix_aliases`` keys) with the title
        prefixes that give it (``performance: (perf, performance, ...)``), in rules order."""
        return self._labels

    def display(self, module: str, lang: str) -> str:
        """The module's display name in ``lang`` (the id when unknown)."""
        return self._display.get(module, {}).get(lang, module)

    def topic(self, name: str) -> str | None:
        """The topic id ``name`` spells (id, name, Chinese name or alias, letters and digits compared), or None."""
        return self._topic_keys.get(squash(name)) if squash(name) else None

    def topic_names(self) -> tuple[str, ...]:
        """Every topic name and alias, as the rules spell them (rules order)."""
        return self._topic_names

    def topic_display(self, topic: str, lang: str) -> str:
        """The topic's display name in ``lang`` (the id when unknown)."""
        return self._topic_display.get(topic, {}).get(lang, topic)

    def topic_in(self, topic: str, title: str) -> bool:
        """Whether ``title`` names ``topic`` (its name or an alias as a whole word, any case)."""
        rx = self._topic_rx.get(topic)
        return bool(rx and rx.search(title))

    def _ordered(self, ids: Collection[str]) -> tuple[str, ...]:
        return tuple(sorted(ids, key=lambda m: self.order.get(m, 0)))

    def resolve(self, name: str, *, fuzzy: bool = True) -> tuple[str | None, tuple[str, ...]]:
        """Match a name typed in chat: by id, name or alias, then by unique prefix, then (``fuzzy``)
        by similarity (ratio >= 0.8).

        Returns:
            ``(module_id, ())`` for one match; ``(None, candidates)`` when several modules fit
            (ids in rules order, at most 6); ``(None, ())`` when none does.
        """
        key = _name_key(name)
        if (key, fuzzy) in self._cache:
            return self._cache[(key, fuzzy)]
        result = self._resolve(key, fuzzy)
        if len(self._cache) < 4096:
            self._cache[(key, fuzzy)] = result
        return result

    def _resolve(self, key: str, fuzzy: bool) -> tuple[str | None, tuple[str, ...]]:
        if not key:
            return None, ()
        squeezed = key.replace(" ", "")
        exact = {m for n, m in self.names if n == key or n.replace(" ", "") == squeezed}
        if len(exact) == 1:
            return next(iter(exact)), ()
        if exact:
            return None, self._ordered(exact)[:6]
        if len(key) >= 2:
            prefix = {m for n, m in self.names if n.startswith(key)}
            if len(prefix) == 1:
                return next(iter(prefix)), ()
            if prefix:
                return None, self._ordered(prefix)[:6]
        if not fuzzy:
            return None, ()
        best: dict[str, float] = {}
        for n, m in self.names:
            sm = difflib.SequenceMatcher(None, key, n)
            if sm.real_quick_ratio() < 0.8 or sm.quick_ratio() < 0.8:
                continue
            r = sm.ratio()
            if r >= 0.8 and r > best.get(m, 0.0):
                best[m] = r
        if not best:
            return None, ()
        ranked = sorted(best, key=lambda m: (-best[m], self.order.get(m, 0)))
        if len(ranked) == 1 or best[ranked[0]] - best[ranked[1]] >= 0.05:
            return ranked[0], ()
        return None, tuple(ranked[:6])


@lru_cache(maxsize=1)
def default_module_index() -> ModuleIndex:
    """The modules of the shipped vLLM rules (the default repository's)."""
    return ModuleIndex(shipped_rules("vllm"))
