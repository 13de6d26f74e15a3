"""Track profiles: centreline, start/finish line, named corners with leverage weights and brake markers.

Profiles are YAML files in ``shared/profiles/tracks/`` with a centreline JSON beside them
(``[[lat, lon], ...]`` from the start/finish line in the driving direction).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from shared.corner_ids import corner_id
from shared.geo import LocalProjection, Polyline

_TRACKS_DIR = "tracks"


class BrakeMarker(BaseModel):
    name: str  # spoken: "the bridge"
    dist_m: float  # lap distance of the marker


class Corner(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str  # stable id: "t7"
    name: str  # "Turn 7"
    short: str  # "T7"
    seq: int
    start_m: float
    apex_m: float
    end_m: float
    direction: Literal["left", "right"] | None = None
    leverage: float = 0.0  # share of lap time this corner controls (sums to ~1 over the lap)
    brake_marker: BrakeMarker | None = None
    landmark: str | None = None  # spoken nickname: "the Carousel"
    aliases: list[str] = Field(default_factory=list)
    tip: str | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_form(cls, v: object) -> object:
        """``T3A`` / ``t3A`` in a profile file are the corner ``t3a`` (see ``shared.display``)."""
        return corner_id(v) if isinstance(v, str) else v

    @property
    def spoken(self) -> str:
        """How cues name it: 'the Carousel' or 'turn seven'."""
        return self.landmark or spoken_turn(self.short)


_NUM_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
]


def spoken_turn(short: str) -> str:
    digits = "".join(ch for ch in short if ch.isdigit())
    suffix = "".join(ch for ch in short[1:] if ch.isalpha())
    if digits and int(digits) < len(_NUM_WORDS):
        return f"turn {_NUM_WORDS[int(digits)]}{(' ' + suffix) if suffix else ''}"
    return short


class StartFinish(BaseModel):
    lat: float
    lon: float
    heading_deg: float  # direction of travel across the line
    half_width_m: float = 25.0


class TrackProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    name: str
    length_m: float
    centreline_file: str | None = None
    centreline: list[tuple[float, float]] = Field(default_factory=list, repr=False)
    start_finish: StartFinish
    corners: list[Corner] = Field(default_factory=list)
    source: str = ""

    @cached_property
    def proj(self) -> LocalProjection:
        lat = np.mean([p[0] for p in self.centreline]) if self.centreline else self.start_finish.lat
        lon = np.mean([p[1] for p in self.centreline]) if self.centreline else self.start_finish.lon
        return LocalProjection(float(lat), float(lon))

    @cached_property
    def line(self) -> Polyline:
        arr = np.asarray(self.centreline, dtype=np.float64)
        x, y = self.proj.xy(arr[:, 0], arr[:, 1])
        return Polyline(x, y, closed=True)

    def project(self, lat: np.ndarray, lon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lap distance scaled to ``length_m``, offset from the centreline in m) for GPS points."""
        x, y = self.proj.xy(lat, lon)
        s, d = self.line.project(x, y)
        return s * (self.length_m / self.line.length), d

    def corner_at(self, dist_m: float) -> Corner | None:
        for c in self.corners:
            if c.start_m <= dist_m <= c.end_m:
                return c
        return None

    def next_corner(self, dist_m: float) -> tuple[Corner | None, float]:
        """The next corner whose entry is ahead of ``dist_m`` and the distance to its entry."""
        if not self.corners:
            return None, float("inf")
        for c in self.corners:
            if c.start_m > dist_m:
                return c, c.start_m - dist_m
        first = self.corners[0]
        return first, first.start_m + self.length_m - dist_m

    def find_corner(self, text: str) -> Corner | None:
        """Corner by id, short name, name, landmark or alias (case-insensitive)."""
        t = text.strip().lower()
        cid = corner_id(text)  # "T3A", "t 3a" -> "t3a"
        for c in self.corners:
            if c.id == cid:
                return c
            names = {c.id, c.short.lower(), c.name.lower(), *(a.lower() for a in c.aliases)}
            if c.landmark:
                names.add(c.landmark.lower())
                names.add(c.landmark.lower().removeprefix("the "))
            if t in names:
                return c
        # "turn 4" / "corner 4" / "T4" on a track whose corners are numbered C1, C2... (or the other way
        # round): the one corner with that number, whatever its letter
        m = _NUMBERED.match(t)
        if m:
            want = (int(m.group(2)), m.group(3).lower())
            same = [c for c in self.corners if _number_of(c.id) == want]
            if len(same) == 1:
                return same[0]
        return None


_NUMBERED = re.compile(r"^\s*(t|c|turn|corner)\s*(\d+)\s*([a-z]?)\s*$", re.IGNORECASE)


def _number_of(cid: str) -> tuple[int, str] | None:
    m = _NUMBERED.match(cid)
    return (int(m.group(2)), m.group(3).lower()) if m else None


_PROCESS_DATA_DIR: list[Path] = []  # set by a service started with --data-dir (use_data_dir)


def use_data_dir(data_dir: Path) -> None:
    """Where ``load_track`` looks for stored tracks in this process when not told (a service started
    with ``--data-dir``), instead of the settings' default data directory."""
    _PROCESS_DATA_DIR[:] = [Path(data_dir)]


def load_track(track_id: str, data_dir: Path | None = None) -> TrackProfile:
    """A shipped track profile, or one Pitwall detected and stored under ``<data_dir>/tracks/`` (this
    process's data directory when not given). An unknown id is a ``KeyError`` naming what exists."""
    if track_id in list_tracks():
        return _shipped(track_id)
    if data_dir is None:
        from shared.settings import get_settings

        data_dir = _PROCESS_DATA_DIR[0] if _PROCESS_DATA_DIR else get_settings().data_dir
    for tr in saved_tracks(data_dir):
        if tr.id == track_id:
            return tr
    raise KeyError(f"unknown track {track_id!r}; available: {', '.join(describe_tracks(data_dir))}")


def describe_tracks(data_dir: Path | None) -> list[str]:
    """Every track id known here, the stored ones with their names: ``auto-1a2b3c4d (SSKC)``."""
    saved = [f"{t.id} ({t.name})" for t in saved_tracks(data_dir)] if data_dir is not None else []
    return [*list_tracks(), *saved]


@lru_cache(maxsize=16)
def _shipped(track_id: str) -> TrackProfile:
    base = resources.files("shared.profiles").joinpath(_TRACKS_DIR)
    data = yaml.safe_load(base.joinpath(f"{track_id}.yaml").read_text(encoding="utf-8"))
    if data.get("centreline_file"):
        data["centreline"] = json.loads(base.joinpath(data["centreline_file"]).read_text(encoding="utf-8"))[
            "points"
        ]
    return TrackProfile.model_validate(data)


def list_tracks() -> list[str]:
    d = resources.files("shared.profiles").joinpath(_TRACKS_DIR)
    return sorted(p.name[:-5] for p in d.iterdir() if p.name.endswith(".yaml"))


def known_tracks(data_dir: Path | None) -> list[TrackProfile]:
    """Every track this installation knows: the shipped profiles, then those stored under ``data_dir``."""
    out = [load_track(tid) for tid in list_tracks()]
    shipped = {t.id for t in out}
    if data_dir is not None:
        out += [t for t in saved_tracks(data_dir) if t.id not in shipped]
    return out


# ---- tracks Pitwall found itself (no profile shipped) ------------------------------------------
SAVED_TRACKS_DIR = "tracks"  # under the data directory


SAVED_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")  # a stored track's id is its file name


def saved_tracks(data_dir: Path) -> list[TrackProfile]:
    """Tracks detected from earlier sessions (``<data>/tracks/*.json``); unreadable files are skipped."""
    d = Path(data_dir) / SAVED_TRACKS_DIR
    out: list[TrackProfile] = []
    for p in sorted(d.glob("*.json")) if d.is_dir() else []:
        try:
            tr = TrackProfile.model_validate_json(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if tr.id == p.stem:
            out.append(tr)
    return out


def save_track(data_dir: Path, track: TrackProfile) -> Path:
    """Store a detected track (temp name, then ``os.replace``) so later sessions there reuse it."""
    if not SAVED_ID.match(track.id) or track.id in list_tracks():
        raise ValueError(f"cannot store a track as {track.id!r}: not a stored track's id")
    if len(track.centreline) < 20:
        raise ValueError(f"cannot store track {track.id!r}: no centreline")
    d = Path(data_dir) / SAVED_TRACKS_DIR
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{track.id}.json"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(track.model_dump_json(indent=1))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
