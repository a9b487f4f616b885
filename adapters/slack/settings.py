"""The Slack platform's settings (``Platform.settings``): its environment variables, read by
pydantic-settings as part of :class:`prhub.config.Settings`, and what they mean."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from adapters.platform import SettingsError, check_api_url, is_set as _set, split_ids
from chatbot.admins import check_scoped

class SlackSettings(BaseSettings):
    """``SLACK_BOT_TOKEN``, ``SLACK_SIGNING_SECRET``, ``SLACK_APP_TOKEN`` (secrets), ``SLACK_API_URL``
    (the Web API root; tests: a fake), ``PRHUB_SLACK_MODE`` (``auto``, ``socket`` or ``http``) and
    ``PRHUB_SLACK_ADMINS`` (``T…:U…`` ids, comma-separated)."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", frozen=True, env_ignore_empty=True)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    prhub_slack_mode: Literal["auto", "socket", "http"] = "auto"
    prhub_slack_admins: Annotated[tuple[str, ...], NoDecode] = ()

    @field_validator("prhub_slack_admins", mode="before")
    @classmethod
    def _split_slack_ids(cls, v: Any) -> Any:
        return split_ids(v)

    @field_validator("prhub_slack_admins")
    @classmethod
    def _scoped_slack_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_scoped(x) for x in v)

    @field_validator("slack_api_url")
    @classmethod
    def _slack_api_url(cls, v: str) -> str:
        return check_api_url(v)

    @property
    def slack_enabled(self) -> bool:
        """Both ``SLACK_BOT_TOKEN`` and ``SLACK_SIGNING_SECRET`` are set."""
        return bool(self.slack_bot_token and self.slack_signing_secret)

    @property
    def slack_socket_mode(self) -> bool:
        """Slack events come over Socket Mode: ``PRHUB_SLACK_MODE=socket``, or ``auto`` with
        ``SLACK_APP_TOKEN`` set."""
        if self.prhub_slack_mode == "auto":
            return bool(self.slack_app_token and self.slack_app_token.get_secret_value())
        return self.prhub_slack_mode == "socket"

    def slack_problem(self) -> tuple[str, str] | None:
        """Why ``prhub serve`` would refuse to receive Slack events with these settings, as
        ``(what, fix)``; None when it can. Socket Mode needs ``SLACK_BOT_TOKEN`` and
        ``SLACK_APP_TOKEN``, HTTP mode ``SLACK_BOT_TOKEN`` and ``SLACK_SIGNING_SECRET``; the fix
        names both ways unless ``PRHUB_SLACK_MODE`` chose one."""
        socket = "SLACK_APP_TOKEN (the app-level token xapp-... with connections:write: Socket Mode, no public URL)"
        http = "SLACK_SIGNING_SECRET (HTTP mode behind a public URL)"
        if not _set(self.slack_bot_token):
            return "SLACK_BOT_TOKEN is not set", "export the Bot User OAuth Token (xoxb-...)"
        if self.slack_socket_mode and not _set(self.slack_app_token):
            return "PRHUB_SLACK_MODE=socket but SLACK_APP_TOKEN is not set", f"export {socket}, or unset PRHUB_SLACK_MODE and export {http}"
        if not self.slack_socket_mode and not _set(self.slack_signing_secret):
            if self.prhub_slack_mode == "http":
                return ("PRHUB_SLACK_MODE=http but SLACK_SIGNING_SECRET is not set",
                        f"export {http}, or unset PRHUB_SLACK_MODE and export {socket}")
            return ("neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set, so no Slack event can arrive",
                    f"export {socket}, or {http}")
        return None

    def require_slack(self) -> None:
        """Raises SettingsError (what: fix) unless the Slack app settings are present
        (:meth:`slack_problem`)."""
        problem = self.slack_problem()
        if problem is not None:
            raise SettingsError(f"{problem[0]}: {problem[1]}")

