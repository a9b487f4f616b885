"""Errors that carry a safe, one-line ``user_message``.

Every error prhub shows to a person is a :class:`PrhubError`: its message says what is wrong,
where, and how to fix it, and never contains a secret. Entry points (CLI, chat handlers, jobs)
catch this class, print or post ``user_message`` and exit non-zero / reply; anything else is a bug.
"""

from __future__ import annotations

from datetime import datetime


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


class SourceError(PrhubError):
    """A PR source (the GitHub API) could not answer: unreachable, rejected the request, bad data."""

    exit_code = 69


class RateLimitedError(SourceError):
    """The source is rate-limited past the wait cap. ``reset_at`` (aware UTC) is when to retry.

    The scheduler catches this class to schedule one retry after ``reset_at``; a chat query shows
    ``user_message`` ("GitHub rate-limited until 14:05 UTC ...") instead of hanging.
    """

    exit_code = 75

    def __init__(self, user_message: str, reset_at: datetime) -> None:
        super().__init__(user_message)
        self.reset_at = reset_at


class SourcePermissionError(SourceError):
    """The source refused access (HTTP 401/403 without rate-limit signs): fix the token, do not retry."""

    exit_code = 77


class DeliveryError(PrhubError):
    """A chat platform refused or failed to take a message.

    ``reason`` is the platform's short error (``ratelimited``, ``invalid_blocks``, ``230020``);
    ``retry_after`` the seconds the platform asked to wait (HTTP 429 ``Retry-After``), if any;
    ``permanent`` is true when retrying cannot help (bad token, unknown channel, invalid payload).
    """

    def __init__(self, user_message: str, *, reason: str, retry_after: float | None = None, permanent: bool = False) -> None:
        super().__init__(user_message)
        self.reason = reason
        self.retry_after = retry_after
        self.permanent = permanent


class ModelError(PrhubError):
    """The LLM writer's model did not answer (timeout, rate limit, server error, unreachable).

    Never shown in a digest: the writer falls back to the rule-written text and logs the
    ``user_message`` (which names the server's base URL host and the status, never the key).
    """

    exit_code = 69
