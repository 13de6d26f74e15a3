"""A track found from GPS: which known track a trace follows (``detect_track``), and a new profile made from
one driven lap where none is known (``make_track``, its id from where the lap starts)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from shared.geo import LocalProjection
from shared.profiles.track import Corner, StartFinish, TrackProfile, list_tracks, load_track


def detect_track(
    lat: np.ndarray,
    lon: np.ndarray,
    max_median_m: float = 25.0,
    candidates: Iterable[TrackProfile] | None = None,
    near_m: float = 30.0,
    near_share: float = 0.6,
) -> TrackProfile | None:
    """The track (shipped, or one of ``candidates``) whose centreline this GPS trace follows: median
    offset within ``max_median_m`` and ``near_share`` of the points within ``near_m`` (a kart track
    beside a circuit, or a pit lane and paddock, does not match the circuit)."""
    lat = np.asarray(lat, dtype=np.float64)
    lon = np.asarray(lon, dtype=np.float64)
    ok = np.isfinite(lat) & np.isfinite(lon)
    if ok.sum() < 10:
        return None
    step = max(1, int(ok.sum() // 400))
    la, lo = lat[ok][::step], lon[ok][::step]
    best: tuple[float, TrackProfile | None] = (max_median_m, None)
    pool = list(candidates) if candidates is not None else [load_track(tid) for tid in list_tracks()]
    for tr in pool:
        if (
            abs(float(np.median(la)) - tr.start_finish.lat) > 0.2
            or abs(float(np.median(lo)) - tr.start_finish.lon) > 0.2
        ):
            continue
        _, off = tr.project(la, lo)
        med = float(np.median(off))
        if med < best[0] and float(np.mean(off <= near_m)) >= near_share:
            best = (med, tr)
    return best[1]


def auto_track_id(lat: float, lon: float) -> str:
    return "auto-" + hashlib.sha1(f"{lat:.4f},{lon:.4f}".encode()).hexdigest()[:8]


def make_track(
    name: str, lat: np.ndarray, lon: np.ndarray, length_m: float, corners: list[Corner], step_m: float = 5.0
) -> TrackProfile | None:
    """A track profile from one driven lap (lat/lon from its start/finish crossing, in order)."""
    ok = np.isfinite(lat) & np.isfinite(lon)
    lat, lon = np.asarray(lat)[ok], np.asarray(lon)[ok]
    if len(lat) < 20 or length_m < 100:
        return None
    proj = LocalProjection(float(lat[0]), float(lon[0]))
    x, y = proj.xy(lat, lon)
    s = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))])
    keep = np.concatenate([[True], np.diff(s) > 0])
    s, x, y = s[keep], x[keep], y[keep]
    grid = np.arange(0.0, float(s[-1]), step_m)
    gx, gy = np.interp(grid, s, x), np.interp(grid, s, y)
    glat, glon = proj.latlon(gx, gy)
    k = min(len(gx) - 1, 4)
    heading = float(np.degrees(np.arctan2(gx[k] - gx[0], gy[k] - gy[0])) % 360)
    return TrackProfile(
        id=auto_track_id(float(lat[0]), float(lon[0])),
        name=name,
        length_m=round(float(length_m), 1),
        centreline=[(round(float(a), 7), round(float(b), 7)) for a, b in zip(glat, glon, strict=True)],
        start_finish=StartFinish(lat=float(lat[0]), lon=float(lon[0]), heading_deg=round(heading, 1)),
        corners=corners,
        source="detected by Pitwall from the driven line of the session's fastest full lap",
    )
