"""The one wall clock of prhub (aware UTC). Everything that needs the time takes a
:class:`chatbot.ports.Clock`; only this module reads the system time, and tests inject their own."""

from __future__ import annotations

from datetime import datetime, timezone


class SystemClock:
    """The system clock as a :class:`chatbot.ports.Clock`."""

    def now(self) -> datetime:
        """The current instant, aware UTC."""
        return datetime.now(timezone.utc)


SYSTEM_CLOCK = SystemClock()
"""The shared instance (stateless)."""
