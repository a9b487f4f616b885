"""Intent ``new_models``: the models a week added ("which new models were added this week?",
"本周新增了哪些模型"). A PR adds a model when its title says so — an adding verb ("add", "support",
"introduce", "enable", "implement", "new", 支持, 新增) and a ``model`` label from the rules (its
title prefix, e.g. ``[Model]``) — or when it adds lines to a model registry file (``registry.py``
among the files that give the rules' ``new-model`` label) with an adding verb in its title. The
changed files come from the stored history; without it the titles alone decide.
"""

from __future__ import annotations

import re
from typing import Literal

from chatbot.cards import Card
from chatbot.i18n import tr
from chatbot.intent import AnswerContext, Intent, ParseInput, QueryBase, WeekRef, compile_patterns
from chatbot.models import AnalyzedPR

REGISTRY_FILE = "registry.py"
"""The file name of a model registry (a new architecture is one more line in it)."""
_ADDS = re.compile(r"(?i)\b(?:add(?:s|ed|ing)?|support(?:s|ed|ing)?|introduc\w*|enabl\w*|implement\w*|new|initial)\b|支持|新增|添加")


class NewModelsQuery(QueryBase):
    """The models added in ``week``."""

    intent: Literal["new_models"] = "new_models"
    week: WeekRef = "current"


PATTERNS = {"en": (r"\bnew models?\b|\bmodels? (?:were |was |got )?(?:added|supported|landed)\b|\badded models?\b"
                   r"|\bnew (?:model )?architectures?\b|\bmodel support\b",),
            "zh": ("新模型|新增(?:了|的)?(?:哪些)?模型|新(?:的)?模型|模型支持|支持了?(?:哪些)?(?:新)?模型|加了(?:哪些)?模型",)}
_RX = compile_patterns(PATTERNS)


def parse(inp: ParseInput) -> NewModelsQuery | None:
    """The words of the patterns, with an optional week."""
    return NewModelsQuery(lang=inp.lang, week=inp.week) if _RX.search(inp.text) else None


def adds_model(p: AnalyzedPR, files: list[tuple[str, int, int]]) -> bool:
    """Whether PR ``p`` adds a model (see the module docstring); ``files``: (path, additions,
    deletions) of its changed files (empty without the history)."""
    if not _ADDS.search(p.title):
        return False
    if "model" in p.labels:
        return True
    return "new-model" in p.labels and any(path.rsplit("/", 1)[-1] == REGISTRY_FILE and add > dele for path, add, dele in files)


def answer(q: NewModelsQuery, ctx: AnswerContext) -> Card:
    """The week's PRs that add a model, by importance."""
    w = ctx.week_digest(q.week)
    if isinstance(w, Card):
        return w
    d = w.digest
    lang = d.lang
    files: dict[int, list[tuple[str, int, int]]] = {}
    if ctx.history is not None:
        files = {p.number: [(f.path, f.additions, f.deletions) for f in p.files] for p in ctx.history.merged_between(d.start, d.end)}
    prs = [p for p in d.prs if adds_model(p, files.get(p.number, []))]
    return ctx.filter_card(w, prs, tr(lang, "card.models.what"))


INTENT = Intent(name="new_models", query=NewModelsQuery, patterns=PATTERNS, parse=parse, answer=answer, takes_week=True,
                help_rank=39, help={"en": "new models [this week]: the models a week added", "zh": "新模型 [本周]：本周新增的模型"},
                before=("risk_tag",))
