"""Who holds a delivery lease: this process as ``host:pid:start``, and whether another holder is dead.

A ``sending`` row of the delivery log records its owner. A row whose owner is a process on this
host that no longer runs (no such pid, or the pid now belongs to a process started at another
time: pid reuse, a restarted container) is stale at once, so a restart never waits out the lease
(issue 9, failure 1). Owners on other hosts cannot be checked: their rows are stale only when the
lease runs out (the live owner renews it while it waits).

The start time is field 22 of ``/proc/<pid>/stat`` (clock ticks since boot; Linux). Without
``/proc`` only the pid is checked (``kill(pid, 0)``).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from chatbot.deliveries import RELEASED


def _start_ticks(pid: int, proc: Path) -> str | None:
    """The start time of ``pid`` from ``/proc/<pid>/stat`` (field 22), None when unreadable."""
    try:
        raw = (proc / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after the last ')'
    fields = raw.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else None


class ProcessOwner:
    """The lease-owner token of this process and liveness checks of other tokens.

    Args:
        host: this host's name (default ``socket.gethostname()``).
        pid: this process id (default ``os.getpid()``).
        proc: the ``/proc`` directory (tests point it elsewhere).
    """

    def __init__(self, host: str | None = None, pid: int | None = None, proc: str | Path = "/proc") -> None:
        self.host = (host if host is not None else socket.gethostname()).replace(":", "_")[:80]
        self.pid = pid if pid is not None else os.getpid()
        self._proc = Path(proc)
        self._has_proc = (self._proc / "self").exists()
        start = _start_ticks(self.pid, self._proc) if self._has_proc else None
        self.token = f"{self.host}:{self.pid}:{start or '0'}"
        """``host:pid:start`` (at most 128 characters), stored in ``deliveries.owner``."""

    def is_local(self, owner: str | None) -> bool:
        """Whether ``owner`` (``host:pid:start``) names a process of this host, whose liveness
        :meth:`is_dead` can tell (False for None, malformed tokens and other hosts)."""
        parts = (owner or "").rsplit(":", 2)
        return len(parts) == 3 and parts[1].isdigit() and parts[0] == self.host

    def is_dead(self, owner: str | None) -> bool:
        """Whether the holder ``owner`` of a lease is known to be gone.

        True for :data:`chatbot.deliveries.RELEASED` and for a process of this host that no longer
        runs (or whose pid now names a process with another start time); False for this process,
        for a live one, for another host's process and for an unknown (None) or malformed owner.
        """
        if owner == RELEASED:
            return True
        if not owner or owner == self.token:
            return False
        if not self.is_local(owner):
            return False
        _, pid_s, start = owner.rsplit(":", 2)
        pid = int(pid_s)
        if self._has_proc:
            now = _start_ticks(pid, self._proc)
            return now is None or (start != "0" and now != start)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # EPERM: it exists
            return False
        return False
