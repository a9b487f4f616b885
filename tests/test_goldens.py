"""Every output format of real weeks equals its golden file byte for byte (see :mod:`tests.goldens`).

Catches any change of digest output: a moved threshold, a reworded catalog entry, a reordered JSON
field, a card split at another block, a changed chart. An intended change is made only by
``python -m tests.goldens --update`` followed by a review of ``git diff tests/goldens``.
The ``../shared`` weeks skip cleanly without ``../shared``; the slower HTML/PDF reports of W15..W19
run with ``PRHUB_GOLDENS=all`` (and always in ``python -m tests.goldens --check``).
"""

from __future__ import annotations

import os

import pytest

from tests.goldens import all_goldens, diff, produce, read, shared_available

_ALL = os.environ.get("PRHUB_GOLDENS") == "all"


@pytest.mark.parametrize("golden", all_goldens(), ids=str)
def test_output_equals_golden(golden):
    if golden.needs_shared and not shared_available():
        pytest.skip("needs ../shared/data/vllm")
    if not golden.fast and not _ALL:
        pytest.skip("slow report golden: run with PRHUB_GOLDENS=all or python -m tests.goldens --check")
    expected = read(golden)
    actual = produce(golden)
    if expected != actual:
        pytest.fail(diff(golden, expected, actual), pytrace=False)


def test_goldens_are_written_for_every_case():
    """A golden deleted by mistake (or never written) fails here rather than silently skipping."""
    missing = [str(g) for g in all_goldens() if read(g) is None]
    assert missing == []
