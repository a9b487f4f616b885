"""The paraphrase set (tests/fixtures/paraphrases.yaml): questions maintainers ask, each with the
query it should read. Prints the share read right and pins it (issue 19: at least 90%); a change
that reads fewer of them right, or more without updating the pin, fails here. Parsing needs no
data: the shipped vLLM rules give the modules, topics and labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from chatbot.queries import parse
from chatbot.module_names import default_module_index

SET = Path(__file__).parent.parent / "fixtures" / "paraphrases.yaml"
UNDERSTOOD = 211
"""How many of the set read right today (the pin)."""


def _load() -> list[dict[str, Any]]:
    return yaml.safe_load(SET.read_text(encoding="utf-8"))


def _norm(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def misread(case: dict[str, Any]) -> str:
    """``""`` when the question reads as expected, else what differs."""
    q = parse(case["q"], modules=default_module_index())
    got = q.model_dump()
    diffs = [f"{k}={got.get(k, '<none>')!r} (want {v!r})" for k, v in case["expect"].items()
             if _norm(got.get(k, "<none>")) != _norm(v)]
    return "; ".join(diffs)


def test_the_set_is_large_and_bilingual():
    cases = _load()
    assert len(cases) >= 150
    zh = sum(1 for c in cases if any("\u4e00" <= ch <= "\u9fff" for ch in c["q"]))
    assert zh >= 45 and len({c["q"] for c in cases}) == len(cases)


def test_share_understood(capsys: pytest.CaptureFixture[str]) -> None:
    cases = _load()
    wrong = {c["q"]: d for c in cases if (d := misread(c))}
    ok = len(cases) - len(wrong)
    with capsys.disabled():
        print(f"\nparaphrase set: {ok}/{len(cases)} understood ({ok / len(cases):.1%})")
        for q, d in wrong.items():
            print(f"  MISREAD {q!r}: {d}")
    assert ok / len(cases) >= 0.90
    assert ok == UNDERSTOOD
