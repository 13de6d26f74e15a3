"""One pydantic-settings ``Settings`` for every Pitwall process.

Values come from ``PITWALL_*`` environment variables. Unsafe combinations fail at start-up
(:func:`get_settings` raises), never on the first request.
"""

from __future__ import annotations

import ipaddress
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

import platformdirs
from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.lake_url import lake_url_problem

_LEGACY_ALIASES = {
    "PITWALL_LITERT_URL": "adk_openai_url",
    "PITWALL_LITERT_MODEL": "adk_openai_model",
    "PITWALL_LITERT_API_KEY": "adk_openai_api_key",
}


def is_loopback_host(host: str) -> bool:
    """True for localhost names and loopback addresses (127.0.0.0/8, ::1)."""
    if host in {"localhost", "localhost.localdomain", ""}:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("pitwall", appauthor=False))


class Settings(BaseSettings):
    """Process settings. Every field maps to ``PITWALL_<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="PITWALL_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)

    # hot path service
    hotpath_host: str = "127.0.0.1"
    hotpath_port: int = Field(8710, ge=1, le=65535)
    flush_interval_s: float = Field(0.5, gt=0, le=1.0)
    cue_queue_size: int = Field(32, ge=1, le=10_000)
    headset_latency_s: float = Field(0.15, ge=0.0, le=2.0)  # speech must start this much earlier (speak_by)
    # the event loop thread's nice at start (below 0 needs root or CAP_SYS_NICE; 0: left as started)
    hotpath_nice: int = Field(0, ge=-20, le=19)

    # paddock service
    paddock_host: str = "127.0.0.1"
    # its event loop thread's nice at start, as hotpath_nice (/health's time under load is a core to run on)
    paddock_nice: int = Field(0, ge=-20, le=19)
    paddock_port: int = Field(8720, ge=1, le=65535)
    api_token: SecretStr | None = None
    cors_origins: list[str] = Field(default_factory=list)
    max_request_bytes: int = Field(1_000_000, ge=1024, le=64 * 2**20)
    hotpath_url: str | None = None

    # local LLM (OpenAI-compatible server; never a hosted API unless explicitly allowed)
    adk_openai_url: str = "http://127.0.0.1:8099/v1"
    adk_openai_model: str = "gemma3n-e2b"
    adk_openai_api_key: SecretStr = SecretStr("local")
    adk_timeout_s: float = Field(45.0, gt=0, le=600)  # HTTP timeout of one model request
    # streaming deadlines (#16): until the first token (a small model's prefill on a laptop CPU), then the
    # longest silence between tokens; tokens already sent are never replaced by the template
    llm_first_token_s: float = Field(45.0, gt=0, le=600)
    llm_idle_s: float = Field(15.0, gt=0, le=600)
    llm_max_tokens: int = Field(160, ge=16, le=8192)  # about 110 words
    # a driver's ADK conversation is rotated past this many characters, so a small local model's prompt
    # (history included) stays short enough to prefill in seconds
    adk_char_budget: int = Field(4_000, ge=1000)
    adk_allow_remote: bool = False
    data_agents: Literal["deterministic", "llm"] = "deterministic"
    # a question's specialist: "evidence" = Pitwall makes its first tool call from the question and the
    # model narrates that data without tools (small local models); "model" = the model calls its tools
    specialist_tools: Literal["evidence", "model"] = "evidence"
    llm_warmup: bool = (
        True  # a one-token call at paddock start-up, so the first request finds the model loaded
    )
    llm_queue_size: int = Field(8, ge=1, le=1000)

    # limits on what strangers and broken files can make a process do (over a limit: a clear error naming
    # the file or request, the limit and the setting; nothing stored)
    import_max_decompressed_bytes: int = Field(256 * 2**20, ge=2**20, le=8 * 2**30)
    import_max_rows: int = Field(5_000_000, ge=1000, le=200_000_000)
    import_max_span_s: float = Field(86_400.0, ge=60.0, le=30 * 86_400.0)
    import_time_budget_s: float = Field(300.0, gt=0, le=3600.0)
    duckdb_memory_limit_mb: int = Field(1024, ge=64, le=64 * 1024)
    ingest_max_batch_frames: int = Field(20_000, ge=1, le=1_000_000)
    ingest_max_body_bytes: int = Field(8_000_000, ge=1024, le=256 * 2**20)
    # channels in one frame object or column batch (a logger sends tens; counted before a name is decoded)
    ingest_max_channels: int = Field(512, ge=8, le=100_000)

    # where the lake lives (shared/store/lake_url.py): unset = <data_dir>/lake; a local path; or
    # s3://bucket/prefix on S3-compatible storage (the hot path keeps its local lake and uploads a copy
    # through a local spool; the paddock reads the bucket by the session catalog)
    lake_url: str | None = None
    s3_endpoint: str | None = None  # e.g. http://127.0.0.1:8333; unset = AWS
    s3_access_key: SecretStr | None = None
    s3_secret_key: SecretStr | None = None
    s3_region: str = "us-east-1"
    s3_timeout_s: float = Field(10.0, gt=0, le=300)  # connect and request timeout of one S3 call
    # superseded objects (lap files compacted at session end) outlive every reader's older catalog this long
    s3_delete_grace_s: float = Field(60.0, ge=0, le=86_400)

    @model_validator(mode="before")
    @classmethod
    def _legacy_aliases(cls, data: object) -> object:
        import os

        if not isinstance(data, dict):
            return data
        for env, field in _LEGACY_ALIASES.items():
            if env in os.environ and f"PITWALL_{field.upper()}" not in os.environ and field not in data:
                warnings.warn(
                    f"{env} is deprecated; use PITWALL_{field.upper()}", DeprecationWarning, stacklevel=2
                )
                data[field] = os.environ[env]
        return data

    @model_validator(mode="after")
    def _safe(self) -> Settings:
        host = urlparse(self.adk_openai_url).hostname or ""
        if not is_loopback_host(host) and not self.adk_allow_remote:
            raise ValueError(
                f"PITWALL_ADK_OPENAI_URL points at {host!r}, which is not loopback. Pitwall talks only to a "
                "local model server; set PITWALL_ADK_ALLOW_REMOTE=true to use a server on your LAN."
            )
        if self.api_token is not None and not self.api_token.get_secret_value().strip():
            raise ValueError(
                "PITWALL_API_TOKEN is set but empty, which would serve every client without a token; "
                "unset it (loopback only) or give a real token, e.g. $(openssl rand -hex 16)."
            )
        for name in ("hotpath_host", "paddock_host"):
            bind = getattr(self, name)
            if not is_loopback_host(bind) and self.api_token is None:
                raise ValueError(
                    f"PITWALL_{name.upper()}={bind} exposes the service beyond loopback; "
                    "set PITWALL_API_TOKEN first."
                )
        lake_url_problem(self)
        if "*" in self.cors_origins:
            raise ValueError("PITWALL_CORS_ORIGINS must list origins explicitly; '*' is refused.")
        return self

    # ---- derived paths -------------------------------------------------
    @property
    def hot_dir(self) -> Path:
        return self.data_dir / "hot"

    @property
    def lake_dir(self) -> Path:
        """The local lake: the hot path's own copy (and the only one unless PITWALL_LAKE_URL is s3://)."""
        if self.lake_url and not self.lake_is_s3:
            return Path(self.lake_url.removeprefix("file://")).expanduser()
        return self.data_dir / "lake"

    @property
    def lake_is_s3(self) -> bool:
        return bool(self.lake_url) and str(self.lake_url).startswith("s3://")

    @property
    def spool_dir(self) -> Path:
        """Files published locally and waiting to be uploaded to the S3 lake."""
        return self.data_dir / "spool"

    @property
    def paddock_dir(self) -> Path:
        return self.data_dir / "paddock"

    @property
    def gold_dir(self) -> Path:
        return self.data_dir / "gold"

    @property
    def hot_db_path(self) -> Path:
        return self.hot_dir / "pitwall_hot.duckdb"

    @property
    def paddock_db_path(self) -> Path:
        return self.paddock_dir / "pitwall_paddock.duckdb"

    @property
    def llm_model_id(self) -> str:
        """Model id for LiteLLM: ids without a provider prefix get ``openai/``."""
        m = self.adk_openai_model
        return m if "/" in m else f"openai/{m}"

    def ensure_dirs(self) -> None:
        for d in (self.hot_dir, self.lake_dir, self.paddock_dir, self.gold_dir):
            d.mkdir(parents=True, exist_ok=True)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def settings_for(data_dir: Path | str | None = None, **overrides: object) -> Settings:
    """Settings from the environment, with an explicit data dir (CLI ``--data-dir``) and overrides."""
    kw: dict[str, object] = dict(overrides)
    if data_dir is not None:
        kw["data_dir"] = Path(data_dir)
    return Settings(**kw)  # type: ignore[arg-type]
