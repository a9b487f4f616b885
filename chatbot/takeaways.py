"""The week's three takeaways, before any count: what shipped, what to watch, what to do. Pure.

- shipped: the top three storylines, each with its PR count (the highlights name the PRs);
- watch: the first two risk observations (risk name and how many PRs);
- do: the first recommendation.
Only the recommendation names PRs, so the takeaways add one mention of a PR at most (say each thing
once: :data:`chatbot.risks.observations.NAMED_MAX`).
A digest without storylines, risks or recommendations has fewer bullets; the first bullet (or the
model-written headline, when the LLM writer's passed the validator) is the notification headline.
"""

from __future__ import annotations

from chatbot.i18n import tr
from chatbot.models import DigestText


def takeaways(d: DigestText) -> tuple[str, ...]:
    """Up to three plain-text bullets in ``d.lang`` (PR text inside is untrusted: renderers escape)."""
    lang = d.lang
    out: list[str] = []
    if d.themes:
        items = tr(lang, "sep").join(tr(lang, "take.theme", name=t.name, n=t.total) for t in d.themes[:3])
        out.append(tr(lang, "take.shipped", items=items))
    if d.risks:
        items = tr(lang, "take.risk_sep").join(
            tr(lang, "take.risk", name=tr(lang, f"risk.{r.kind}"), n=len(r.prs)) for r in d.risks[:2])
        out.append(tr(lang, "take.watch", items=items))
    if d.recommendations:
        out.append(tr(lang, "take.do", text=d.recommendations[0].text))
    return tuple(out)


def headline(d: DigestText) -> str:
    """The notification headline: the model's validated headline, else the first takeaway, else the count."""
    if d.headline:
        return d.headline
    first = takeaways(d)
    return first[0] if first else tr(d.lang, "sum.total", total=d.total_prs).replace("**", "")
