"""``DigestService.digest(repo, week)``: the one way every part of prhub gets a digest — chat
answers, the CLI, the report pages and the weekly job.

For a repository-week it reads the PRs from a source (a port: a function of repository and
week), analyses them once with the repository's rules and zone (:func:`chatbot.digest.analyze_week`)
and returns the language-neutral :class:`~chatbot.digest.Digest`; outputs write it in their
language at output time (:func:`chatbot.digest.write`). The one optional :data:`DigestStep` between
analysis and rendering (where a summariser goes) writes prose per language: the caller names the
languages it will output (``langs``), and the step's prose of each is kept with the analysis.
Analyses are cached per (repository, week, source version) — one digest per repository-week however
many languages are posted — and, with a ``ttl``, for that many seconds of the injected clock.
 One build per cache key at a time (single flight): concurrent misses of the same
repository-week wait for the one build and share it (issue 9, failure 5: a busy channel rebuilt
the same digest in every listener); other keys build meanwhile.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from chatbot.digest import Digest, WeekAnalysis, analyze_week, check_lang, write
from chatbot.models import DigestText, Prose, PullRequest
from chatbot.ports import Clock
from chatbot.risks import RISKS, RiskRegistry
from chatbot.rules import Rules
from chatbot.weeks import IsoWeek

WeekPrs = Callable[[str, IsoWeek], Sequence[PullRequest]]
"""``prs(repo, week)``: the PRs to analyse for a week — the week's PRs plus context (earlier PRs that
reverts and follow-up fixes may cite; e.g. the 7 days before the week from the store)."""

DigestStep = Callable[[DigestText], DigestText]
"""The optional step between analysis and rendering: takes the digest written in one language and
returns it with prose a validator has checked (the LLM writer, :func:`chatbot.writer.write_prose`).
Only its prose fields are kept (:class:`~chatbot.models.Prose`: headline, trend, storyline
sentences, recommendations, ``prose``); numbers and PR sets stay the analysis's."""


@dataclass
class _Entry:
    """A cached analysis: when it was built (for the ttl), the step's prose and the written texts by language."""

    at: datetime | None
    analysis: WeekAnalysis
    prose: dict[str, Prose] = field(default_factory=dict)
    texts: dict[str, DigestText] = field(default_factory=dict)


class DigestService:
    """Digests of any configured repository.

    Args:
        prs: the PR source (:data:`WeekPrs`).
        rules_for: the rules of a repository (its configured rules file, else the shipped rules).
        tz_for: the IANA zone of a repository's week windows.
        step: the optional :data:`DigestStep` (None: none).
        version: ``version(repo, week)``, a token that changes when the PRs the week's analysis reads
            change (e.g. the store's count and revisions of that window); cached analyses of other
            tokens are rebuilt (once: the single flight holds per token). None: PRs never change.
        clock: the clock ``ttl`` is measured on (required with ``ttl``).
        ttl: seconds an analysis is reused (None: until evicted).
        cache_size: analyses kept (least recently used evicted first).
        risks: the risk rules (default: the shipped registry).
    """

    def __init__(self, prs: WeekPrs, *, rules_for: Callable[[str], Rules], tz_for: Callable[[str], str],
                 step: DigestStep | None = None, version: Callable[[str, IsoWeek], str] | None = None,
                 clock: Clock | None = None, ttl: float | None = None, cache_size: int = 16,
                 risks: RiskRegistry = RISKS) -> None:
        if ttl is not None and clock is None:
            raise ValueError("DigestService: a ttl needs a clock")
        self._prs = prs
        self._rules_for = rules_for
        self._tz_for = tz_for
        self._step = step
        self._version = version
        self._clock = clock
        self._ttl = ttl
        self._size = cache_size
        self._risks = risks
        self._cache: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[tuple[str, str, str], threading.Lock] = {}
        self.analyses_built = 0
        """How many analyses were built (cache misses), for tests and metrics."""

    def rules(self, repo: str) -> Rules:
        """The rules ``repo`` is analysed with."""
        return self._rules_for(repo)

    def tz(self, repo: str) -> str:
        """The zone of ``repo``'s week windows."""
        return self._tz_for(repo)

    def _cached(self, key: tuple[str, str, str], now: datetime | None) -> _Entry | None:
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and (now is None or hit.at is None or (now - hit.at).total_seconds() < (self._ttl or 0)):
                self._cache.move_to_end(key)
                return hit
        return None

    def analysis(self, repo: str, week: IsoWeek) -> WeekAnalysis:
        """The language-neutral analysis of ``repo``'s ``week`` (cached; built once however many
        threads ask at the same time: the others wait for it).

        Raises:
            chatbot.errors.PrhubError: the source cannot answer, or a bad zone or rules (a waiting
                caller then tries the build itself).
        """
        return self._entry(repo, week).analysis

    def _entry(self, repo: str, week: IsoWeek) -> _Entry:
        """The cached analysis of ``repo``'s ``week`` with its prose and texts by language; see :meth:`analysis`."""
        key = (repo, str(week), self._version(repo, week) if self._version else "")
        now = self._clock.now() if self._clock is not None and self._ttl is not None else None
        hit = self._cached(key, now)
        if hit is not None:
            return hit
        with self._lock:
            flight = self._building.setdefault(key, threading.Lock())
        with flight:
            hit = self._cached(key, now)  # built by the flight this caller waited for
            if hit is not None:
                return hit
            try:
                wa = analyze_week(self._prs(repo, week), repo=repo, week=week, rules=self._rules_for(repo),
                                  tz=self._tz_for(repo), risks=self._risks)
                entry = _Entry(now, wa)
                with self._lock:
                    self.analyses_built += 1
                    self._cache[key] = entry
                    self._cache.move_to_end(key)
                    while len(self._cache) > self._size:
                        self._cache.popitem(last=False)
            finally:
                with self._lock:
                    if self._building.get(key) is flight:
                        del self._building[key]
        return entry

    def digest(self, repo: str, week: IsoWeek, *, langs: Iterable[str] = (), generated_at: datetime | None = None,
               skipped_records: int = 0) -> Digest:
        """The language-neutral digest of ``repo``'s ``week``; with a step, its prose written for
        each of ``langs`` (the languages the caller will output; each written once per analysis).

        Raises:
            chatbot.errors.InputError: a language of ``langs`` has no catalog; see also :meth:`analysis`.
        """
        langs = list(dict.fromkeys(langs))
        for lang in langs:
            check_lang(lang)
        return self._digest_of(self._entry(repo, week), langs, generated_at, skipped_records)

    def _digest_of(self, entry: _Entry, langs: list[str], generated_at: datetime | None,
                   skipped_records: int) -> Digest:
        """The digest of a cached analysis, with the step's prose of ``langs`` (written once each)."""
        wa, prose = entry.analysis, entry.prose
        d = Digest(wa, generated_at=generated_at, skipped_records=skipped_records)
        if self._step is None:
            return d
        for lang in langs:
            if lang not in prose:  # a race writes it twice, with the same result
                prose[lang] = Prose.of(self._step(write(d, lang)))
        return Digest(wa, generated_at=generated_at, skipped_records=skipped_records,
                      prose={lang: prose[lang] for lang in langs})

    def written(self, repo: str, week: IsoWeek, lang: str, *, generated_at: datetime | None = None) -> DigestText:
        """:meth:`digest` written in ``lang`` at once (chat answers, report pages); the text is written
        once per analysis and language and reused (it is frozen), ``generated_at`` set on a copy.

        Raises:
            chatbot.errors.InputError: ``lang`` has no catalog; see also :meth:`analysis`.
        """
        check_lang(lang)
        entry = self._entry(repo, week)
        text = entry.texts.get(lang)
        if text is None:  # once per analysis and language: writing W20 costs ~0.15 s CPU
            text = entry.texts[lang] = write(self._digest_of(entry, [lang], None, 0), lang)
        return text if generated_at is None else text.model_copy(update={"generated_at": generated_at})
