"""A destination's outcome from its parts (scheduler/delivery.py ``DestinationOutcome``): ``sent``
only when every part is sent, ``failed`` when one failed, else ``skipped``.

Kills the mutation ``all(p.status == SENT ...)`` -> ``any(...)``: a three-part digest whose part 1
went out while parts 2-3 were left to another process (or could not be looked up) would be
reported ``sent``; every delivery test sends all parts or fails one, so none noticed.
"""

from __future__ import annotations

import pytest

from chatbot.deliveries import FAILED, SENT, DeliveryKey
from chatbot.ports import Destination
from scheduler.delivery import UNSENT_PREFIX, DestinationOutcome, PartOutcome

DEST = Destination(platform="slack", target="C_DIGEST")
SKIP = "skipped"
LOOKUP = f"{UNSENT_PREFIX}: ratelimited"


def _outcome(*parts: tuple[str, str | None]) -> DestinationOutcome:
    keys = [DeliveryKey("o/r", "2026-W20", "slack", "C_DIGEST", "digest", i + 1) for i in range(len(parts))]
    return DestinationOutcome(DEST, "digest", [PartOutcome(k, s, reason=r) for k, (s, r) in zip(keys, parts)])


@pytest.mark.parametrize("parts,status,unsent", [
    ([(SENT, None), (SENT, None), (SENT, None)], SENT, None),
    ([(SENT, None), (SENT, None), (SKIP, None)], SKIP, None),            # the last part is another process's
    ([(SENT, None), (SKIP, None), (SKIP, None)], SKIP, None),            # only part 1 went out
    ([(SENT, None), (SKIP, LOOKUP)], SKIP, LOOKUP),                      # part 2 could not be looked up
    ([(SENT, None), (FAILED, "channel_not_found")], FAILED, "channel_not_found"),
    ([(SKIP, None), (SENT, None)], SKIP, None),
    ([], SKIP, None),                                                    # nothing to send is not sent
], ids=["all-sent", "last-skipped", "only-first", "lookup-failed", "one-failed", "first-skipped", "no-parts"])
def test_a_destination_is_sent_only_when_every_part_is(parts, status, unsent):
    out = _outcome(*parts)
    assert (out.status, out.unsent) == (status, unsent)
