"""ISO 8601 weeks as half-open time windows in an IANA time zone.

An ISO week starts on Monday 00:00 local time; week 1 is the week holding the year's first
Thursday (so ``2025-W01`` starts on 2024-12-30). The window is ``[Monday 00:00, next Monday
00:00)`` in the given zone, which across a DST change is 167 or 169 hours long. Displayed ranges
are Monday-Sunday inclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from chatbot.errors import InputError

_WEEK_RE = re.compile(r"^\s*(\d{4})-?W(\d{1,2})\s*$", re.IGNORECASE)


def load_zone(name: str) -> ZoneInfo:
    """Return the IANA zone ``name`` (e.g. ``UTC``, ``Asia/Shanghai``).

    Raises:
        InputError: the name is not a known IANA zone.
    """
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(f"unknown time zone {name!r}: use an IANA name such as UTC or Asia/Shanghai") from None


MIN_YEAR = 1970
"""The first year an ISO week may name (older weeks are typos, not history)."""
MAX_YEAR = 2100
"""The last year an ISO week may name."""


@dataclass(frozen=True, order=True)
class IsoWeek:
    """An ISO week ``year``-W``week`` (1-53)."""

    year: int
    week: int

    @classmethod
    def parse(cls, text: str) -> IsoWeek:
        """Parse ``2026-W20`` (also ``2026W20``, ``2026-w20``).

        Raises:
            InputError: not of that form, or the year has no such week.
        """
        m = _WEEK_RE.match(text)
        if not m:
            raise InputError(f"invalid week {text!r}: use the ISO form YYYY-Www, e.g. 2026-W20")
        year, week = int(m.group(1)), int(m.group(2))
        if not MIN_YEAR <= year <= MAX_YEAR:
            raise InputError(f"invalid week {text!r}: the year must be between {MIN_YEAR} and {MAX_YEAR}")
        try:
            date.fromisocalendar(year, week, 1)
        except ValueError:
            raise InputError(f"invalid week {text!r}: {year} has no week {week}") from None
        return cls(year, week)

    @classmethod
    def containing(cls, moment: datetime, tz: ZoneInfo) -> IsoWeek:
        """The ISO week that contains the aware instant ``moment`` as seen in ``tz``."""
        local = moment.astimezone(tz)
        iso = local.isocalendar()
        return cls(iso.year, iso.week)

    def __str__(self) -> str:
        return f"{self.year}-W{self.week:02d}"

    @property
    def monday(self) -> date:
        """The week's first day."""
        return date.fromisocalendar(self.year, self.week, 1)

    @property
    def sunday(self) -> date:
        """The week's last day (inclusive)."""
        return self.monday + timedelta(days=6)

    def window(self, tz: ZoneInfo) -> tuple[datetime, datetime]:
        """The half-open window ``[start, end)`` as aware datetimes in ``tz``."""
        start = datetime.combine(self.monday, time(0), tzinfo=tz)
        end = datetime.combine(self.monday + timedelta(days=7), time(0), tzinfo=tz)
        return start, end

    def utc_window(self, tz: ZoneInfo) -> tuple[datetime, datetime]:
        """The same window as UTC instants (for queries and comparisons)."""
        start, end = self.window(tz)
        return start.astimezone(timezone.utc), end.astimezone(timezone.utc)

    def previous(self) -> IsoWeek:
        """The week before this one."""
        iso = (self.monday - timedelta(days=7)).isocalendar()
        return IsoWeek(iso.year, iso.week)

    def next(self) -> IsoWeek:
        """The week after this one."""
        iso = (self.monday + timedelta(days=7)).isocalendar()
        return IsoWeek(iso.year, iso.week)

    def label(self) -> str:
        """Display form with the inclusive Monday-Sunday range: ``2026-W20 (05-11 – 05-17)``."""
        return f"{self} ({self.monday:%m-%d} – {self.sunday:%m-%d})"
