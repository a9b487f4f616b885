"""Every fact of a digest a sentence may rest on, each with an id. Pure.

Ids are dotted paths; a sentence that cites an id cites every fact under it (``prs.46995`` cites
``prs.46995.additions``; ``labels`` cites every label count):

- ``week.merged_prs``, ``week.key_prs``, ``week.number``, ``week.year``, ``week.first_day`` and
  ``week.last_day`` (the window's inclusive first and last day), ``week.avg_importance``;
- ``labels.<name>.prs`` (PR count) and ``labels.<name>.share`` (percent of the week's PRs);
- ``modules.<id>.prs|additions|deletions|net``; ``storylines.<id>`` (its PRs and the numbers of
  its rule sentence); ``risks.<kind>`` (``.pr_count`` and the numbers of its detail);
- ``authors.<login>.prs`` (the week's top authors); ``coauthors.ai_share|bot_share`` (percent);
- ``prs.<n>.additions|deletions|net|files|importance|merged|author`` and the numbers of its title,
  gist and stated results (``prs.<n>.text``) — for every PR of the week, key PR or not;
- the names the rules give labels, modules and topics (:attr:`~chatbot.models.DigestText.vocabulary`)
  and each PR's own (:meth:`Facts.belongs`), for the wrong-module-or-platform check.

``Facts.build`` reads a :class:`~chatbot.models.DigestText` (each PR's author login, display name
and co-authors: the people a sentence may name with it); given the raw
:class:`~chatbot.models.PullRequest` records too (``prhub check-prose`` has them, the writer does
not), PR texts gain their descriptions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from chatbot.i18n import langs, tr
from chatbot.models import DigestText, PullRequest
from chatbot.prose_check.tokens import PR_REF, numbers, versions

LINES, FILES, PRS, PERCENT, WEEK, SCORE, TEXT = "lines", "files", "prs", "percent", "week", "score", "text"


@dataclass(frozen=True)
class Fact:
    """One numeric fact: ``id``, ``kind`` (lines, files, prs, percent, week, score or text: a number
    written in a PR's or rule sentence's text, with that text's ``suffix``/``sign``/``unit``), ``value``."""

    id: str
    kind: str
    value: float
    suffix: str = ""
    sign: str = ""
    unit: str = ""


@dataclass(frozen=True)
class PRFacts:
    """What the checks know of one PR: its texts, people, relations and title direction."""

    number: int
    title: str
    texts: str
    people: frozenset[str]
    reverts: int | None
    reverted_by: int | None
    fixes: frozenset[int]
    versions: frozenset[str]
    groups: frozenset[str] = frozenset()
    """Its labels, modules and storyline topics as vocabulary ids (``labels.rocm``, ``modules.models``, ``topics.kimi``)."""


@dataclass
class Facts:
    """The facts of one digest (see the module docstring) and what the checks look up in them."""

    lang: str
    first_day: date
    last_day: date
    facts: dict[str, Fact] = field(default_factory=dict)
    prs: dict[int, PRFacts] = field(default_factory=dict)
    slots: dict[str, frozenset[int]] = field(default_factory=dict)
    """PRs a sentence in a slot may name: ``storylines.<id>``, ``risks.<kind>``, ``prs.<n>`` (its summary)."""
    subjects: list[tuple[re.Pattern[str], tuple[str, ...]]] = field(default_factory=list)
    """Words that name a subject (label, module, storyline, risk kind, author) and its id prefixes."""
    generic: list[tuple[re.Pattern[str], tuple[str, ...]]] = field(default_factory=list)
    """Words that name a week-level count (``key``/``重点``, ``merged``/``合并``) and its ids."""
    people: dict[str, re.Pattern[str]] = field(default_factory=dict)
    """A person's key (normalised login or name) and the pattern that finds them in text."""
    names: set[str] = field(default_factory=set)
    """Words of the week's label, module, storyline and risk names (casefolded): never a foreign identifier."""
    known_prs: frozenset[int] = frozenset()
    """PRs of the week and PRs they name (a revert's target, a "Fixes #N")."""
    entities: re.Pattern[str] | None = None
    """Any label, module or topic name of the rules (``ROCm``, ``Gemma4``, ``Rust 前端``), longest first."""
    entity_ids: dict[str, frozenset[str]] = field(default_factory=dict)
    """A name (folded: :func:`name_key`) and the vocabulary ids it names (``rocm``: a label, a module's alias, a topic)."""
    entity_rx: dict[str, re.Pattern[str]] = field(default_factory=dict)
    """A vocabulary id and the pattern of all its names: a PR whose texts have one belongs to it."""
    _titled: dict[str, frozenset[int]] = field(default_factory=dict)

    def belongs(self, number: int, ids: Iterable[str]) -> bool:
        """Whether PR ``number`` is in one of the labels, modules or topics ``ids``: one of its own, or one
        whose name its title, gist, stated results or description write."""
        p = self.prs.get(number)
        if p is None:
            return False
        return any(i in p.groups or ((rx := self.entity_rx.get(i)) is not None and rx.search(p.texts)) for i in ids)

    def titled(self, name: str) -> frozenset[int]:
        """PRs of the week whose title writes ``name`` (``[Tag]`` prefixes included; memoised)."""
        key = name_key(name)
        if key not in self._titled:
            rx = _written_rx([name])
            self._titled[key] = frozenset(p.number for p in self.prs.values() if rx.search(p.title))
        return self._titled[key]

    def under(self, prefixes: Iterable[str]) -> list[Fact]:
        """Facts whose id is one of ``prefixes`` or below one."""
        pre = tuple(prefixes)
        return [f for f in self.facts.values() if any(f.id == p or f.id.startswith(p + ".") for p in pre)]

    @classmethod
    def build(cls, d: DigestText, raw: Sequence[PullRequest] = ()) -> Facts:
        """The facts of ``d`` (and of the raw records of its PRs, when given)."""
        first = d.start.date()
        last = (d.end - timedelta(days=1)).date()
        out = cls(lang=d.lang, first_day=first, last_day=last)
        iso = d.week.split("-W")
        add = out._add
        add("week.merged_prs", PRS, d.total_prs)
        add("week.key_prs", PRS, len(d.key_prs))
        if len(iso) == 2 and iso[1].isdigit():
            add("week.number", WEEK, int(iso[1]))
            add("week.year", TEXT, int(iso[0]))
        add("week.avg_importance", SCORE, d.avg_importance)
        total = max(d.total_prs, 1)
        for name, n in d.label_counts.items():
            add(f"labels.{name}.prs", PRS, n)
            add(f"labels.{name}.share", PERCENT, 100.0 * n / total)
            out._subject((name,), f"labels.{name}")
        for s in d.module_stats:
            add(f"modules.{s.module}.prs", PRS, s.prs)
            add(f"modules.{s.module}.additions", LINES, s.additions)
            add(f"modules.{s.module}.deletions", LINES, s.deletions)
            add(f"modules.{s.module}.net", LINES, abs(s.additions - s.deletions))
            out._subject((s.module, s.name, d.module_names.get(s.module, s.name)), f"modules.{s.module}")
        for mod, n in d.module_counts.items():
            if f"modules.{mod}.prs" not in out.facts:
                add(f"modules.{mod}.prs", PRS, n)
                out._subject((mod, d.module_names.get(mod, mod)), f"modules.{mod}")
        by_num = {p.number: p for p in d.prs}
        for t in d.themes:
            sid = f"storylines.{t.module}"
            out._texts(sid, t.summary)
            members = set(t.prs) | {p.number for p in d.prs if p.primary_module == t.module}
            out.slots[sid] = frozenset(members)
            out._subject((t.name,), sid, *((f"modules.{t.module}",) if f"modules.{t.module}.prs" in out.facts else ()))
        for i, r in enumerate(d.risks):  # a kind may have several items (one per review finding)
            rid = f"risks.{r.kind}"
            if rid not in out.slots:
                add(f"{rid}.pr_count", PRS, d.risk_tag_counts.get(r.kind, len(r.prs)))
            out._texts(f"{rid}.item{i}", r.detail)
            out.slots[rid] = out.slots.get(rid, frozenset()) | frozenset(r.prs)
            out._subject((r.kind, *(tr(lang, "risk." + r.kind) for lang in langs())), rid)
        for c in d.contributors[:20]:
            key = person_key(c.login)
            add(f"authors.{key}.prs", PRS, c.prs)
            out._subject((c.login,), f"authors.{key}", person=True)
        add("coauthors.ai_share", PERCENT, 100.0 * d.ai_coauthor_share)
        add("coauthors.bot_share", PERCENT, 100.0 * d.bot_coauthor_share)
        topics = {p: f"topics.{t.module.removeprefix('topic:')}" for t in d.themes if t.module.startswith("topic:")
                  for p in t.prs}
        out._vocabulary(d.vocabulary)
        raw_by = {p.number: p for p in raw}
        for p in d.prs:
            pid = f"prs.{p.number}"
            add(f"{pid}.additions", LINES, p.additions)
            add(f"{pid}.deletions", LINES, p.deletions)
            add(f"{pid}.net", LINES, abs(p.additions - p.deletions))
            add(f"{pid}.files", FILES, p.changed_files)
            add(f"{pid}.importance", SCORE, p.importance)
            rp = raw_by.get(p.number)
            body = rp.body if rp is not None else ""
            text = " ".join((p.title, p.gist, *p.results))
            out._texts(pid, text)
            names = [p.author, p.author_name, *p.co_authors]
            if rp is not None and rp.author is not None:
                names += [rp.author.login, rp.author.name or ""]
            names += list(rp.co_authors) if rp is not None else []
            people = frozenset(person_key(x) for x in names if person_key(x))
            for x in names:
                if x and not x.endswith("[bot]"):
                    out._person(x)
            named = {int(n) for n in PR_REF.findall(f"{p.title} {p.gist}")}
            fixes = {n for n in named if n in by_num and p.number in by_num[n].fixed_by}
            fixes |= {q.number for q in d.prs if p.number in q.fixed_by}
            if re.search(r"\bfix", p.title, re.IGNORECASE):
                fixes |= named
            out.prs[p.number] = PRFacts(number=p.number, title=p.title, texts=f"{text} {body}", people=people,
                                        reverts=p.reverts, reverted_by=p.reverted_by, fixes=frozenset(fixes),
                                        versions=frozenset(versions(f"{text} {body}")),
                                        groups=frozenset({*(f"labels.{x}" for x in p.labels),
                                                          *(f"modules.{x}" for x in p.modules),
                                                          *((topics[p.number],) if p.number in topics else ())}))
            out.slots[pid] = frozenset({p.number, *named, *(n for n in (p.reverts, p.reverted_by) if n)})
        named_all = {int(n) for p in d.prs for n in PR_REF.findall(f"{p.title} {p.gist}")}
        out.known_prs = frozenset(by_num) | named_all | {p.reverted_by for p in d.prs if p.reverted_by}
        out._generic((r"重点|key\b", r"关键"), "week.key_prs")
        out._generic((r"合并|merged|in total|总计|共计|本周共",), "week.merged_prs")
        return out

    def _add(self, fid: str, kind: str, value: float) -> None:
        self.facts[fid] = Fact(fid, kind, float(value))

    def _texts(self, prefix: str, text: str) -> None:
        for i, n in enumerate(numbers(text)):
            value = n.value
            self.facts[f"{prefix}.text{i}"] = Fact(f"{prefix}.text{i}", TEXT, value, n.suffix, n.sign, n.unit)

    def _subject(self, names: Iterable[str], *ids: str, person: bool = False) -> None:
        for name in dict.fromkeys(x for x in names if x and len(x.strip()) >= 2):
            if not person:
                self.names.update(w.casefold() for w in re.findall(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*", name))
                self.names.update(w.casefold() for w in re.findall(r"[A-Za-z0-9_]+", name))
            rx = _person_rx(name) if person else _name_rx(name)
            self.subjects.append((rx, ids))
        if person:
            for name in names:
                self._person(name)

    def _vocabulary(self, vocabulary: dict[str, tuple[str, ...]]) -> None:
        """:attr:`entities`, :attr:`entity_ids` and :attr:`entity_rx` from a digest's vocabulary
        (names of 2 characters or more, not only digits)."""
        ids: dict[str, set[str]] = {}
        spelling: dict[str, str] = {}
        for vid, names in vocabulary.items():
            usable = [x.strip() for x in names if len(x.strip()) >= 2 and not x.strip().isdigit()]
            if usable:
                self.entity_rx[vid] = _written_rx(usable)
            for x in usable:
                ids.setdefault(name_key(x), set()).add(vid)
                spelling.setdefault(name_key(x), x)
        self.entity_ids = {k: frozenset(v) for k, v in ids.items()}
        if spelling:
            alts = sorted(spelling.values(), key=lambda x: (-len(name_key(x)), x))
            self.entities = re.compile(r"(?<![A-Za-z0-9_\-/])(?:" + "|".join(r"\s*".join(re.escape(w) for w in x.split())
                                                                        for x in alts) + r")(?![A-Za-z0-9_\-])",
                                       re.IGNORECASE)

    def _generic(self, words: Iterable[str], *ids: str) -> None:
        for w in words:
            self.generic.append((re.compile(w, re.IGNORECASE), ids))

    def _person(self, name: str) -> None:
        key = person_key(name)
        if len(key) >= 4 and key not in self.people:
            self.people[key] = _person_rx(name)


def name_key(name: str) -> str:
    """A label, module or topic name folded for look-up: lower case, spaces dropped (``Rust 前端`` = ``rust前端``)."""
    return "".join(name.casefold().split())


def person_key(name: str) -> str:
    """A person's name or login folded for comparison: lower case, letters and digits only
    (``Bugen Zhao`` and ``BugenZhao`` are one person)."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def _name_rx(name: str) -> re.Pattern[str]:
    """A label, module or risk name in text: case-insensitive, spaces optional, not inside a longer ASCII word."""
    parts = [re.escape(x) for x in name.split()]
    return re.compile(r"(?<![A-Za-z0-9_\-/])" + r"\s*".join(parts) + r"(?![A-Za-z0-9_\-])", re.IGNORECASE)


def _written_rx(names: Iterable[str]) -> re.Pattern[str]:
    """Any of ``names`` written in a PR's own text: case-insensitive, spaces optional, a plural ``s``
    allowed, not after a letter or digit and not before a lower-case letter (``Gemma4ToolParser``
    and ``[ROCm]`` write Gemma4 and ROCm, ``output`` does not write TPU)."""
    alts = "|".join(r"\s*".join(re.escape(w) for w in x.split()) for x in names)
    return re.compile(r"(?<![A-Za-z0-9])(?i:" + alts + r")(?:s|es)?(?![a-z])")


def _person_rx(name: str) -> re.Pattern[str]:
    parts = [re.escape(x) for x in re.split(r"[\s_.\-]+", name.strip()) if x]
    return re.compile(r"(?<![A-Za-z0-9_])" + r"[\s_.\-]?".join(parts) + r"(?![A-Za-z0-9_])", re.IGNORECASE)
