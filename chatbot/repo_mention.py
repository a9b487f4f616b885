"""A repository named in a chat message: "risks in owner/name", "owner/name 的风险".

The chat pipeline (:mod:`chatbot.inbound`) answers about the conversation's repository; a message
that names one (``in``/``for``/``of``/``from``/``on``/``about`` + ``owner/name``, or in Chinese
``owner/name`` followed by 的/里/中 or preceded by 在/关于) is answered about that one instead,
for that message only, with the mention removed from the text the intents see.

A configured repository is recognised anywhere as a whole token. A mention of an ``owner/name`` that
is not configured is reported (the pipeline answers with the configured ones) unless its owner part
is a top directory of a configured repository's rules (``vllm/v1`` is a path, not a repository), it
ends in a file extension (``foo/bar.py``) or it is too short to be a repository name (under 6
characters or no letter: ``CI/CD``, ``2026/05`` are words, not repositories; ``foo/bar`` is one).

``prhub serve`` (:class:`chatbot.inbound.ChatService`) and ``prhub ask`` read mentions the same
way and answer an unconfigured one with :func:`unknown_repo_card`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from chatbot.cards import Card, Section, Text, Untrusted
from chatbot.i18n import tr
from chatbot.rules import Rules

_TOKEN = r"[A-Za-z0-9_.-]+/[A-Za-z0-9_-][A-Za-z0-9_.-]*"
_EDGE_L = r"(?<![A-Za-z0-9_./-])"
_EDGE_R = r"(?![A-Za-z0-9_/-]|\.[A-Za-z0-9_])"
_EN = re.compile(rf"\b(?:in|for|of|from|on|about)\s+{_EDGE_L}(?P<repo>{_TOKEN}){_EDGE_R}", re.IGNORECASE)
_ZH_AFTER = re.compile(rf"(?:在|关于)?\s*{_EDGE_L}(?P<repo>{_TOKEN}){_EDGE_R}\s*(?:的|里|中)(?!周|文)")
_ZH_BEFORE = re.compile(rf"(?:在|关于)\s*{_EDGE_L}(?P<repo>{_TOKEN}){_EDGE_R}")
_MIN_CHARS = 6
"""An unconfigured ``owner/name`` shorter than this (without the slash) is a word, not a repository."""
_BARE = re.compile(rf"{_EDGE_L}(?P<repo>{_TOKEN}){_EDGE_R}")


@dataclass(frozen=True)
class RepoMention:
    """A repository named in a message.

    Attributes:
        repo: the ``owner/name`` as written (trailing dots removed).
        known: it is one of the configured repositories (case-insensitive).
        rest: the message text without the mention (what the intents parse).
    """

    repo: str
    known: bool
    rest: str


def _clean(text: str) -> str:
    return " ".join(text.split())


def _looks_like_repo(repo: str, roots: Collection[str]) -> bool:
    owner = repo.split("/", 1)[0]
    return (len(repo) - 1 >= _MIN_CHARS and bool(re.search("[A-Za-z]", repo)) and owner.casefold() not in roots
            and not _FILE.search(repo))


_FILE = re.compile(r"\.[A-Za-z]{1,5}$")
"""A name ending in a file extension (``foo/bar.py``) is a path."""


def path_roots(rules: Rules) -> frozenset[str]:
    """Top directories named by a rules file's path globs (``vllm``, ``csrc``, ``tests``): in chat, an
    ``owner/name`` starting with one is a path, not a repository."""
    globs = [g for m in rules.modules for g in m.paths]
    for name in ("core_paths", "source_paths", "test_paths", "dependency_paths", "docs_paths", "ci_paths",
                 "security_paths"):
        globs.extend(getattr(rules, name))
    return frozenset(root.casefold() for root in (g.split("/", 1)[0] for g in globs if "/" in g)
                     if root and not any(c in root for c in "*?[{"))


def unknown_repo_card(repo: str, lang: str, configured: Sequence[str]) -> Card:
    """One line: ``repo`` (untrusted, as written) is not configured, and the ``configured``
    repositories (the first is the example)."""
    line = (Text(text=tr(lang, "card.repo.unknown.before")), Untrusted(text=repo),
            Text(text=tr(lang, "card.repo.unknown.after", repos=", ".join(configured), first=configured[0])))
    return Card(header=tr(lang, "card.repo.unknown.header"), lang=lang,
                blocks=(Section(role="error", lines=(line,)),),
                fallback="".join(t.text for t in line))


def find_repo_mention(text: str, *, configured: Collection[str],
                      path_roots: Collection[str] = ()) -> RepoMention | None:
    """The repository ``text`` names, if any (see the module docstring for the forms).

    Args:
        text: the message, platform mentions removed.
        configured: the configured ``owner/name`` repositories.
        path_roots: top directories of the configured repositories' rules globs (lower case); an
            unconfigured ``owner/name`` whose owner is one of them is a path, not a mention.

    Returns:
        None when no repository is named.
    """
    known = {r.casefold() for r in configured}
    roots = {r.casefold() for r in path_roots}
    for pattern in (_ZH_AFTER, _EN, _ZH_BEFORE, _BARE):
        for m in pattern.finditer(text):
            repo = m.group("repo").rstrip(".")
            is_known = repo.casefold() in known
            if pattern is _BARE and not is_known:
                continue
            if not is_known and not _looks_like_repo(repo, roots):
                continue
            rest = _clean(text[:m.start()] + " " + text[m.end():])
            if pattern is _ZH_AFTER:  # "本周 owner/name 的风险" -> "本周风险"
                rest = _clean(re.sub(r"\s+(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])\s+", "", rest))
            return RepoMention(repo=repo, known=is_known, rest=rest)
    return None
