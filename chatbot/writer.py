"""The optional LLM writer: a model words the digest's facts, the validator keeps only true sentences.

Off by default; the digest is complete without it. :func:`write_prose` sends the fact sheet
(:mod:`chatbot.factsheet`, within ``max_input_tokens``) and asks for a JSON object::

    {"headline": {"text": "...", "prs": [41429]},
     "storylines": [{"id": "topic:deepseek-v4", "text": "...", "prs": [41946, 41263]}],
     "trend": {"text": "...", "prs": []},
     "recommendations": [{"text": "...", "prs": [42434]}]}

Each sentence goes through :func:`chatbot.prose_check.check_sentence`. When the answer is not
such a JSON object, or a sentence fails, the model is asked once more with the complaints; what
still fails is replaced by the rule-written text, and :class:`~chatbot.models.ProseInfo` records
it (renderers mark the digest "rule-written"). A model error (timeout, 429 past its retry, 500)
gives the rule-written digest, marked; no error text ever reaches the digest. Answers are cached
by (``digest:<repo>:<week>:<lang>``, hash of the fact sheet, model): a re-run costs 0 tokens. Failed
answers are cached too, whatever their checking does (negative results: what failed the check twice
is re-checked from the cache, not asked again until the facts or the model change); a model error
(timeout, refused, HTTP error) is remembered for :data:`OUTAGE_S` (one hour): a re-run within it
makes 0 calls (cached answers and rule text), a run after it asks again.

Budget: :func:`write_digest` gives the whole run a :class:`Budget` of wall-clock seconds; each call
gets the time left (the client also holds each request to its own ``timeout_s``), and once the
budget is spent, or after the first model error, nothing more is asked: a model that is down or
slow delays the digest by at most the budget, never stops it.

:func:`write_summaries` asks, per key PR, for one sentence worded from that PR's fact-sheet entry
(:func:`chatbot.factsheet.pr_entry`: title, extractive gist, stated results, modules, risks, review
findings) as ``{"summary": {"text": "...", "prs": [41946]}}``; the same validator checks it against
that entry (one retry with the complaints), the extractive gist stays otherwise. Each is cached by
(``pr:<repo>#<n>:<lang>``, hash of the entry, model): a re-run costs 0 tokens, a changed PR (new
hash) or another model costs one call again. :func:`write_digest` runs both and reports progress.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from chatbot.errors import ModelError
from chatbot.i18n import tr
from chatbot.factsheet import Fit, fact_sheet, fit_measured, pr_entry, sheet_text
from chatbot.answers import DIGEST_SCHEMA, SUMMARY_SCHEMA, claim_of
from chatbot.models import DigestText, Prose, ProseInfo, Recommendation, SentenceMark
from chatbot.ports import ModelAnswer, ModelClient, SummaryCache
from chatbot.prose_check import Claim, Facts, check_claim
from chatbot.prose_check.tokens import pr_refs

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You write the summary sentences of a weekly digest of merged pull requests. Use only the facts in "
    "the JSON fact sheet the user sends; do not add numbers, PR numbers, names or claims that are not in it. "
    "Write plain text, no Markdown, no mentions, no links. Write in the sheet's language (en: English, "
    "zh: Simplified Chinese). Every sentence is a claim: its text, the PR numbers it cites (prs) and the ids "
    "of the facts it rests on (facts): an item's id, or id.field (prs.46995.additions, modules.models.prs, "
    "labels.bugfix, risks.large-change.pr_count, authors.hmellor.prs), week.merged_prs, week.key_prs, "
    "week.first_day, week.last_day. Each number in a sentence must be the value of a fact it cites, about "
    "the thing named next to it. A storyline's sentence names only PRs of that storyline. Answer with one "
    "JSON object: {\"headline\": claim, \"storylines\": [claim with \"id\"] with one sentence per storyline "
    "id of the sheet, \"trend\": claim (a short module-trend paragraph), \"recommendations\": [claim] at "
    "most 4}, where a claim is {\"text\": string, \"prs\": [integers], \"facts\": [strings]}; leave a "
    "text empty rather than guess."
)


PR_SYSTEM_PROMPT = (
    "You write a one-sentence summary of one merged pull request for a weekly digest: what it does and, "
    "when the facts state one, its measured result. Use only the facts in the JSON the user sends; do not "
    "add numbers, PR numbers, names or claims that are not in it. Plain text, no Markdown, no mentions, no "
    "links, at most 200 characters, in the sheet's language (en: English, zh: Simplified Chinese). Answer "
    "with one JSON object: {\"summary\": {\"text\": string, \"prs\": [cited PR numbers], \"facts\": "
    "[ids of the facts it rests on, e.g. prs.46995.additions]}}."
)

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called after each model step (key-PR summaries, then the digest prose)."""


class Budget:
    """The wall-clock seconds one writer run may spend on model calls, and the calls and tokens spent.

    The clock starts at the first call (analysis and cache look-ups before it do not count).
    ``seconds`` None: no run limit (each request still has the client's ``timeout_s``).
    ``monotonic`` (seconds) is injected by tests.
    """

    def __init__(self, seconds: float | None = None, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._seconds = seconds
        self._deadline: float | None = None
        self.calls = 0
        self.failed: str | None = None
        """The message of the first call that failed (a server error, not a spent budget), else None."""
        self.tokens = 0
        """Prompt + completion tokens of the answers so far (as the server reports them)."""

    def stop(self) -> None:
        """Spend what is left: no further call is made."""
        self._seconds, self._deadline = 0.0, self._monotonic()

    def left(self) -> float | None:
        """Seconds left (None: unlimited; the full budget before the first call); 0 or less once spent."""
        if self._seconds is None:
            return None
        if self._deadline is None:
            return self._seconds
        return self._deadline - self._monotonic()

    def ask(self, client: ModelClient, system: str, user: str, schema: dict[str, Any] | None = None) -> ModelAnswer:
        """``client.complete(system, user, schema)`` within the time left, counted in :attr:`calls`.

        Raises:
            ModelError: the budget is spent (no call made), or the call failed.
        """
        if self._seconds is not None and self._deadline is None:
            self._deadline = self._monotonic() + self._seconds
        left = self.left()
        if left is not None and left <= 0:
            raise ModelError("the LLM writer's time budget is spent")
        self.calls += 1
        try:
            answer = (client.complete(system, user, schema) if left is None
                      else client.complete(system, user, schema, timeout_s=left))
        except ModelError as exc:
            self.failed = self.failed or exc.user_message
            raise
        self.tokens += answer.prompt_tokens + answer.completion_tokens
        return answer


MAX_RECOMMENDATIONS = 6
"""Recommendations at most once the model's are merged with the rule-written ones (the story issue's cap)."""


class _Checked:
    """A parsed answer: the kept sentences by slot, the slots whose sentence failed, the complaints."""

    def __init__(self) -> None:
        self.headline: str | None = None
        self.storylines: dict[str, str] = {}
        self.trend: str | None = None
        self.recommendations: list[Recommendation] = []
        self.failed: set[str] = set()
        """Slots the model wrote a sentence for that failed the checks (``recommendations.<i>`` by answer index)."""
        self.complaints: list[str] = []

    @property
    def kept(self) -> int:
        """Model sentences kept."""
        return (int(self.headline is not None) + len(self.storylines) + int(self.trend is not None)
                + len(self.recommendations))


def _check(text: str, d: DigestText, facts: Facts) -> _Checked:
    """The sentences of one digest answer that pass, slot by slot: a malformed slot (``storylines``
    a string or a number, an item that is not a claim object, an id that is not a storyline's)
    fails only itself, with a complaint; the other slots keep the model's text. Never raises."""
    out = _Checked()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        out.complaints.append(f"the answer is not valid JSON ({exc.msg} at character {exc.pos}); answer with one JSON object")
        return out
    if not isinstance(data, dict):
        out.complaints.append("the answer is not a JSON object")
        return out

    def keep(where: str, obj: Any, key: str, slot: str | None = None) -> Claim | None:
        if obj is None or (isinstance(obj, dict) and not str(obj.get("text") or "").strip()):
            return None  # left empty: the slot keeps its rule text, nothing failed
        claim = claim_of(obj)
        if claim is None:
            out.complaints.append(f"{where}: expected {{\"text\": string, \"prs\": [integers], \"facts\": [fact ids]}}")
            out.failed.add(key)
            return None
        faults = check_claim(claim, facts, slot)
        if faults:
            out.complaints.append(f"{where} ({claim.text[:80]!r}) " + "; ".join(faults))
            out.failed.add(key)
            return None
        return claim

    def items(key: str, shape: str) -> list[Any]:
        value = data.get(key)
        if value is None or isinstance(value, list):
            return value or []
        out.complaints.append(f"{key}: expected a list of {shape}, not {type(value).__name__}")
        return []

    headline = keep("headline", data.get("headline"), "headline")
    out.headline = headline.text if headline is not None else None
    ids = {t.module for t in d.themes}
    for i, item in enumerate(items("storylines", '{"id", "text", "prs", "facts"} objects')):
        sid = item.get("id") if isinstance(item, dict) else None
        if not isinstance(sid, str) or sid not in ids:
            out.complaints.append(f"storylines[{i}]: id {sid!r} is not a storyline of the sheet" if isinstance(item, dict)
                                  else f"storylines[{i}]: expected an object with the storyline's id")
            continue
        claim = keep(f"storylines[{i}]", item, f"storylines.{sid}", f"storylines.{sid}")
        if claim is not None:
            out.storylines[sid] = claim.text
    trend = keep("trend", data.get("trend"), "trend")
    out.trend = trend.text if trend is not None else None
    for i, item in enumerate(items("recommendations", "claim objects")[:MAX_RECOMMENDATIONS]):
        claim = keep(f"recommendations[{i}]", item, f"recommendations.{i}")
        if claim is not None:  # the PRs it lists, else the ones its text names
            prs = claim.prs or tuple(dict.fromkeys(n for n, _ in pr_refs(claim.text)))
            out.recommendations.append(Recommendation(text=claim.text, prs=prs))
    return out


def _merge(first: _Checked, second: _Checked) -> _Checked:
    """Per slot, the retry's sentence where it passed, else the first answer's; a slot fails only
    when no answer's sentence for it passed. Recommendations come whole from the answer with more kept."""
    out = _Checked()
    out.headline = second.headline or first.headline
    out.storylines = {**first.storylines, **second.storylines}
    out.trend = second.trend or first.trend
    recs = second if len(second.recommendations) >= len(first.recommendations) and (
        second.recommendations or any(k.startswith("recommendations.") for k in second.failed)) else first
    out.recommendations = recs.recommendations
    kept = {"headline"} if out.headline is not None else set()
    kept |= {f"storylines.{k}" for k in out.storylines} | ({"trend"} if out.trend is not None else set())
    out.failed = {k for k in first.failed | second.failed if k not in kept and not k.startswith("recommendations.")}
    out.failed |= {k for k in recs.failed if k.startswith("recommendations.")}
    out.complaints = second.complaints
    return out


def _covers(model: Sequence[Recommendation], rule: Recommendation) -> bool:
    """Whether a model recommendation already says what ``rule`` says: it names one of its PRs."""
    return any(set(m.prs) & set(rule.prs) for m in model)


def merge_recommendations(model: Sequence[Recommendation], rules: Sequence[Recommendation]) -> tuple[Recommendation, ...]:
    """The model's recommendations first, then the rule-written ones no model one covers (names a
    PR of), :data:`MAX_RECOMMENDATIONS` at most; the rule-written ones alone when the model gave none."""
    if not model:
        return tuple(rules)
    return (*model, *(r for r in rules if not _covers(model, r)))[:MAX_RECOMMENDATIONS]


def _marks(d: DigestText, c: _Checked, model: str, recs: Sequence[Recommendation]) -> tuple[SentenceMark, ...]:
    """Who wrote each sentence of the digest prose: ``headline``, ``storylines.<id>``, ``trend``, ``recommendations.<i>``."""
    def mark(slot: str, by_model: bool) -> SentenceMark:
        return SentenceMark(slot=slot, source="model" if by_model else "rules", model=model if by_model else "")

    out = [mark("headline", c.headline is not None)]
    out += [mark(f"storylines.{t.module}", t.module in c.storylines) for t in d.themes]
    if c.trend is not None or "trend" in c.failed:  # the rule digest has no trend paragraph of its own
        out.append(mark("trend", c.trend is not None))
    written = {r.text for r in c.recommendations}
    out += [mark(f"recommendations.{i}", r.text in written) for i, r in enumerate(recs)]
    return tuple(out)


def _apply(d: DigestText, c: _Checked, info: ProseInfo) -> DigestText:
    storylines = {**{t.module: t.summary for t in d.themes}, **c.storylines}
    recs = merge_recommendations(c.recommendations, d.recommendations)
    info = info.model_copy(update={"sentences": _marks(d, c, info.model, recs)})
    return Prose(headline=c.headline or d.headline, trend_text=c.trend or "", storylines=storylines,
                 recommendations=recs, info=info).apply(d)


def rule_written(d: DigestText, model: str) -> DigestText:
    """``d`` as it is, marked rule-written by ``model``'s run, every key-PR summary counted rule-written
    (what a writer run that failed as a whole leaves: no model sentence was kept or checked)."""
    return d.model_copy(update={"prose": ProseInfo(model=model, summaries_rules=len(d.key_prs))})


def write_prose(
    d: DigestText,
    client: ModelClient,
    *,
    max_input_tokens: int = 8000,
    cache: SummaryCache | None = None,
    monotonic: Callable[[], float] = time.monotonic,
    budget: Budget | None = None,
) -> DigestText:
    """The digest with model-written, validated sentences where they pass (see the module docstring).

    Never raises for model trouble: a :class:`~chatbot.errors.ModelError` or an unusable answer
    gives ``d`` with ``prose.source == "rules"``. ``monotonic`` (seconds) is injected by tests;
    ``budget`` bounds the calls (None: each call has only the client's own limit).
    """
    budget = budget if budget is not None else Budget(monotonic=monotonic)
    full = fact_sheet(d)
    # keyed by the whole sheet and the limit (the fitting is a function of both and of the model):
    # a cached answer is found before any token count is asked
    digest_hash = hashlib.sha256(f"{max_input_tokens}\n{sheet_text(full)}".encode()).hexdigest()
    subject = f"digest:{d.repo}:{d.week}:{d.lang}"
    facts = Facts.build(d)
    if cache is not None:
        hit = cache.get_summary(subject, digest_hash, client.model)
        if hit is not None and isinstance(hit.get("answer"), str):
            checked = _check(str(hit["answer"]), d, facts)
            if isinstance(hit.get("retry"), str):  # the same merge as when it was asked
                checked = _merge(checked, _check(str(hit["retry"]), d, facts))
            info = _info(checked, d, client.model, 0, 0, 0.0, cached=True)
            return _apply(d, checked, info)
    started = monotonic()
    text = sheet_text(_fit(full, max_input_tokens, client, budget).sheet)
    prompt_tokens = completion_tokens = 0
    answers: dict[str, object] = {}
    try:
        answer = budget.ask(client, SYSTEM_PROMPT, text, DIGEST_SCHEMA)
        prompt_tokens, completion_tokens = answer.prompt_tokens, answer.completion_tokens
        answers["answer"] = answer.text
        checked = _check(answer.text, d, facts)
        if checked.complaints:
            retry = budget.ask(client, SYSTEM_PROMPT, text + "\n\nYour previous answer had these faults; fix them:\n- "
                               + "\n- ".join(checked.complaints), DIGEST_SCHEMA)
            prompt_tokens += retry.prompt_tokens
            completion_tokens += retry.completion_tokens
            answers["retry"] = retry.text
            checked = _merge(checked, _check(retry.text, d, facts))
    except ModelError as exc:
        log.warning("LLM writer: %s; using the rule-written text", exc.user_message)
        checked = _Checked() if not answers else checked
        answers = {}  # a model error is not the model's verdict: asked again next run
    finally:
        # kept, failed, or unreadable by the checks (which then raise on): a re-run re-checks the
        # cached answers and asks nothing
        if cache is not None and answers:
            cache.put_summary(subject, digest_hash, client.model, answers, prompt_tokens, completion_tokens)
    seconds = round(monotonic() - started, 3)
    info = _info(checked, d, client.model, prompt_tokens, completion_tokens, seconds, cached=False)
    return _apply(d, checked, info)


def _fit(sheet: dict[str, Any], max_input_tokens: int, client: ModelClient, budget: Budget) -> Fit:
    """The sheet fitted to the model (:func:`chatbot.factsheet.fit_measured`), counted by the client's
    ``count_tokens`` (vLLM's ``/tokenize``) where it has one and time is left, else estimated; logged."""
    counter: Any = getattr(client, "count_tokens", None)
    left = budget.left()

    def measure(text: str) -> tuple[int, int | None] | None:
        got = counter(text) if left is None else counter(text, timeout_s=max(0.001, left))
        return None if got is None else (got.tokens, got.context)

    fit = fit_measured(sheet, max_input_tokens, measure if callable(counter) and (left is None or left > 0) else None)
    log.info("LLM writer: fact sheet %s tokens (%s), %s after fitting to %s; %d of %d key PRs", f"{fit.full:,}",
             "the server's count" if fit.measured else "estimated", f"{fit.tokens:,}", f"{fit.budget:,}",
             len(fit.sheet.get("key_prs", [])), len(sheet.get("key_prs", [])))
    return fit


def _info(c: _Checked, d: DigestText, model: str, pt: int, ct: int, seconds: float, *, cached: bool) -> ProseInfo:
    """``kept``: model sentences used; ``replaced``: model sentences that failed the checks (their
    slots keep the rule text); ``source``: rules (none kept), model (none failed) or mixed."""
    replaced = len(c.failed)
    source = "rules" if c.kept == 0 else ("model" if replaced == 0 else "mixed")
    return ProseInfo(source=source, model=model, kept=c.kept, replaced=replaced, prompt_tokens=pt,
                     completion_tokens=ct, seconds=seconds, cached=cached)


MARKER = "†"
"""The mark after each model-written sentence; the provenance line starts with it."""


def model_slots(info: ProseInfo | None) -> frozenset[str]:
    """Slots whose sentence the model wrote (``headline``, ``storylines.<id>``, ``trend``,
    ``recommendations.<i>``, ``prs.<n>``), for renderers to mark; empty without a writer run."""
    if info is None:
        return frozenset()
    return frozenset(m.slot for m in info.sentences if m.source == "model")


def sentence_mark(slots: frozenset[str], slot: str) -> str:
    """``" †"`` (:data:`MARKER`) when ``slot`` is in ``slots`` (:func:`model_slots`), else ``""``."""
    return f" {MARKER}" if slot in slots else ""


def prose_note(lang: str, info: ProseInfo) -> str:
    """The provenance line: how many sentences the model wrote (each marked with :data:`MARKER`),
    that their numbers and PR references were checked against the facts, and how many failed and
    were replaced by rule text; or that the text is rule-written."""
    written = info.kept + info.summaries
    if written == 0:
        return tr(lang, "prose.rules")
    return tr(lang, "prose.checked", marker=MARKER, n=written, model=info.model,
              m=info.replaced + info.summaries_failed)


def _summary_of(text: str, facts: Facts, number: int) -> tuple[str | None, list[str]]:
    """The validated sentence of a per-PR answer, or None with the complaints."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [f"the answer is not valid JSON ({exc.msg} at character {exc.pos}); answer with one JSON object"]
    claim = claim_of(data.get("summary")) if isinstance(data, dict) else None
    if claim is None:
        return None, ['expected {"summary": {"text": string, "prs": [integers], "facts": [fact ids]}}']
    faults = check_claim(claim, facts, f"prs.{number}")
    if faults:
        return None, [f"summary ({claim.text[:80]!r}) " + "; ".join(faults)]
    return claim.text, []


class SummaryStats:
    """Counts of one :func:`write_summaries` run: kept, rule-written (``failed`` of them because the
    model's sentence failed the checks twice), cached, tokens, seconds."""

    def __init__(self) -> None:
        self.kept = self.rules = self.cached = self.failed = self.prompt_tokens = self.completion_tokens = 0
        self.seconds = 0.0
        self.stopped = False
        """A model error (or the spent budget) stopped the run: nothing more was asked."""


def write_summaries(
    d: DigestText,
    client: ModelClient,
    *,
    cache: SummaryCache | None = None,
    monotonic: Callable[[], float] = time.monotonic,
    progress: Progress | None = None,
    total: int | None = None,
    budget: Budget | None = None,
) -> tuple[dict[int, str], SummaryStats]:
    """One validated model sentence per key PR (by PR number) and the run's counts (see the module docstring).

    A PR whose answer fails the check twice keeps its extractive gist (not in the result). After a
    :class:`~chatbot.errors.ModelError` no further PR is asked (all keep their gists): a server
    that is down costs one timeout, not one per PR. ``progress(done, total)`` is called after each
    PR (``total`` defaults to the number of key PRs). Tokens as the server reports them; seconds
    of ``monotonic``; ``budget`` bounds the calls. A PR whose answers failed the check twice is
    cached as such: the next run re-checks the cached answer and asks nothing.
    """
    budget = budget if budget is not None else Budget(monotonic=monotonic)
    out: dict[int, str] = {}
    stats = SummaryStats()
    count = total if total is not None else len(d.key_prs)
    started = monotonic()
    facts = Facts.build(d)
    for i, p in enumerate(d.key_prs, 1):
        entry = sheet_text(pr_entry(d, p))
        digest_hash = hashlib.sha256(entry.encode()).hexdigest()
        subject = f"pr:{d.repo}#{p.number}:{d.lang}"
        hit = cache.get_summary(subject, digest_hash, client.model) if cache is not None else None
        sentence: str | None = None
        if hit is not None and isinstance(hit.get("answer"), str):
            sentence, _ = _summary_of(str(hit["answer"]), facts, p.number)
            stats.cached += sentence is not None
            stats.failed += sentence is None  # a negative result: it failed the checks when asked
        elif not stats.stopped:
            kept_text: str | None = None
            pt = ct = 0
            try:
                answer = budget.ask(client, PR_SYSTEM_PROMPT, entry, SUMMARY_SCHEMA)
                pt, ct = answer.prompt_tokens, answer.completion_tokens
                stats.prompt_tokens += pt
                stats.completion_tokens += ct
                kept_text = answer.text
                sentence, complaints = _summary_of(answer.text, facts, p.number)
                if complaints:
                    kept_text = None  # the retry's answer is the one cached (a model error: none is)
                    retry = budget.ask(client, PR_SYSTEM_PROMPT, entry + "\n\nYour previous answer had these faults; "
                                       "fix them:\n- " + "\n- ".join(complaints), SUMMARY_SCHEMA)
                    stats.prompt_tokens += retry.prompt_tokens
                    stats.completion_tokens += retry.completion_tokens
                    pt, ct = pt + retry.prompt_tokens, ct + retry.completion_tokens
                    kept_text = retry.text
                    sentence, _ = _summary_of(retry.text, facts, p.number)
                    stats.failed += sentence is None
            except ModelError as exc:
                log.warning("LLM writer, summary of #%d: %s; keeping the extractive gists", p.number, exc.user_message)
                stats.stopped = True
            finally:  # kept, failed twice or unreadable by the checks: not asked again for this entry
                if cache is not None and kept_text is not None:
                    cache.put_summary(subject, digest_hash, client.model, {"answer": kept_text}, pt, ct)
        if sentence is None:
            stats.rules += 1
        else:
            stats.kept += 1
            out[p.number] = sentence
        if progress is not None:
            progress(i, count)
    stats.seconds = round(monotonic() - started, 3)
    return out, stats


def write_digest(
    d: DigestText,
    client: ModelClient,
    *,
    max_input_tokens: int = 8000,
    cache: SummaryCache | None = None,
    monotonic: Callable[[], float] = time.monotonic,
    progress: Progress | None = None,
    budget: Budget | None = None,
    now: Callable[[], datetime] | None = None,
) -> DigestText:
    """``d`` with model-written key-PR summaries (:func:`write_summaries`) and digest prose
    (:func:`write_prose`), each validated; ``prose`` counts both (calls, tokens and seconds summed,
    ``cached`` only when no model call was made). The digest prose is worded from the extractive
    facts, so its cache key does not depend on the summaries. Never raises for model trouble.

    ``budget``: the wall-clock seconds for all the run's calls, possibly shared with other runs (the
    weekly job's languages); None: only each request's own limit. After a model error in the
    summaries the prose is not asked either (its cached answer is still used). A failed call is
    cached as a negative result for :data:`OUTAGE_S` seconds of ``now`` (UTC; tests inject it): a
    re-run within them makes 0 calls.
    """
    budget = budget if budget is not None else Budget(monotonic=monotonic)
    calls_before = budget.calls
    total = len(d.key_prs) + 1
    at = (now or _utc_now)()
    since = _outage(cache, client.model, at)
    if since is not None:  # the server failed a moment ago: cached answers only, no call
        log.warning("LLM writer: %s failed %d s ago; cached answers and rule text only, retrying from %d s after it",
                    client.model, since, OUTAGE_S)
        budget.stop()
    summaries, stats = write_summaries(d, client, cache=cache, monotonic=monotonic, progress=progress, total=total,
                                       budget=budget)
    if stats.stopped:
        budget.stop()  # the server failed once: the prose comes from the cache or the rules
    written = write_prose(d, client, max_input_tokens=max_input_tokens, cache=cache, monotonic=monotonic, budget=budget)
    if progress is not None:
        progress(total, total)
    base = written.prose or ProseInfo()
    info = base.model_copy(update={
        "prompt_tokens": base.prompt_tokens + stats.prompt_tokens,
        "completion_tokens": base.completion_tokens + stats.completion_tokens,
        "seconds": round(base.seconds + stats.seconds, 3),
        "cached": base.cached and budget.calls == calls_before,
        "calls": budget.calls - calls_before,
        "summaries": stats.kept, "summaries_rules": stats.rules, "summaries_cached": stats.cached,
        "summaries_failed": stats.failed,
        "sentences": base.sentences + tuple(
            SentenceMark(slot=f"prs.{p.number}", source="model", model=client.model) if p.number in summaries
            else SentenceMark(slot=f"prs.{p.number}", source="rules") for p in d.key_prs),
    })
    if budget.failed is not None and since is None and cache is not None:
        cache.put_summary(_OUTAGE_SUBJECT, "", client.model, {"error": budget.failed, "at": at.isoformat()}, 0, 0)
    prose = Prose.of(written).model_copy(update={"info": info, "summaries": summaries})
    return prose.apply(d)


OUTAGE_S = 3600
"""Seconds a failed model call is remembered (a timeout, refusal or HTTP error; cached as a
negative result in the summary cache): a re-run within them asks nothing (0 calls) and uses the
cached answers and the rule text; after them the model is asked again."""
_OUTAGE_SUBJECT = "llm-outage"


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _outage(cache: SummaryCache | None, model: str, at: datetime) -> int | None:
    """Seconds since ``model`` last failed a call, when that is under :data:`OUTAGE_S`; else None."""
    hit = cache.get_summary(_OUTAGE_SUBJECT, "", model) if cache is not None else None
    if hit is None or not isinstance(hit.get("at"), str):
        return None
    try:
        failed_at = datetime.fromisoformat(str(hit["at"]))
    except ValueError:
        return None
    ago = (at - failed_at).total_seconds()
    return int(ago) if 0 <= ago < OUTAGE_S else None
