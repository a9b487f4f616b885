"""Run one weekly job and die (``os._exit``) right after the platform accepted the N-th message
of ``PLATFORM`` (default the first), before the delivery log is updated:
``python -m tests.e2e.crash_bot CONFIG REPO WEEK PLATFORM [N]``."""

from __future__ import annotations

import os
import sys

from chatbot.weeks import IsoWeek
from prhub import bootstrap
from prhub.bot import create_bot, platform_deliveries, settings_for
from prhub.config import load_config


class CrashAfterAccept:
    def __init__(self, inner, nth=1):
        self.inner = inner
        self.platform = inner.platform
        self.left = nth

    def send(self, *args, **kwargs):
        sent = self.inner.send(*args, **kwargs)
        self.left -= 1
        if self.left <= 0:
            os._exit(137)  # killed between the platform's accept and the log update
        return sent

    def find_sent(self, *args, **kwargs):
        return self.inner.find_sent(*args, **kwargs)


def main() -> None:
    config, repo, week, platform = sys.argv[1:5]
    nth = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    loaded = load_config(config)
    deliveries = platform_deliveries(settings_for(loaded))
    deliveries[platform] = CrashAfterAccept(deliveries[platform], nth)
    with bootstrap.open_store(None) as store:
        create_bot(loaded, store, deliveries).job.run(repo, week=IsoWeek.parse(week))
    sys.exit(3)  # not reached


if __name__ == "__main__":
    main()
