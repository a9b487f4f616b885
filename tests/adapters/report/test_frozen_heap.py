"""adapters/report/pdf.py ``frozen_heap``: the heap that exists on entry is frozen (not scanned by the
collector) until the last open block exits, also when the block raises.

Kills the mutations: an inner block's exit unfreezing the outer's heap, and no unfreeze on an error
(everything allocated before a failed report would stay out of the collector for good).
"""

from __future__ import annotations

import gc

import pytest

from adapters.report.pdf import frozen_heap


def test_nested_blocks_unfreeze_at_the_outer_exit():
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        outer = gc.get_freeze_count()
        assert outer > 0
        with frozen_heap():
            assert gc.get_freeze_count() >= outer
        assert gc.get_freeze_count() >= outer  # the inner exit keeps the outer's objects frozen
    assert gc.get_freeze_count() == 0


def test_an_error_unfreezes():
    with pytest.raises(RuntimeError):
        with frozen_heap():
            assert gc.get_freeze_count() > 0
            raise RuntimeError("print failed")
    assert gc.get_freeze_count() == 0
