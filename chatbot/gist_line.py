"""How a PR's gist is shown beside its title, in one language. Pure.

A line or table row shows the title, then the gist only when the gist says something the title
does not: a gist taken from the title, or one that repeats it (case, punctuation and ``[Tag]``
prefixes aside), is not shown, so the title appears once (issue 17: 83 of 84 key-PR lines of the
W15..W20 goldens printed it twice). In a language other than English, a gist in the PR's own
(English) words is quoted and marked as the PR's words (``gist.quoted``: zh ``原文：“…”``), never
shown as a sentence of the digest; a model-written gist is already in the digest's language.
"""

from __future__ import annotations

import re

from chatbot.gist import clip_words, title_without_tags
from chatbot.i18n import tr
from chatbot.models import AnalyzedPR

_NON_WORD = re.compile(r"[\W_]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _norm(text: str) -> str:
    return _NON_WORD.sub(" ", text.casefold()).strip()


def repeats_title(gist: str, title: str) -> bool:
    """True when ``gist`` says no more than ``title``: equal to it, or contained in it, once case,
    punctuation and leading ``[Tag]`` prefixes are set aside (``"Support MiniCPM-V 4.6"`` of
    ``"[Model] Support MiniCPM-V 4.6"``)."""
    g = _norm(gist)
    return not g or g == _norm(title_without_tags(title)) or g in _norm(title)


def new_gist(p: AnalyzedPR) -> str:
    """``p.gist`` when it says more than the title (any language), else ``""``."""
    return "" if p.gist_source == "title" or repeats_title(p.gist, p.title) else p.gist


def shown_gist(p: AnalyzedPR, lang: str, limit: int = 0) -> str:
    """The gist to show after ``p``'s title in ``lang`` (plain, untrusted text: renderers escape
    it), or ``""`` when it would only repeat the title; cut at ``limit`` characters (0: whole)."""
    if not new_gist(p):
        return ""
    text = clip_words(p.gist, limit)
    if lang != "en" and p.gist_source != "model" and not _CJK.search(p.gist):
        return tr(lang, "gist.quoted", text=text)
    return text
