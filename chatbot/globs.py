"""Gitignore-style path globs, compiled to regular expressions.

Rules (after gitignore(5), without negation):

- A pattern with a slash at the start or in the middle (``vllm/v1/core/``, ``docs/**``,
  ``/setup.py``) is anchored at the repository root. A pattern with no slash, or only a
  trailing one (``*.md``, ``*mla*``, ``conftest.py``, ``rocm/``), matches a path component at
  any depth.
- A pattern that matches a directory matches every path below it; a trailing ``/`` matches
  directories only (``docs/`` does not match a file named ``docs``).
- ``*`` matches within one path component, ``?`` one character other than ``/``, ``[abc]`` a
  character class, ``**`` any number of components (``a/**/b``, ``**/x``, ``x/**``).

Matching is case-sensitive and on the full path as GitHub gives it (``vllm/v1/core/sched.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from chatbot.errors import RulesError


def _translate(body: str) -> str:
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "*":
            if body.startswith("**", i):
                before_ok = i == 0 or body[i - 1] == "/"
                after = i + 2
                if before_ok and after < n and body[after] == "/":
                    out.append("(?:[^/]*/)*")  # '**/' : zero or more directories
                    i = after + 1
                    continue
                if before_ok and after == n:
                    out.append(".*")  # trailing '/**' : everything below
                    i = after
                    continue
                out.append(".*")
                i = after
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = body.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                cls = body[i + 1 : j]
                if cls.startswith("!"):
                    cls = "^" + cls[1:]
                out.append("[" + cls.replace("\\", "\\\\") + "]")
                i = j + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def glob_to_regex(pattern: str) -> str:
    """Return a regex (source text, for ``re.fullmatch`` semantics via ``^...$``) for one glob.

    Raises:
        RulesError: empty pattern or one using negation (``!``), which rules express with excludes.
    """
    p = pattern.strip()
    if not p or p == "/":
        raise RulesError(f"empty path glob {pattern!r} in rules: remove it or give a path such as docs/**")
    if p.startswith("!"):
        raise RulesError(f"negated glob {pattern!r} in rules: list it under exclude instead")
    dir_only = p.endswith("/")
    if dir_only:
        p = p.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    body = _translate(p)
    prefix = "" if anchored else "(?:[^/]+/)*"
    suffix = "/.+" if dir_only else "(?:/.+)?"
    return f"^{prefix}{body}{suffix}$"


class PathMatcher:
    """A compiled set of include globs minus exclude globs.

    ``matches(path)`` is true when some include glob matches ``path`` and no exclude glob does.
    """

    __slots__ = ("_inc", "_exc", "includes", "excludes")

    def __init__(self, includes: Iterable[str], excludes: Iterable[str] = ()) -> None:
        self.includes = tuple(includes)
        self.excludes = tuple(excludes)
        self._inc = _compile(self.includes)
        self._exc = _compile(self.excludes)

    def matches(self, path: str) -> bool:
        """Whether ``path`` (a repository path, no leading slash) is selected."""
        if self._inc is None or self._inc.match(path) is None:
            return False
        return self._exc is None or self._exc.match(path) is None

    def __bool__(self) -> bool:
        return self._inc is not None


def _compile(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    if not globs:
        return None
    try:
        return re.compile("|".join(f"(?:{glob_to_regex(g)})" for g in globs))
    except re.error as exc:  # a malformed character class, for instance
        raise RulesError(f"invalid path glob in {list(globs)!r}: {exc}") from None


_WILD = re.compile(r"[*?\[]")


def _literal_components(pattern: str) -> tuple[str, ...] | None:
    """Leading wildcard-free components of an anchored glob (``vllm/v1/core/**`` -> vllm, v1,
    core); None for a glob that matches at any depth."""
    p = pattern.strip()
    dir_only = p.endswith("/")
    p = p.rstrip("/")
    if "/" not in p:
        return None  # unanchored: a name at any depth
    comps = p.lstrip("/").split("/")
    out: list[str] = []
    for i, c in enumerate(comps):
        if _WILD.search(c):
            break
        if i == len(comps) - 1 and not dir_only:
            break  # the last literal component may be a file name: keep it out of the key
        out.append(c)
    return tuple(out)


_WILD_TOKEN = re.compile(r"\*+|\?|\[[^\]/]*\]|\[")


def _longest_literal(pattern: str) -> str:
    """The longest run of a glob outside its wildcards and ``[...]`` classes (``*[-_.]tpu[-_.]*`` -> ``tpu``)."""
    runs = _WILD_TOKEN.split(pattern.strip().strip("/"))
    return max(runs, key=len) if runs else ""


class MultiPathMatcher:
    """Many include/exclude glob sets tested against one path.

    ``matching(path)`` returns the indexes of the sets that select ``path`` (an include glob
    matches and no exclude glob of the same set does), in set order. Anchored globs are indexed
    in a trie by their leading literal directories, so a path is only tested against the globs
    of the directories it is in; globs that float (match at any depth) are tested only when their
    longest literal run occurs in the path. Each candidate is then confirmed by its own regex.
    """

    __slots__ = ("_trie", "_floating")

    def __init__(self, sets: Iterable[tuple[Iterable[str], Iterable[str]]]) -> None:
        self._trie: dict[str, Any] = {}
        self._floating: list[tuple[str, re.Pattern[str], int, bool]] = []
        for index, (includes, excludes) in enumerate(sets):
            for glob, is_exclude in [(g, False) for g in includes] + [(g, True) for g in excludes]:
                try:
                    rx = re.compile(glob_to_regex(glob))
                except re.error as exc:
                    raise RulesError(f"invalid path glob {glob!r} in rules: {exc}") from None
                comps = _literal_components(glob)
                if comps:
                    node = self._trie
                    for c in comps:
                        node = node.setdefault(c, {})
                    node.setdefault("", []).append((rx, index, is_exclude))
                else:
                    self._floating.append((_longest_literal(glob), rx, index, is_exclude))

    def matching(self, path: str) -> tuple[int, ...]:
        """Indexes of the glob sets that select ``path``."""
        inc: set[int] = set()
        exc: set[int] = set()
        for lit, rx, index, is_exclude in self._floating:
            if lit in path and rx.match(path):
                (exc if is_exclude else inc).add(index)
        node: dict[str, Any] | None = self._trie
        for comp in path.split("/"):
            node = node.get(comp) if node is not None else None
            if node is None:
                break
            for rx, index, is_exclude in node.get("", ()):
                if rx.match(path):
                    (exc if is_exclude else inc).add(index)
        if exc:
            inc -= exc
        return tuple(sorted(inc))
