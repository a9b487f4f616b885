"""The fact sheet a model may word, and its size in tokens. Pure.

Code builds the facts; a model only picks and words them. The fact sheet is a JSON object drawn
from a :class:`~chatbot.models.DigestText`: counts, module stats, storylines (with their rule-written
sentence), key PRs with their gists and stated results, risk items, review findings and the
rule-written recommendations. :func:`fit_fact_sheet` drops the least important entries (last key
PRs, then risk items, findings, modules) until the sheet fits ``max_input_tokens``.

Token estimate (no tokenizer download: tokenizer files cannot be fetched at run time here):
``ceil(ascii_chars / 4) + non_ascii_chars``. BPE tokenizers of current models (GPT-4o, Qwen,
DeepSeek, Llama 3) average about four English characters per token and at most one token per
CJK character, so the estimate errs on the high side for both; :data:`PROMPT_OVERHEAD` covers the
instructions and the chat template.
"""

from __future__ import annotations

import json
import math
from typing import Any

from chatbot.models import AnalyzedPR, DigestText

PROMPT_OVERHEAD = 600
"""Tokens reserved for the system prompt, the answer schema and the chat template."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ``ceil(ascii / 4) + non_ascii`` (see the module docstring)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def fact_sheet(d: DigestText) -> dict[str, Any]:
    """Every fact the model may use, as JSON-ready data (numbers exact, text untrusted PR text)."""
    by_num = {p.number: p for p in d.prs}
    return {
        "repo": d.repo,
        "week": d.week,
        "language": d.lang,
        "window": [d.start.date().isoformat(), d.end.date().isoformat()],
        "merged_prs": d.total_prs,
        "key_pr_count": len(d.key_prs),
        "labels": dict(list(d.label_counts.items())[:8]),
        "modules": [{"name": s.name, "prs": s.prs, "additions": s.additions, "deletions": s.deletions}
                    for s in d.module_stats[:10]],
        "storylines": [{"id": t.module, "name": t.name, "prs": list(t.prs), "rule_sentence": t.summary}
                       for t in d.themes],
        "key_prs": [_key_pr(d, p) for p in d.key_prs],
        "risks": [{"kind": r.kind, "prs": list(r.prs[:8]), "pr_count": len(r.prs), "detail": r.detail} for r in d.risks],
        "findings": [{"pr": f.pr, "bot": f.bot, "severity": f.severity, "path": f.path, "line": f.line, "quote": f.quote}
                     for p in sorted(d.prs, key=lambda x: (-x.importance, x.number)) for f in p.findings][:20],
        "recommendations": [{"text": r.text, "prs": list(r.prs)} for r in d.recommendations],
        "reverted": [{"pr": n, "reverted_by": by_num[n].reverted_by} for n in d.reverted if n in by_num],
    }


def _key_pr(d: DigestText, p: AnalyzedPR) -> dict[str, Any]:
    return {"number": p.number, "title": p.title, "gist": p.gist, "gist_from": p.gist_source, "results": list(p.results),
            "modules": [d.module_names.get(m, m) for m in p.modules[:3]], "importance": p.importance,
            "risks": list(p.risk_tags)}


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

    Drops, one at a time, the last key PR (keeping 5), then the last risk item, finding and module
    (keeping 3 each); returns the smallest form reached even when it still does not fit.
    """
    budget = max_input_tokens - PROMPT_OVERHEAD
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in sheet.items()}
    order = (("key_prs", 5), ("findings", 3), ("risks", 3), ("modules", 3), ("key_prs", 1), ("recommendations", 1))
    for key, keep in order:
        while estimate_tokens(sheet_text(out)) > budget and len(out[key]) > keep:
            out[key].pop()
    return out
