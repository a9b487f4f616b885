"""Filters a chat question puts on a week's PRs, from the entities it names (:mod:`chatbot.entities`):
a subject (modules or topics: any of them), labels (any), risk tags (any; or any risk at all) and
the words left over, read as an author of the week when one matches and otherwise ignored.

Authors match by login or display name (:func:`author_matches`): equal ignoring case, spaces and
punctuation; one containing the other (4+ characters); a login made of the name's first initial(s)
and its last name (``njhill`` is "Nick Hill"); or a close spelling (difflib ratio >= 0.85). In
the shared weeks the export's ``author.login`` is often the git name ("Nick Hill") while the
GitHub login appears in threads and the live source; the store keeps both, and both are matched.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from chatbot.entities import Entities
from chatbot.i18n import catalog_keys, tr
from chatbot.models import AnalyzedPR, PullRequest
from chatbot.module_names import ModuleIndex, squash

AUTHOR_RATIO = 0.85
"""Similarity (difflib ratio of the squashed spellings) a misspelt author name needs."""


class Filters(BaseModel):
    """What a question narrows a week's PRs to (all kinds must hold; any value within a kind)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    """Module ids and topic ids: a PR in any of the modules or whose title names any of the topics."""
    labels: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    risky: bool = False
    """Only PRs carrying a risk tag (any tag when ``tags`` is empty)."""
    words: tuple[str, ...] = ()
    """Words naming nothing else: an author of the week when they match one, else ignored."""

    @classmethod
    def of(cls, e: Entities, *, risky: bool = False) -> Filters:
        """The filters of a message's entities (``risky``: the question is about risks)."""
        return cls(modules=e.modules, topics=e.topics, labels=e.labels, tags=e.tags, risky=risky or e.risk or bool(e.tags),
                   words=e.words)

    def any(self) -> bool:
        """Whether anything narrows the PRs (words included)."""
        return bool(self.modules or self.topics or self.labels or self.tags or self.risky or self.words)


def people(prs: Iterable[PullRequest]) -> dict[str, str]:
    """Author login -> display name of stored PRs (the login itself when no name is stored)."""
    out: dict[str, str] = {}
    for p in prs:
        if p.author is not None:
            out.setdefault(p.author.login, p.author.name or p.author.login)
    return out


def author_matches(asked: str, login: str, name: str = "") -> bool:
    """Whether ``asked`` names the author ``login`` / ``name`` (see the module docstring)."""
    want = squash(asked)
    if len(want) < 3:
        return False
    for who in {login, name} - {""}:
        have = squash(who)
        if not have:
            continue
        if want == have or (len(want) >= 4 and (want in have or have in want)):
            return True
        parts = [squash(t) for t in who.split() if squash(t)]
        if len(parts) >= 2 and len(parts[-1]) >= 3 and want.endswith(parts[-1]) and want[0] == parts[0][0] \
                and len(want) - len(parts[-1]) <= 3:
            return True
        if difflib.SequenceMatcher(None, want, have).ratio() >= AUTHOR_RATIO:
            return True
    return False


def match_people(asked: str, authors: Iterable[str], names: Mapping[str, str]) -> list[str]:
    """The logins among ``authors`` that ``asked`` names: equal login or name (ignoring case) first,
    else every :func:`author_matches`; sorted."""
    pool = sorted(set(authors))
    want = asked.casefold()
    exact = [a for a in pool if a.casefold() == want or names.get(a, "").casefold() == want]
    return exact or [a for a in pool if author_matches(asked, a, names.get(a, ""))]


def resolve_words(f: Filters, prs: Sequence[AnalyzedPR], names: Mapping[str, str]) -> tuple[str | None, tuple[str, ...]]:
    """``(author, ignored)``: the one author the leftover words name (all of them together, else one
    word alone), and the words that named nobody."""
    if not f.words:
        return None, ()
    authors = {p.author for p in prs if p.author}
    together = match_people(" ".join(f.words), authors, names)
    if len(together) == 1:
        return together[0], ()
    for w in f.words:
        one = match_people(w, authors, names)
        if len(one) == 1:
            return one[0], tuple(x for x in f.words if x != w)
    return None, f.words


def keep(p: AnalyzedPR, f: Filters, index: ModuleIndex, author: str | None) -> bool:
    """Whether PR ``p`` passes the filters (``author``: the author the words named, if any)."""
    if (f.modules or f.topics) and not (any(m in p.modules for m in f.modules)
                                        or any(index.topic_in(t, p.title) for t in f.topics)):
        return False
    if f.labels and not any(lb in p.labels for lb in f.labels):
        return False
    if f.tags and not any(t in p.risk_tags or (t == "revert" and p.is_revert) for t in f.tags):
        return False
    if f.risky and not f.tags and not p.risk_tags:
        return False
    return author is None or p.author == author


def subject_names(f: Filters, index: ModuleIndex, lang: str) -> list[str]:
    """The display names of the filters' modules, topics and labels, in that order."""
    return [*(index.display(m, lang) for m in f.modules), *(index.topic_display(t, lang) for t in f.topics),
            *(label_display(lb, lang) for lb in f.labels)]


def label_display(label: str, lang: str) -> str:
    """A label's name in ``lang``: the catalog's ``label.<name>`` when it has one, else the rules' name."""
    key = f"label.{label}"
    return tr(lang, key) if key in catalog_keys(lang) else label
