"""The shape of a model's answer: claims, each a sentence with the ids of the facts it rests on. Pure.

The LLM writer asks for :class:`DigestAnswer` (the digest's sentences) or :class:`SummaryAnswer`
(one key PR's sentence) through the server's structured output (``response_format`` of type
``json_schema``, strict: :func:`response_schema`), and reads every item with :func:`claim_of`,
one at a time, so that one malformed item costs that item only. A claim cites PR numbers
(``prs``) and fact-sheet ids (``facts``: ``labels.bugfix``, ``prs.52079.additions``,
``storylines.topic:kimi``, ``risks.bot-review-flag``; see :mod:`chatbot.prose_check.facts`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from chatbot.prose_check import Claim


class ClaimItem(BaseModel):
    """One sentence: its ``text``, the PR numbers it cites and the ids of the facts it rests on."""

    model_config = ConfigDict(extra="ignore")

    text: StrictStr
    prs: list[StrictInt] = []
    facts: list[StrictStr] | None = None


class StorylineItem(ClaimItem):
    """A storyline's sentence; ``id`` is the storyline's id in the fact sheet."""

    id: StrictStr


class DigestAnswer(BaseModel):
    """The digest's sentences: a headline, one per storyline, a trend paragraph, recommendations."""

    headline: ClaimItem
    storylines: list[StorylineItem]
    trend: ClaimItem
    recommendations: list[ClaimItem]


class SummaryAnswer(BaseModel):
    """One key PR's one-sentence summary."""

    summary: ClaimItem


def claim_of(obj: Any) -> Claim | None:
    """The :class:`~chatbot.prose_check.Claim` of one answer item, or None when it is not a
    ``{"text": string, "prs": [integers], "facts": [strings]}`` object (``facts`` may be absent)."""
    try:
        item = ClaimItem.model_validate(obj)
    except ValidationError:
        return None
    return Claim(item.text.strip(), tuple(item.prs), None if item.facts is None else tuple(item.facts))


def _strict(node: Any) -> Any:
    """A JSON schema in the strict form of structured outputs: every object closed
    (``additionalProperties: false``) with every property required, no ``default``/``title``."""
    if isinstance(node, list):
        return [_strict(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in ("default", "title")}
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    if "anyOf" in out:  # facts: a list of ids (the answer schema asks for one; the parser accepts none)
        arrays = [x for x in out["anyOf"] if x.get("type") == "array"]
        if arrays:
            out = {**{k: v for k, v in out.items() if k != "anyOf"}, **arrays[0]}
    return out


def response_schema(model: type[BaseModel], name: str) -> dict[str, Any]:
    """The ``json_schema`` member of ``response_format`` for ``model``: ``{"name", "strict": true, "schema"}``."""
    return {"name": name, "strict": True, "schema": _strict(model.model_json_schema())}


DIGEST_SCHEMA = response_schema(DigestAnswer, "digest_sentences")
"""``response_format.json_schema`` of the digest prose request."""
SUMMARY_SCHEMA = response_schema(SummaryAnswer, "pr_summary")
"""``response_format.json_schema`` of a key-PR summary request."""
