"""The fact sheet a model may word, and its size in tokens. Pure.

Code builds the facts; a model only picks and words them. The fact sheet is a JSON object drawn
from a :class:`~chatbot.models.DigestText`, every fact with an id (:func:`fact_sheet`): counts, label
shares, module stats, top authors, storylines (with their rule-written sentence), key PRs (lines,
files, author login and display name, co-authors, merge day, gist, stated results), risk items, review findings and the rule-written
recommendations. :func:`fit_fact_sheet` drops the least important entries (last key
PRs, then risk items, findings, modules) until the sheet fits ``max_input_tokens``.

Measured where the server can count: :func:`fit_measured` asks a counter (vLLM's ``POST
/tokenize``, the model's own tokenizer) for the sheet's real size, trims with the estimate scaled
by the measured ratio, and counts again (at most :data:`MEASURES` counts), so the sheet fits the
model's context whatever its tokenizer.

Otherwise an estimate (no tokenizer download: tokenizer files cannot be fetched at run time here):
``ceil(SAFETY * (ceil(ascii_chars / 4) + non_ascii_chars))``. Four ASCII characters and one CJK
character per token is the average of large-vocabulary BPE tokenizers (GPT-4o, Qwen, DeepSeek,
Llama 3) on prose, but a fact sheet is JSON (quotes, braces, PR numbers, paths), and small-vocabulary
tokenizers split it finer: SmolLM2-135M counted 8,468 tokens for a prompt this formula put 43%
lower (issue 18), so :data:`SAFETY` is that measured ratio, rounded up. :data:`PROMPT_OVERHEAD`
covers the instructions and the chat template.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from chatbot.models import AnalyzedPR, DigestText
from chatbot.prose_check.facts import person_key

PROMPT_OVERHEAD = 600
"""Tokens reserved for the system prompt, the answer schema and the chat template."""

SAFETY = 1.5
"""The estimate's factor over ``ceil(ascii/4) + non_ascii``: SmolLM2's tokenizer counted 1.43x that on
a fact-sheet prompt (issue 18's measurement), rounded up."""

ANSWER_RESERVE = 1024
"""Tokens of a model's context kept free for its answer when the server states the context length."""

MEASURES = 3
"""Most token counts :func:`fit_measured` asks for one sheet."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ``ceil(SAFETY * (ceil(ascii / 4) + non_ascii))`` (see the module docstring)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(SAFETY * (math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)))


def fact_sheet(d: DigestText) -> dict[str, Any]:
    """Every fact the model may use, as JSON-ready data (numbers exact, text untrusted PR text).

    Every fact has an id (:mod:`chatbot.prose_check.facts`, the ids the validator binds claims to):
    an item's ``id`` plus a field name (``prs.46995.additions``, ``modules.models.prs``,
    ``risks.large-change.pr_count``, ``authors.hmellor.prs``), a label's ``labels.<name>`` (its
    count; ``.share`` its percent of the week's PRs), and the week's ``week.<key>`` (``merged_prs``,
    ``key_prs``, ``first_day``, ``last_day``: the window's inclusive first and last day).
    """
    by_num = {p.number: p for p in d.prs}
    total = max(d.total_prs, 1)
    first, last = d.start.date(), (d.end - timedelta(days=1)).date()
    return {
        "repo": d.repo,
        "week": d.week,
        "language": d.lang,
        "window": {"first_day": first.isoformat(), "last_day": last.isoformat()},
        "merged_prs": d.total_prs,
        "key_pr_count": len(d.key_prs),
        "labels": [{"id": f"labels.{k}", "prs": v, "share": round(100.0 * v / total, 1)}
                   for k, v in list(d.label_counts.items())[:8]],
        "modules": [{"id": f"modules.{s.module}", "name": s.name, "prs": s.prs, "additions": s.additions,
                     "deletions": s.deletions} for s in d.module_stats[:10]],
        "authors": [{"id": f"authors.{person_key(c.login)}", "login": c.login, "prs": c.prs} for c in d.contributors[:8]],
        "storylines": [{"id": t.module, "fact": f"storylines.{t.module}", "name": t.name, "prs": list(t.prs),
                        "rule_sentence": t.summary} for t in d.themes],
        "key_prs": [_key_pr(d, p) for p in d.key_prs],
        "storyline_prs": [_story_pr(by_num[n]) for n in _story_only(d) if n in by_num],
        "risks": [{"id": f"risks.{r.kind}", "kind": r.kind, "prs": list(r.prs[:8]),
                   "pr_count": d.risk_tag_counts.get(r.kind, len(r.prs)), "detail": r.detail} for r in d.risks],
        "findings": [{"pr": f.pr, "bot": f.bot, "severity": f.severity, "path": f.path, "line": f.line, "quote": f.quote}
                     for p in sorted(d.prs, key=lambda x: (-x.importance, x.number)) for f in p.findings][:20],
        "recommendations": [{"text": r.text, "prs": list(r.prs)} for r in d.recommendations],
        "reverted": [{"pr": n, "reverted_by": by_num[n].reverted_by} for n in d.reverted if n in by_num],
    }


def _key_pr(d: DigestText, p: AnalyzedPR) -> dict[str, Any]:
    return {"id": f"prs.{p.number}", "number": p.number, "title": p.title, "author": p.author,
            "author_name": p.author_name, "co_authors": list(p.co_authors),
            "merged": p.merged_at.date().isoformat(), "additions": p.additions, "deletions": p.deletions,
            "files": p.changed_files, "gist": p.gist, "gist_from": p.gist_source, "results": list(p.results),
            "modules": [d.module_names.get(m, m) for m in p.modules[:3]], "importance": p.importance,
            "risks": list(p.risk_tags)}


def _story_only(d: DigestText) -> list[int]:
    """PRs a storyline cites that are not key PRs (storylines come from the whole week), in storyline order."""
    key = {p.number for p in d.key_prs}
    return list(dict.fromkeys(n for t in d.themes for n in t.prs if n not in key))


def _story_pr(p: AnalyzedPR) -> dict[str, Any]:
    """A storyline PR that is no key PR: what a storyline sentence may say of it (title, people, gist, results)."""
    return {"id": f"prs.{p.number}", "number": p.number, "title": p.title, "author": p.author,
            "author_name": p.author_name, "co_authors": list(p.co_authors), "gist": p.gist, "results": list(p.results)}


def pr_entry(d: DigestText, p: AnalyzedPR) -> dict[str, Any]:
    """One key PR's facts for its one-sentence summary: its fact-sheet entry (title, extractive gist,
    stated results, modules, importance, risk tags) plus the language, its revert/fix links and
    its review findings (at most 5). Everything a changed PR changes is in it (its content hash
    keys the summary cache)."""
    return {"language": d.lang, **_key_pr(d, p), "reverted_by": p.reverted_by, "fixed_by": list(p.fixed_by),
            "findings": [{"bot": f.bot, "severity": f.severity, "path": f.path, "line": f.line, "quote": f.quote}
                         for f in p.findings[:5]]}


def sheet_text(sheet: dict[str, Any]) -> str:
    """The sheet as the compact JSON sent to the model (keys in insertion order, UTF-8 kept)."""
    return json.dumps(sheet, ensure_ascii=False, separators=(",", ":"))


def fit_fact_sheet(sheet: dict[str, Any], max_input_tokens: int) -> dict[str, Any]:
    """A copy of ``sheet`` whose text fits ``max_input_tokens - PROMPT_OVERHEAD`` estimated tokens.

    Drops, one at a time, the storyline PRs that are no key PRs, the last key PR (keeping 5), then the
    last finding, risk item and module (keeping 3 each), key PRs down to 1, recommendations down to 1
    and storylines down to 3; returns the smallest form reached even when it still does not fit.
    """
    return _trim(sheet, max_input_tokens - PROMPT_OVERHEAD, 1.0)


def _trim(sheet: dict[str, Any], budget: int, ratio: float) -> dict[str, Any]:
    """The trimming of :func:`fit_fact_sheet` until ``ratio * estimate_tokens(text) <= budget``."""
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in sheet.items()}
    order = (("storyline_prs", 0), ("key_prs", 5), ("findings", 3), ("risks", 3), ("modules", 3), ("key_prs", 1),
             ("recommendations", 1), ("storylines", 3))
    for key, keep in order:
        while ratio * estimate_tokens(sheet_text(out)) > budget and len(out.get(key, [])) > keep:
            out[key].pop()
    return out


class Fit:
    """A fitted sheet: ``sheet``, its ``tokens`` (``measured``: counted by the model's tokenizer, else
    estimated), the ``budget`` it was fitted to, and the ``full`` sheet's tokens (same measure)."""

    def __init__(self, sheet: dict[str, Any], tokens: int, measured: bool, budget: int, full: int) -> None:
        self.sheet, self.tokens, self.measured, self.budget, self.full = sheet, tokens, measured, budget, full


def fit_measured(sheet: dict[str, Any], max_input_tokens: int,
                 measure: Callable[[str], tuple[int, int | None] | None] | None = None) -> Fit:
    """``sheet`` trimmed to ``max_input_tokens - PROMPT_OVERHEAD`` tokens, measured by ``measure``
    (``text -> (tokens, context length or None)``, None when it cannot count) where it can.

    With a context length, the budget is also at most ``context - ANSWER_RESERVE - PROMPT_OVERHEAD``.
    Trims with the estimate scaled by the last measured ratio (real / estimate) and measures again,
    at most :data:`MEASURES` times, shrinking the target 10% after a miss; without a measure,
    :func:`fit_fact_sheet`.
    """
    budget = max_input_tokens - PROMPT_OVERHEAD
    text = sheet_text(sheet)
    got = measure(text) if measure is not None else None
    if measure is None or got is None:
        out = fit_fact_sheet(sheet, max_input_tokens)
        return Fit(out, estimate_tokens(sheet_text(out)), False, budget, estimate_tokens(text))
    tokens, context = got
    if context is not None:
        budget = max(1, min(budget, context - ANSWER_RESERVE - PROMPT_OVERHEAD))
    full, out, target = tokens, sheet, float(budget)
    for _ in range(MEASURES - 1):
        if tokens <= budget:
            break
        ratio = tokens / max(1, estimate_tokens(sheet_text(out)))
        out = _trim(sheet, int(target), ratio)
        again = measure(sheet_text(out))
        if again is None:
            return Fit(out, estimate_tokens(sheet_text(out)), False, budget, full)
        tokens = again[0]
        target *= 0.9
    return Fit(out, tokens, True, budget, full)
