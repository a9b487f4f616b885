"""Review findings: what review bots flagged at a high severity, quoted with path and line. Pure.

The severity markup of each bot comes from the rules' ``review_findings`` (see
:class:`chatbot.rules.FindingRule`; defaults: gemini-code-assist high/critical badges,
chatgpt-codex-connector P0/P1 badges, coderabbitai Major/Critical). A review-thread comment by
the rule's bot whose severity is in ``report`` is a finding unless the thread is known to be
resolved or outdated (the GitHub source knows; the threads export does not, so there every
thread counts). Review bodies by the bot are read too (no path then). One finding per thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chatbot.gist import clean_markdown, fit_sentences, inline_text
from chatbot.models import PullRequest, ReviewFinding
from chatbot.phrases import Phrase, phrase
from chatbot.rules import CompiledRules, FindingRule, RegexSet

QUOTE_MAX = 120
"""Characters at most of a finding's quote."""

_SEVERITY_RANK = {"critical": 0, "p0": 0, "high": 1, "major": 1, "p1": 1}


def severity_rank(severity: str) -> int:
    """0 for critical/P0, 1 for high/major/P1, 2 for any other severity (lower is more severe)."""
    return _SEVERITY_RANK.get(severity.casefold(), 2)


_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LAST_WORD = re.compile(r"\s*\S+$")
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s")


def is_nit(quote: str, nits: RegexSet | None) -> bool:
    """True when ``nits`` (the rules' ``review_nits``) matches the first sentence of ``quote``
    (a finding about style, formatting, typos or naming: not a risk)."""
    if nits is None or not quote:
        return False
    return nits.search(_FIRST_SENTENCE.split(quote, maxsplit=1)[0]) is not None


def _quote(body: str, rule: FindingRule) -> str:
    """The finding's words without its badge, as plain text, at most :data:`QUOTE_MAX` characters."""
    text = re.sub(rule.severity, "", _IMAGE.sub("", body), count=1)
    paras = []
    for block in re.split(r"\n\s*\n", clean_markdown(text)):
        lines = [inline_text(x) for x in block.split("\n")]
        para = " ".join(x for x in lines if x and re.search(r"[A-Za-z\u4e00-\u9fff]{2}", x))
        para = re.sub(r"^(?:⚠️\s*)?Potential issue\s*\|?\s*", "", re.sub(r"^[\s|*_:]+", "", para)).strip(" |")
        if para:
            paras.append(para)
    # A paragraph without an end mark is a bold title ("Guard against X") unless it is the last,
    # which then was cut off in the excerpt.
    done = [p if p.endswith((".", "!", "?", ":", ";", "…")) else f"{p}." for p in paras[:-1]]
    if paras:
        last = paras[-1]
        if not last.endswith((".", "!", "?", ":", ";", "…", ")", "`")):
            # cut off in the excerpt, maybe inside a word ("Adding req_id as a require"): drop the
            # last word, which may be a fragment, so a quote never ends mid-word
            last = _LAST_WORD.sub("", last).rstrip(" ,;:-")
            last = f"{last}…" if last else ""
        if last:
            done.append(last)
    prose = " ".join(done)
    return fit_sentences(prose, QUOTE_MAX) if prose else ""


def _match(rules: Iterable[FindingRule], login: str, body: str) -> tuple[FindingRule, re.Match[str]] | None:
    for rule in rules:
        if rule.bot.casefold() != login.casefold():
            continue
        m = re.search(rule.severity, body)
        if m and m.group("severity").casefold() in {r.casefold() for r in rule.report}:
            return rule, m
    return None


def review_findings(pr: PullRequest, rules: Iterable[FindingRule], nits: RegexSet | None = None
                    ) -> tuple[ReviewFinding, ...]:
    """The PR's bot findings at a reported severity: threads first (in order), then review bodies;
    a finding whose first sentence ``nits`` matches (:func:`is_nit`) is left out.

    Returns findings ordered by severity (critical/P0 first), then thread order; each has the bot's
    login, its severity as the bot writes it, the quote (≤ 120 characters, ending at a word), and
    the thread's path and line (None when GitHub gives no line, or for a review body).
    """
    rules = tuple(rules)
    found: list[tuple[int, int, ReviewFinding]] = []
    for i, t in enumerate(pr.review_threads):
        if not t.is_open:
            continue
        for c in t.comments or ():
            hit = _match(rules, c.author, c.body)
            if hit is None:
                continue
            rule, m = hit
            sev = m.group("severity")
            found.append((severity_rank(sev), i, ReviewFinding(
                pr=pr.number, bot=c.author, severity=sev, quote=_quote(c.body, rule), path=t.path, line=t.line)))
            break
    base = len(pr.review_threads)
    for j, r in enumerate(pr.reviews):
        hit = _match(rules, r.reviewer, r.body)
        if hit is not None:
            rule, m = hit
            sev = m.group("severity")
            found.append((severity_rank(sev), base + j, ReviewFinding(
                pr=pr.number, bot=r.reviewer, severity=sev, quote=_quote(r.body, rule), path=None, line=None)))
    found.sort(key=lambda x: (x[0], x[1]))
    return tuple(f for _, _, f in found if not is_nit(f.quote, nits))



def risk_findings(pr: PullRequest, rules: CompiledRules) -> tuple[ReviewFinding, ...]:
    """The findings that are risks under ``rules``: :func:`review_findings` with the rules'
    ``review_findings`` and ``review_nits``, less those on a path under ``test_paths`` (a concern
    about a test's tolerance or coverage breaks nothing a user runs)."""
    return tuple(f for f in review_findings(pr, rules.rules.review_findings, rules.review_nits)
                 if not (f.path and rules.test.matches(f.path)))


def finding_phrase(f: ReviewFinding) -> Phrase:
    """A finding as a language-neutral phrase: bot, severity, ``path:line`` (path alone without a line), quote."""
    where = f"{f.path}:{f.line}" if f.path and f.line else (f.path or "-")
    key = "reason.bot_review_flag" if f.quote else "reason.bot_review_flag_bare"
    return phrase(key, reviewer=f.bot, severity=f.severity, where=where, quote=f.quote)
