"""Markdown rendering of a :class:`~chatbot.models.DigestText` (Jinja2 template ``digest.md.j2``).

The template receives only the DigestText plus pure helpers (translation, escaping, number and list
formatting); every number in the output comes from the DigestText. Same DigestText, same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import timedelta
from functools import lru_cache
from typing import Any

import jinja2

from chatbot.gist import title_without_tags
from chatbot.gist_line import shown_gist
from chatbot.takeaways import takeaways
from chatbot.writer import model_slots, prose_note, sentence_mark
from chatbot.i18n import lines_text, tr
from chatbot.models import AnalyzedPR, DigestText
from chatbot.render.escape import md_code, md_text, md_url


_PR_REF = re.compile(r"(?<![&\w\[])#(\d+)\b")


@lru_cache(maxsize=1)
def markdown_env() -> jinja2.Environment:
    """The Jinja2 environment of every Markdown template (no autoescape: untrusted text goes
    through the ``md`` and ``code`` filters)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("chatbot", "render/templates"),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_text
    env.filters["code"] = md_code
    env.filters["url"] = md_url
    return env


class _Helpers:
    """Formatting helpers bound to one digest's language and PR table."""

    def __init__(self, digest: DigestText) -> None:
        self.lang = digest.lang
        self.digest = digest
        self.prs = {p.number: p for p in digest.prs}
        self.sep = tr(digest.lang, "sep")
        self.model_slots = model_slots(digest.prose)

    def t(self, key: str, **kw: Any) -> str:
        return tr(self.lang, key, **kw)

    def join(self, items: Iterable[str]) -> str:
        return self.sep.join(items)

    def count(self, name: str, n: int) -> str:
        return tr(self.lang, "paren", text=name, inner=n)

    def lines(self, a: int, d: int) -> str:
        return lines_text(a, d)

    def pr_ref(self, number: int) -> str:
        p = self.prs.get(number)
        url = md_url(p.url) if p else ""
        return f"[#{number}]({url})" if url else f"#{number}"

    def pr_refs(self, numbers: Sequence[int], limit: int = 0) -> str:
        shown = list(numbers[:limit] if limit else numbers)
        text = self.join(self.pr_ref(n) for n in shown)
        rest = len(numbers) - len(shown)
        if rest > 0:
            text += " " + tr(self.lang, "card.more", n=rest)
        return text

    def pr(self, number: int) -> AnalyzedPR | None:
        return self.prs.get(number)

    def linkify(self, text: str) -> str:
        """``text`` escaped for Markdown, each ``#1234`` of this digest's PRs made a link."""
        def link(m: re.Match[str]) -> str:
            n = int(m.group(1))
            return self.pr_ref(n) if n in self.prs else m.group(0)

        return _PR_REF.sub(link, md_text(text))

    @staticmethod
    def names_pr(text: str, number: int) -> bool:
        """True when ``text`` names ``#number``."""
        return any(int(m.group(1)) == number for m in _PR_REF.finditer(text))

    def gist(self, p: AnalyzedPR, limit: int = 0) -> str:
        """``p``'s gist as shown beside its title (:func:`chatbot.gist_line.shown_gist`), cut at ``limit``."""
        return shown_gist(p, self.lang, limit)

    @property
    def key_rest(self) -> list[AnalyzedPR]:
        """Key PRs that no storyline tells (say each thing once)."""
        told = {n for th in self.digest.themes for n in th.prs}
        return [p for p in self.digest.key_prs if p.number not in told]

    @property
    def key_gists(self) -> bool:
        """True when some key-PR row has a gist to show (else the table has no gist column)."""
        return any(self.gist(p) for p in self.key_rest)

    @staticmethod
    def short_title(p: AnalyzedPR) -> str:
        return title_without_tags(p.title)

    @property
    def key_in_highlights(self) -> int:
        return len(self.digest.key_prs) - len(self.key_rest)

    def counts(self, counts: dict[str, int], limit: int = 0) -> str:
        """``name (n), ...`` for the first ``limit`` entries of a count map (all when 0)."""
        items = list(counts.items())
        return self.join(self.count(md_text(k), v) for k, v in (items[:limit] if limit else items))

    def risk_counts(self, counts: dict[str, int], limit: int) -> str:
        return self.join(f"{self.t('risk.' + k)} ×{v}" for k, v in list(counts.items())[:limit])

    def names(self, items: Iterable[str]) -> str:
        return self.join(md_text(x) for x in items)

    def tag_names(self, tags: Iterable[str]) -> str:
        return self.join(self.t("risk." + x) for x in tags)

    def paths(self, items: Iterable[Any]) -> str:
        return self.join(f"{md_code(x.path)} ({x.prs})" for x in items)

    def people(self, items: Iterable[Any]) -> str:
        return self.join(f"{md_text(c.login)} {c.prs}" for c in items)

    @property
    def takeaways(self) -> tuple[str, ...]:
        return takeaways(self.digest)

    def prose_note(self, info: Any) -> str:
        return prose_note(self.lang, info)

    def mark(self, slot: str) -> str:
        """The model's mark after a sentence it wrote (see :func:`chatbot.writer.sentence_mark`)."""
        return sentence_mark(self.model_slots, slot)

    def directions(self, themes: Iterable[Any]) -> str:
        """Storyline names with their PR counts (the PRs are named in the highlights)."""
        return self.join(self.count(md_text(th.name), th.total) for th in themes)


def render_markdown(digest: DigestText) -> str:
    """The digest as a Markdown document in ``digest.lang``; untrusted text is escaped."""
    start = digest.start
    last_day = digest.end - timedelta(days=1)
    return markdown_env().get_template("digest.md.j2").render(
        d=digest, h=_Helpers(digest), first_day=f"{start:%Y-%m-%d}", last_day=f"{last_day:%Y-%m-%d}",
        week_label=f"{digest.week} ({start:%m-%d} – {last_day:%m-%d})",
    )
