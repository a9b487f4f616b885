"""Slack's request signature (adapters/slack/app.py ``signed``) at the replay window's edges.

A timestamp more than 300 s from now is refused in either direction. Kills the mutation
``abs(now - int(timestamp)) > window`` -> ``now - int(timestamp) > window``, which lets a request
stamped in the future (a captured request replayed later, or a skewed sender) through: the
endpoint tests of tests/adapters/slack only send stale timestamps.
"""

from __future__ import annotations

import hashlib
import hmac

import pytest

from adapters.slack.app import SIGNATURE_WINDOW_SECONDS, signed

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BODY = b'{"type":"event_callback","team_id":"T_TEST","event":{"type":"app_mention","text":"W20"}}'
NOW = 1_781_000_000


def _sig(ts: str, body: bytes = BODY, secret: str = SECRET) -> str:
    """Slack's v0 signature, written out from Slack's "verifying requests" rule."""
    return "v0=" + hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()


@pytest.mark.parametrize("offset,ok", [
    (-301, False), (-300, True), (0, True), (300, True), (301, False), (86_400, False),
], ids=["past-301", "past-300", "now", "future-300", "future-301", "future-1d"])
def test_the_window_is_300_seconds_either_side_of_now(offset, ok):
    assert SIGNATURE_WINDOW_SECONDS == 300
    ts = str(NOW + offset)
    assert signed(BODY, ts, _sig(ts), SECRET, now=float(NOW)) is ok


@pytest.mark.parametrize("ts,sig", [
    (str(NOW), _sig(str(NOW), secret="another-secret")),
    (str(NOW), _sig(str(NOW), body=BODY + b" ")),
    (str(NOW), _sig(str(NOW)).replace("v0=", "v1=")),
    ("-5", _sig("-5")),
    (f"{NOW}.0", _sig(f"{NOW}.0")),
], ids=["wrong-secret", "other-body", "v1", "negative-ts", "float-ts"])
def test_a_wrong_signature_or_timestamp_shape_is_refused(ts, sig):
    assert signed(BODY, ts, sig, SECRET, now=float(NOW)) is False
