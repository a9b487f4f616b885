"""Which week a weekly post digests (scheduler/jobs.py ``week_for``): the ISO week, in the
repository's ``week_tz``, that ended at or before the fire time.

Kills the mutation that reads the week in UTC (or any zone but ``week_tz``): each row fires within
hours of a Monday 00:00 that UTC and the repository's zone put on different sides.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from scheduler.jobs import week_for

SH = timezone(timedelta(hours=8))
NY = timezone(timedelta(hours=-4))  # America/New_York in June (EDT)


@pytest.mark.parametrize("fire,zone,week", [
    (datetime(2024, 6, 17, 0, 0, tzinfo=SH), "Asia/Shanghai", "2024-W24"),   # Mon 00:00 Shanghai: W24 just ended
    (datetime(2024, 6, 16, 23, 59, tzinfo=SH), "Asia/Shanghai", "2024-W23"),  # Sun 23:59: W24 still running
    (datetime(2024, 6, 17, 7, 0, tzinfo=SH), "Asia/Shanghai", "2024-W24"),   # Sun 23:00 UTC: W23 in UTC
    (datetime(2024, 6, 17, 7, 0, tzinfo=SH), "UTC", "2024-W23"),
    (datetime(2024, 6, 16, 21, 0, tzinfo=NY), "America/New_York", "2024-W23"),  # Mon 01:00 UTC: W24 in UTC
    (datetime(2024, 6, 16, 21, 0, tzinfo=NY), "UTC", "2024-W24"),
    (datetime(2024, 12, 30, 1, 0, tzinfo=SH), "Asia/Shanghai", "2024-W52"),  # 2025-W01 starts 2024-12-30
    (datetime(2024, 12, 30, 1, 0, tzinfo=SH), "UTC", "2024-W51"),           # still Sunday 12-29 in UTC
], ids=["sh-mon-0000", "sh-sun-2359", "sh-mon-0700", "utc-same-instant", "ny-sun-2100", "utc-same-instant-ny",
        "sh-new-year", "utc-new-year"])
def test_the_week_to_post_is_read_in_week_tz(fire, zone, week):
    assert str(week_for(fire, zone)) == week
