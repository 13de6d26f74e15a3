"""The user's channel mapping file: ``<data>/channels.yaml`` and ``--map FILE`` (which overrides it).

    channels:
      P BRK FRONT: brake_bar                    # a channel name as in the file -> a canonical signal
      G CH Y: {canonical: g_lat, sign_flip: true}
      Brake Pst: {canonical: brake_bar, unit: psi, scale: 0.01}
      Battery Volt: ignore                      # never map this one

Names match case-insensitively. ``unit`` is the unit the values are in (it overrides the file's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from shared.signals import CHANNEL_BY_NAME

USER_MAP_FILE = "channels.yaml"
NOT_MAPPABLE = ("t_s", "dist_m", "odo_m", "g_combo")  # computed by Pitwall, never read from a file
IGNORE = "ignore"


class ChannelMapError(ValueError):
    """A user mapping file is unreadable or invalid; the message names the file and the entry."""


class UserEntry(BaseModel):
    """One line of the user's mapping file: a source channel (by name) and what it is."""

    model_config = ConfigDict(extra="forbid")
    canonical: str | None = None  # None / "ignore": never map this channel
    unit: str | None = None  # the unit its values are in (overrides what the file declares)
    scale: float = 1.0
    bias: float = 0.0
    sign_flip: bool = False
    sentinels: list[float] = Field(default_factory=list)
    hold: bool = False

    @field_validator("canonical")
    @classmethod
    def _known(cls, v: str | None) -> str | None:
        if v is None or v.strip().lower() in (IGNORE, "none", ""):
            return None
        if v not in CHANNEL_BY_NAME or v in NOT_MAPPABLE:
            raise ValueError(f"unknown canonical signal {v!r}; see `pitwall channels --signals`")
        return v


@dataclass
class UserMap:
    entries: dict[str, UserEntry] = field(default_factory=dict)  # lower-cased source name -> entry
    sources: list[str] = field(default_factory=list)  # the files it came from

    def get(self, name: str) -> UserEntry | None:
        return self.entries.get(name.strip().lower())

    def merged(self, other: UserMap) -> UserMap:
        return UserMap({**self.entries, **other.entries}, self.sources + other.sources)


def parse_user_map(text: str, where: str) -> UserMap:
    """``channels: {<source name>: <canonical> | ignore | {canonical:, unit:, sign_flip:, ...}}``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ChannelMapError(f"{where}: not valid YAML: {exc}") from exc
    if data is None:
        return UserMap(sources=[where])
    if not isinstance(data, dict) or not isinstance(data.get("channels", {}), dict):
        raise ChannelMapError(f"{where}: expected 'channels:' with one '<channel name>: <signal>' per line")
    unknown = set(data) - {"channels"}
    if unknown:
        raise ChannelMapError(f"{where}: unknown key(s) {sorted(unknown)}; only 'channels' is read")
    out: dict[str, UserEntry] = {}
    for name, spec in (data.get("channels") or {}).items():
        raw = {"canonical": spec} if spec is None or isinstance(spec, str) else spec
        try:
            if not isinstance(raw, dict):
                raise ValueError("expected a signal name, 'ignore', or a mapping with 'canonical'")
            out[str(name).strip().lower()] = UserEntry.model_validate(raw)
        except (ValidationError, ValueError) as exc:
            msg = "; ".join(e["msg"] for e in exc.errors()) if isinstance(exc, ValidationError) else str(exc)
            raise ChannelMapError(f"{where}: channel {name!r}: {msg}") from exc
    return UserMap(out, [where])


def load_user_map(data_dir: Path | None = None, extra: Path | None = None) -> UserMap:
    """The data directory's ``channels.yaml`` (when present), overridden entry by entry by ``extra``."""
    um = UserMap()
    paths = [Path(data_dir) / USER_MAP_FILE] if data_dir is not None else []
    for i, p in enumerate([*paths, *([Path(extra)] if extra is not None else [])]):
        if i < len(paths) and not p.is_file():
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ChannelMapError(f"{p}: cannot read the channel mapping file: {exc}") from exc
        um = um.merged(parse_user_map(text, str(p)))
    return um
