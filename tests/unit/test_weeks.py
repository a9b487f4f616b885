from datetime import datetime, timedelta, timezone

import pytest

from chatbot.errors import InputError
from chatbot.weeks import IsoWeek, load_zone


def test_2025_w01_starts_on_2024_12_30():
    start, end = IsoWeek.parse("2025-W01").window(load_zone("UTC"))
    assert start == datetime(2024, 12, 30, tzinfo=timezone.utc)
    assert end == datetime(2025, 1, 6, tzinfo=timezone.utc)


def test_label_is_monday_to_sunday_inclusive():
    assert IsoWeek.parse("2026-W20").label() == "2026-W20 (05-11 – 05-17)"
    assert IsoWeek.parse("2026w20") == IsoWeek(2026, 20)


def test_window_in_a_zone_is_local_midnight():
    start, end = IsoWeek.parse("2026-W20").utc_window(load_zone("Asia/Shanghai"))
    assert start == datetime(2026, 5, 10, 16, tzinfo=timezone.utc)
    assert end - start == timedelta(days=7)


def test_dst_week_is_167_hours():
    # 2026-03-08: US spring-forward, inside ISO week 2026-W10 (03-02 .. 03-08)
    start, end = IsoWeek.parse("2026-W10").utc_window(load_zone("America/Los_Angeles"))
    assert end - start == timedelta(hours=167)


def test_containing_uses_the_zone():
    moment = datetime(2026, 5, 17, 20, 0, tzinfo=timezone.utc)  # Sunday 20:00 UTC = Monday 04:00 +08
    assert str(IsoWeek.containing(moment, load_zone("UTC"))) == "2026-W20"
    assert str(IsoWeek.containing(moment, load_zone("Asia/Shanghai"))) == "2026-W21"


def test_previous_and_next_cross_years():
    assert str(IsoWeek.parse("2025-W01").previous()) == "2024-W52"
    assert str(IsoWeek.parse("2020-W53").next()) == "2021-W01"


@pytest.mark.parametrize("text", ["2026-20", "W20", "2026-W54", "2025-W53", "", "2026-W0", "0001-W01", "9999-W52"])
def test_bad_weeks_are_input_errors(text):
    with pytest.raises(InputError) as info:
        IsoWeek.parse(text)
    msg = info.value.user_message
    assert "YYYY-Www" in msg or "has no week" in msg or "between 1970 and 2100" in msg


def test_unknown_zone():
    with pytest.raises(InputError, match="IANA"):
        load_zone("Mars/Olympus")
