"""Settings of the chat bot and the server: environment variables, optionally a YAML file.

Every field is read from the environment variable of the same name in upper case
(``SLACK_BOT_TOKEN``, ``PRHUB_DEFAULT_REPO``...); a YAML file named by ``PRHUB_CONFIG`` (or passed to
:func:`load_settings`) may hold the same keys in lower case, and the environment wins over it.
Secrets are :class:`pydantic.SecretStr`: their repr is ``'**********'`` and no error, log line or
card ever shows their value. A missing or invalid setting gives a one-line
:class:`SettingsError` naming the variable.

Variables::

    SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET       Slack app (both needed for Slack)
    SLACK_APP_TOKEN                             app-level token (xapp-...): Socket Mode, no public URL needed
    PRHUB_SLACK_MODE                            auto (default: socket when SLACK_APP_TOKEN is set, else http),
                                                socket or http
    SLACK_API_URL                               default https://slack.com/api/ (tests: a fake)
    FEISHU_APP_ID, FEISHU_APP_SECRET            Feishu/Lark app (both needed for Feishu)
    FEISHU_VERIFICATION_TOKEN, FEISHU_ENCRYPT_KEY  event callback checks (the encrypt key is optional)
    FEISHU_API_URL                              lark domain, default https://open.feishu.cn
    FEISHU_BOT_OPEN_ID                          the bot's open_id (default: asked from bot/v3/info)
    PRHUB_FEISHU_MODE                           auto (default: long connection when FEISHU_VERIFICATION_TOKEN
                                                is not set, else http callbacks), long or http
    PRHUB_PUBLIC_URL                            base of "Full report" links (no button without it)
    PRHUB_DEFAULT_REPO                          owner/name, default vllm-project/vllm
    PRHUB_DEFAULT_LANG                          en or zh, default en
    PRHUB_TZ                                    IANA zone of the week windows, default UTC
    PRHUB_SLACK_ADMINS, PRHUB_FEISHU_ADMINS     comma-separated user ids allowed to subscribe a channel
    PRHUB_DATABASE_URL                          the store (default: the local SQLite file)
    PRHUB_EVENT_RETENTION_HOURS                 how long inbound events are remembered, >= 7, default 8
    PRHUB_LOG_LEVEL                             log level of prhub serve/run-job (DEBUG, INFO...), default INFO
    GITHUB_TOKEN, GITHUB_API_URL                the GitHub source (read by the fetch/sync code, not here)
    GITHUB_WEBHOOK_SECRET                       enables POST /github/webhook (X-Hub-Signature-256 checked)
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict, YamlConfigSettingsSource

from chatbot.admins import check_scoped
from chatbot.errors import InputError
from chatbot.render.escape import safe_url
from chatbot.weeks import load_zone
from prhub.chat import check_public_url

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")

SECRET_FIELDS = frozenset({"slack_bot_token", "slack_signing_secret", "slack_app_token", "feishu_app_secret",
                           "feishu_verification_token", "feishu_encrypt_key", "github_webhook_secret"})


class SettingsError(InputError):
    """A missing or invalid setting; ``user_message`` names the variable and never shows a secret."""


def _ids(value: Any) -> Any:
    if isinstance(value, str):
        return tuple(v for v in (p.strip() for p in value.split(",")) if v)
    return value


class Settings(BaseSettings):
    """The bot's configuration (see the module docstring for the variables)."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", frozen=True, env_ignore_empty=True)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    feishu_app_id: str | None = None
    feishu_app_secret: SecretStr | None = None
    feishu_verification_token: SecretStr | None = None
    feishu_encrypt_key: SecretStr | None = None
    feishu_api_url: str = "https://open.feishu.cn"
    feishu_bot_open_id: str | None = None
    prhub_slack_mode: Literal["auto", "socket", "http"] = "auto"
    prhub_feishu_mode: Literal["auto", "long", "http"] = "auto"
    github_webhook_secret: SecretStr | None = None
    prhub_public_url: str | None = None
    prhub_default_repo: str = "vllm-project/vllm"
    prhub_default_lang: Literal["en", "zh"] = "en"
    prhub_tz: str = "UTC"
    prhub_slack_admins: Annotated[tuple[str, ...], NoDecode] = ()
    prhub_feishu_admins: Annotated[tuple[str, ...], NoDecode] = ()
    prhub_database_url: str | None = None
    prhub_event_retention_hours: float = Field(default=8.0, ge=7.0, le=24 * 30)

    @field_validator("prhub_slack_admins", "prhub_feishu_admins", mode="before")
    @classmethod
    def _split_ids(cls, v: Any) -> Any:
        return _ids(v)

    @field_validator("prhub_slack_admins", "prhub_feishu_admins")
    @classmethod
    def _scoped_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_scoped(x) for x in v)

    @field_validator("prhub_public_url")
    @classmethod
    def _public_url(cls, v: str | None) -> str | None:
        try:
            return check_public_url(v)
        except InputError:
            raise ValueError("not an http(s) URL such as https://prhub.example.com") from None

    @field_validator("slack_api_url", "feishu_api_url")
    @classmethod
    def _api_url(cls, v: str) -> str:
        v = v.strip()
        if not safe_url(v):
            raise ValueError("not an http(s) URL")
        return v

    @field_validator("prhub_default_repo")
    @classmethod
    def _repo(cls, v: str) -> str:
        if not _REPO.match(v.strip()):
            raise ValueError("use owner/name, e.g. vllm-project/vllm")
        return v.strip()

    @field_validator("prhub_tz")
    @classmethod
    def _tz(cls, v: str) -> str:
        try:
            load_zone(v)
        except InputError:
            raise ValueError("not a known IANA time zone such as Asia/Shanghai") from None
        return v

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _CONFIG_FILE.get("path")
        if path:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=path))
        return tuple(sources)

    # -- derived -------------------------------------------------------------------------------

    @property
    def slack_enabled(self) -> bool:
        """Both ``SLACK_BOT_TOKEN`` and ``SLACK_SIGNING_SECRET`` are set."""
        return bool(self.slack_bot_token and self.slack_signing_secret)

    @property
    def feishu_enabled(self) -> bool:
        """Both ``FEISHU_APP_ID`` and ``FEISHU_APP_SECRET`` are set."""
        return bool(self.feishu_app_id and self.feishu_app_secret)

    def require(self, *names: str) -> None:
        """Check that settings are present.

        Args:
            names: field names (``slack_bot_token``) or variable names (``SLACK_BOT_TOKEN``).

        Raises:
            SettingsError: the first one missing, named as its environment variable.
        """
        for name in names:
            value = getattr(self, name.lower())
            if value is None or value == "" or (isinstance(value, SecretStr) and not value.get_secret_value()):
                raise SettingsError(f"{name.upper()} is not set: export it (or put {name.lower()} in the PRHUB_CONFIG file)")

    @property
    def slack_socket_mode(self) -> bool:
        """Slack events come over Socket Mode: ``PRHUB_SLACK_MODE=socket``, or ``auto`` with
        ``SLACK_APP_TOKEN`` set."""
        if self.prhub_slack_mode == "auto":
            return bool(self.slack_app_token and self.slack_app_token.get_secret_value())
        return self.prhub_slack_mode == "socket"

    @property
    def feishu_long_connection(self) -> bool:
        """Feishu events come over the long connection: ``PRHUB_FEISHU_MODE=long``, or ``auto``
        with the app configured and no ``FEISHU_VERIFICATION_TOKEN`` (HTTP callbacks need it)."""
        if self.prhub_feishu_mode == "auto":
            return self.feishu_enabled and not self.feishu_verification_token
        return self.prhub_feishu_mode == "long"

    def require_slack(self) -> None:
        """Raises SettingsError unless the Slack app settings are present: ``SLACK_BOT_TOKEN``, and
        ``SLACK_APP_TOKEN`` in Socket Mode, else ``SLACK_SIGNING_SECRET``."""
        if self.slack_socket_mode:
            self.require("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN")
        else:
            self.require("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET")

    def require_feishu(self) -> None:
        """Raises SettingsError unless the Feishu app settings are present: ``FEISHU_APP_ID``,
        ``FEISHU_APP_SECRET``, and for HTTP callbacks ``FEISHU_VERIFICATION_TOKEN``."""
        if self.feishu_long_connection:
            self.require("FEISHU_APP_ID", "FEISHU_APP_SECRET")
        else:
            self.require("FEISHU_APP_ID", "FEISHU_APP_SECRET", "FEISHU_VERIFICATION_TOKEN")

    def admins(self, platform: str) -> frozenset[str]:
        """User ids allowed to subscribe a channel on ``platform`` (``slack``/``feishu``)."""
        return frozenset(self.prhub_slack_admins if platform == "slack" else self.prhub_feishu_admins)

    def secret(self, name: str) -> str:
        """The plain value of a secret field (``""`` when unset); only for handing to an SDK."""
        value = getattr(self, name)
        return value.get_secret_value() if isinstance(value, SecretStr) else ""


_CONFIG_FILE: dict[str, str] = {}


def _message(err: dict[str, Any]) -> str:
    loc = err.get("loc") or ("?",)
    field = str(loc[0])
    var = field.upper()
    if err.get("type") == "missing":
        return f"{var} is not set"
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if field in SECRET_FIELDS:
        return f"{var} is invalid: {msg}"
    value = err.get("input")
    shown = f" {value!r}" if isinstance(value, (str, int, float)) and len(str(value)) <= 200 else ""
    return f"{var}{shown} is invalid: {msg}"


def load_settings(config_file: str | Path | None = None, **overrides: Any) -> Settings:
    """Read the settings from the environment (and the YAML file, if any).

    Args:
        config_file: a YAML file with lower-case keys (default: ``$PRHUB_CONFIG`` when set).
        overrides: values that win over both (tests).

    Raises:
        SettingsError: a missing or invalid value, or an unreadable config file; one line naming the
            variable, never its value when it is a secret.
    """
    path = str(config_file) if config_file else os.environ.get("PRHUB_CONFIG", "")
    if path and not Path(path).is_file():
        raise SettingsError(f"PRHUB_CONFIG {path!r}: no such file")
    _CONFIG_FILE.clear()
    if path:
        _CONFIG_FILE["path"] = path
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsError(_message(exc.errors()[0])) from None
    except (OSError, ValueError) as exc:  # YAML that cannot be read or parsed
        raise SettingsError(f"PRHUB_CONFIG {path!r}: cannot read it ({type(exc).__name__})") from None
    finally:
        _CONFIG_FILE.clear()
