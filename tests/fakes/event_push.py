"""How the platforms deliver an event to the bot's HTTP endpoint and retry it, shared by the fakes.

Slack (Events API): an event not answered with a 2xx within 3 s is retried "nearly immediately,
after 1 minute and after 5 minutes", each retry carrying ``X-Slack-Retry-Num`` (1, 2, 3) and
``X-Slack-Retry-Reason``. Feishu: an event callback not answered with HTTP 200 is re-pushed after
15 s, 5 min, 1 h and 6 h. The schedules are fields of the fakes (``event_retries``) so tests use
fractions of a second.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence

SLACK_EVENT_RETRIES: tuple[float, ...] = (0.0, 60.0, 300.0)
"""Seconds before Slack's retries 1, 2 and 3 (after the previous attempt failed)."""

FEISHU_EVENT_RETRIES: tuple[float, ...] = (15.0, 300.0, 3600.0, 21600.0)
"""Seconds before Feishu's re-pushes 1..4."""


def push_with_retries(url: str, attempt: Callable[[int], tuple[bytes, dict[str, str]]], schedule: Sequence[float],
                      *, ok: Callable[[int], bool], record: list[tuple[int, int]],
                      sleep: Callable[[float], None] = time.sleep, timeout: float = 3.0) -> bool:
    """POST ``attempt(n)`` (body, headers; n = 0 first, then the retry number) to ``url`` until
    ``ok(status)``, waiting ``schedule[n-1]`` seconds before retry n. Each ``(n, status)`` is
    appended to ``record`` (status 0: no answer within ``timeout`` seconds, a failure as for the
    platform). Returns whether an attempt succeeded."""
    for n in range(len(schedule) + 1):
        if n:
            sleep(schedule[n - 1])
        body, headers = attempt(n)
        req = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                resp.read()
                status = resp.status
        except urllib.error.HTTPError as exc:
            exc.read()
            status = exc.code
        except OSError:
            status = 0
        record.append((n, status))
        if ok(status):
            return True
    return False
