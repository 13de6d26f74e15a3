"""Independent truth at a corner and by sector, from the raw file: the lap's own distance (haversine over
its GPS fixes from the lap's start, scaled to the track's length), the corner zones and sector lines from the track's published corner
extents (the track YAML's ``start_m``/``end_m``, read as data), never Pitwall's corner table or tools.

* a corner's slowest point: the raw sample of least speed between the corner's start and end;
* the gear there: the raw gear channel at that sample;
* sector times: gates across the best lap's own path at each corner's entry (like ``theoretical_best``),
  each lap's crossing interpolated between samples; sector 1 runs from the line to the first gate.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import yaml

from tests.support.truth import SessionTruth, gate_crossings

TRACKS = Path(__file__).resolve().parents[2] / "shared" / "profiles" / "tracks"


def _track(track: str = "sonoma") -> dict:
    return yaml.safe_load((TRACKS / f"{track}.yaml").read_text())


def corners(track: str = "sonoma") -> dict[str, tuple[float, float]]:
    """Corner id -> (start_m, end_m) from the track file."""
    return {c["id"]: (float(c["start_m"]), float(c["end_m"])) for c in _track(track)["corners"]}


def _latlon(st: SessionTruth) -> tuple[np.ndarray, np.ndarray]:
    if "Latitude" in st.channels:
        return st.channels["Latitude"], st.channels["Longitude"]
    return st.channels["GPS Latitude"], st.channels["GPS Longitude"]


def _speed(st: SessionTruth) -> np.ndarray:
    return st.channels["Speed (km/h)"] if "Speed (km/h)" in st.channels else st.channels["GPS Speed"]


def odometer(lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    rl, ro = np.radians(lat), np.radians(lon)
    a = np.sin(np.diff(rl) / 2) ** 2 + np.cos(rl[:-1]) * np.cos(rl[1:]) * np.sin(np.diff(ro) / 2) ** 2
    return np.concatenate([[0.0], np.cumsum(2 * 6_371_000 * np.arcsin(np.sqrt(a)))])


def slowest_point(
    st: SessionTruth, lap: int, corner: str, gear: str | None = None
) -> tuple[float, float | None]:
    """(least speed in km/h, the gear there or None) at ``corner`` on ``lap``."""
    lo, hi = corners()[corner]
    idx = np.flatnonzero(st.in_lap(st.lap(lap)))
    la, ln = _latlon(st)
    d = odometer(la[idx], ln[idx])
    d *= float(_track()["length_m"]) / d[-1]  # a lap's GPS path is longer or shorter than the track's line
    inside = idx[(d >= lo) & (d <= hi)]
    k = inside[int(np.argmin(_speed(st)[inside]))]
    g = float(st.channels[gear][k]) if gear else None
    return float(_speed(st)[k]), g


def sector_table(st: SessionTruth) -> tuple[list[int], np.ndarray]:
    """(racing laps, their sector times (laps, sectors)) with sector lines at the corners' entries."""
    la, lo = _latlon(st)
    sel = np.flatnonzero(st.in_lap(st.best))
    odo = odometer(la[sel], lo[sel])
    odo *= float(_track()["length_m"]) / odo[-1]
    gates = []
    for m in sorted(a for a, _ in corners().values()):
        i = int(np.clip(np.searchsorted(odo, m), 1, len(sel) - 1))
        dy = (la[sel[i]] - la[sel[i - 1]]) * 111_320.0
        dx = (lo[sel[i]] - lo[sel[i - 1]]) * 111_320.0 * math.cos(math.radians(la[sel[i]]))
        heading = math.degrees(math.atan2(dx, dy)) % 360
        gates.append((float(np.interp(m, odo, la[sel])), float(np.interp(m, odo, lo[sel])), heading))
    laps, table = [], []
    for lp in st.racing:
        idx = np.flatnonzero(st.in_lap(lp))
        marks = [lp.t_start]
        for g in gates:
            hits = [h for h in gate_crossings(st.t[idx], la[idx], lo[idx], g) if h[0] > marks[-1]]
            if not hits:
                break
            marks.append(hits[0][0])
        else:
            marks.append(lp.t_end)
            laps.append(lp.lap)
            table.append(np.diff(marks))
    return laps, np.array(table)
