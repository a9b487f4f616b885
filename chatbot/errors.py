"""Errors that carry a safe, one-line ``user_message``.

Every error prhub shows to a person is a :class:`PrhubError`: its message says what is wrong,
where, and how to fix it, and never contains a secret. Entry points (CLI, chat handlers, jobs)
catch this class, print or post ``user_message`` and exit non-zero / reply; anything else is a bug.
"""

from __future__ import annotations


class PrhubError(Exception):
    """Base class. ``user_message`` is one line, safe to show in a terminal, a log or a chat card."""

    exit_code = 2

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = " ".join(user_message.split())


class InputError(PrhubError):
    """Bad input data or arguments: a PR file, a week, a time zone, a flag combination."""


class RulesError(PrhubError):
    """A rules file that cannot be read or does not validate."""
