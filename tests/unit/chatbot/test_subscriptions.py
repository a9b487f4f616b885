"""Subscription keys (chatbot/subscriptions.py): repo and module trimmed, case-folded and inner
whitespace collapsed, so one subscription is one row however it is typed.

Kills the mutation of ``normalise`` to ``value.strip().casefold()`` (inner runs of spaces, tabs or
a no-break space kept): ``Spec  Decode`` and ``spec decode`` would be two subscriptions.
"""

from __future__ import annotations

import pytest

from chatbot.subscriptions import Subscription, normalise


@pytest.mark.parametrize("typed,key", [
    ("spec decode", "spec decode"),
    ("  Spec  Decode ", "spec decode"),       # outer and inner runs
    ("spec\tdecode", "spec decode"),          # a tab
    ("spec\u00a0decode", "spec decode"),      # a no-break space (pasted from a web page)
    ("Spec-Decode", "spec-decode"),           # a hyphen is not whitespace
    ("\n ROCm \n", "rocm"),
    ("   ", ""),
], ids=["plain", "runs", "tab", "nbsp", "hyphen", "newlines", "blank"])
def test_normalise(typed, key):
    assert normalise(typed) == key


def test_two_spellings_are_one_subscription():
    def sub(repo: str, module: str) -> Subscription:
        return Subscription(platform="slack", workspace="T1", kind="user", subscriber="U1", repo=repo, module=module)

    a, b = sub("vllm-project/vllm", "spec decode"), sub(" VLLM-Project/vLLM ", "Spec   Decode")
    assert (b.repo, b.module) == ("vllm-project/vllm", "spec decode")
    assert a == b and len({a, b}) == 1
