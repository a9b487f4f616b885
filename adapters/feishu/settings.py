"""The Feishu/Lark platform's settings (``Platform.settings``): its environment variables, read by
pydantic-settings as part of :class:`prhub.config.Settings`, and what they mean."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from adapters.platform import SettingsError, check_api_url, is_set as _set, split_ids
from chatbot.admins import check_scoped

class FeishuSettings(BaseSettings):
    """``FEISHU_APP_ID``, ``FEISHU_APP_SECRET``, ``FEISHU_VERIFICATION_TOKEN``, ``FEISHU_ENCRYPT_KEY``
    (secrets but the id), ``FEISHU_API_URL`` (the domain; Lark: ``https://open.larksuite.com``),
    ``FEISHU_BOT_OPEN_ID`` (default: asked once), ``PRHUB_FEISHU_MODE`` (``auto``, ``long`` or
    ``http``) and ``PRHUB_FEISHU_ADMINS`` (``tenant:ou_…`` ids, comma-separated)."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", frozen=True, env_ignore_empty=True)

    feishu_app_id: str | None = None
    feishu_app_secret: SecretStr | None = None
    feishu_verification_token: SecretStr | None = None
    feishu_encrypt_key: SecretStr | None = None
    feishu_api_url: str = "https://open.feishu.cn"
    feishu_bot_open_id: str | None = None
    prhub_feishu_mode: Literal["auto", "long", "http"] = "auto"
    prhub_feishu_admins: Annotated[tuple[str, ...], NoDecode] = ()

    @field_validator("prhub_feishu_admins", mode="before")
    @classmethod
    def _split_feishu_ids(cls, v: Any) -> Any:
        return split_ids(v)

    @field_validator("prhub_feishu_admins")
    @classmethod
    def _scoped_feishu_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_scoped(x) for x in v)

    @field_validator("feishu_api_url")
    @classmethod
    def _feishu_api_url(cls, v: str) -> str:
        return check_api_url(v)

    @property
    def feishu_enabled(self) -> bool:
        """Both ``FEISHU_APP_ID`` and ``FEISHU_APP_SECRET`` are set."""
        return bool(self.feishu_app_id and self.feishu_app_secret)

    @property
    def feishu_long_connection(self) -> bool:
        """Feishu events come over the long connection: ``PRHUB_FEISHU_MODE=long``, or ``auto``
        with the app configured and no ``FEISHU_VERIFICATION_TOKEN`` (HTTP callbacks need it)."""
        if self.prhub_feishu_mode == "auto":
            return self.feishu_enabled and not self.feishu_verification_token
        return self.prhub_feishu_mode == "long"

    def feishu_problem(self) -> tuple[str, str] | None:
        """Why ``prhub serve`` would refuse the Feishu settings, as ``(what, fix)``; None when it
        would start: the app's id and secret, and for HTTP callbacks ``FEISHU_VERIFICATION_TOKEN``."""
        for name, value in (("FEISHU_APP_ID", self.feishu_app_id), ("FEISHU_APP_SECRET", self.feishu_app_secret)):
            if not _set(value):
                return f"{name} is not set", "export FEISHU_APP_ID and FEISHU_APP_SECRET (Credentials & Basic Info of the app)"
        if not self.feishu_long_connection and not _set(self.feishu_verification_token):
            return ("PRHUB_FEISHU_MODE=http but FEISHU_VERIFICATION_TOKEN is not set",
                    "export FEISHU_VERIFICATION_TOKEN and FEISHU_ENCRYPT_KEY, or unset PRHUB_FEISHU_MODE for the long connection")
        return None

    def feishu_deaf(self) -> tuple[str, str] | None:
        """Why Feishu events would never arrive although ``prhub serve`` starts, as ``(what, fix)``:
        HTTP callbacks without ``FEISHU_ENCRYPT_KEY`` (Feishu signs callbacks only with it, so
        ``/feishu/*`` is not mounted). None otherwise."""
        if self.feishu_problem() is None and not self.feishu_long_connection and not _set(self.feishu_encrypt_key):
            return ("FEISHU_VERIFICATION_TOKEN selects HTTP callbacks but FEISHU_ENCRYPT_KEY is not set, so /feishu/* "
                    "is not mounted and no Feishu event arrives",
                    "unset FEISHU_VERIFICATION_TOKEN for the long connection (no public URL), or set an Encrypt Key "
                    "under Events & Callbacks -> Encryption Strategy and export FEISHU_ENCRYPT_KEY")
        return None

    def require_feishu(self) -> None:
        """Raises SettingsError (what: fix) unless the Feishu app settings are present
        (:meth:`feishu_problem`)."""
        problem = self.feishu_problem()
        if problem is not None:
            raise SettingsError(f"{problem[0]}: {problem[1]}")

