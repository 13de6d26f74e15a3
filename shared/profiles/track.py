"""Track profiles: centreline, start/finish line, named corners with leverage weights and brake markers.

Profiles are YAML files in ``shared/profiles/tracks/`` with a centreline JSON beside them
(``[[lat, lon], ...]`` from the start/finish line in the driving direction).
"""

from __future__ import annotations

import json
from functools import cached_property, lru_cache
from importlib import resources
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field

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
        for c in self.corners:
            names = {c.id, c.short.lower(), c.name.lower(), *(a.lower() for a in c.aliases)}
            if c.landmark:
                names.add(c.landmark.lower())
                names.add(c.landmark.lower().removeprefix("the "))
            if t in names:
                return c
        return None


@lru_cache(maxsize=16)
def load_track(track_id: str) -> TrackProfile:
    ids = list_tracks()
    if track_id not in ids:
        raise KeyError(f"unknown track {track_id!r}; available: {', '.join(ids)}")
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


def detect_track(lat: np.ndarray, lon: np.ndarray, max_median_m: float = 50.0) -> TrackProfile | None:
    """The shipped track whose centreline most of this GPS trace lies on, or None."""
    lat = np.asarray(lat, dtype=np.float64)
    lon = np.asarray(lon, dtype=np.float64)
    ok = np.isfinite(lat) & np.isfinite(lon)
    if ok.sum() < 10:
        return None
    step = max(1, int(ok.sum() // 400))
    la, lo = lat[ok][::step], lon[ok][::step]
    best: tuple[float, TrackProfile | None] = (max_median_m, None)
    for tid in list_tracks():
        tr = load_track(tid)
        if (
            abs(float(np.median(la)) - tr.start_finish.lat) > 0.2
            or abs(float(np.median(lo)) - tr.start_finish.lon) > 0.2
        ):
            continue
        _, off = tr.project(la, lo)
        med = float(np.median(off))
        if med < best[0]:
            best = (med, tr)
    return best[1]
