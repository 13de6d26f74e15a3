"""Independent truth for the answer eval: figures computed from the raw files, never by Pitwall's code.

Nothing here imports ``shared`` or ``services``. Lap boundaries come from what the file itself says
(an AiM CSV's ``Beacon Markers`` header, the simulator's ground-truth JSON) or, for the VBOX file that has
none, from our own start/finish gate crossing: the line's position is Sonoma's published start/finish
(38.16152 N, 122.45472 W, driving heading 309.8 deg), crossings are found in a local flat-earth frame and
the crossing time is linearly interpolated between the two 10 Hz samples either side of the line.

A lap here is numbered like a driver sees it in Pitwall (lap 0 = from the start of the recording to the
first boundary). A *racing* lap is one that starts and ends at a boundary crossed at racing speed
(not the pit lane) and is not the first or the last piece of the recording.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SONOMA_SF = (38.16152, -122.45472, 309.8)  # lat, lon, heading of travel over the line (deg)
GATE_HALF_WIDTH_M = 40.0  # the pit lane at Sonoma runs beside the front straight: it crosses the line too


@dataclass
class Lap:
    lap: int
    t_start: float
    t_end: float
    racing: bool
    top_kmh: float = float("nan")
    max_rpm: float = float("nan")
    min_rpm: float = float("nan")

    @property
    def time_s(self) -> float:
        return self.t_end - self.t_start


@dataclass
class SessionTruth:
    """What the raw file says about one session."""

    name: str
    laps: list[Lap]
    channels: dict[str, np.ndarray] = field(default_factory=dict)  # our own names -> values
    t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    events: list[dict] = field(default_factory=list)  # simulator truth only

    def lap(self, n: int) -> Lap:
        return next(lp for lp in self.laps if lp.lap == n)

    @property
    def racing(self) -> list[Lap]:
        return [lp for lp in self.laps if lp.racing]

    @property
    def best(self) -> Lap:
        return min(self.racing, key=lambda lp: lp.time_s)

    @property
    def slowest(self) -> Lap:
        return max(self.racing, key=lambda lp: lp.time_s)

    def lap_times(self) -> list[float]:
        return [lp.time_s for lp in self.laps]

    def in_lap(self, lap: Lap) -> np.ndarray:
        return (self.t >= lap.t_start) & (self.t < lap.t_end)

    def channel_max(self, name: str, lap: Lap | None = None) -> float:
        x = self.channels[name]
        sel = self.in_lap(lap) if lap is not None else np.ones(len(x), bool)
        return float(np.nanmax(x[sel]))

    def channel_min(self, name: str, lap: Lap | None = None) -> float:
        x = self.channels[name]
        sel = self.in_lap(lap) if lap is not None else np.ones(len(x), bool)
        return float(np.nanmin(x[sel]))


# ---- raw readers ------------------------------------------------------------------------------------------
def read_aim_csv(path: Path) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """An AiM Race Studio CSV by hand: header key/values, then name row, unit row, blank, data rows."""
    header: dict[str, str] = {}
    cols: list[str] = []
    rows: list[list[str]] = []
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        for row in reader:
            if not cols:
                if row and row[0] == "Time" and sum(1 for v in row if v) > 2:
                    cols = row
                    next(reader)  # units
                    continue
                if row and row[0]:
                    header[row[0]] = ",".join(v for v in row[1:] if v != "")
                continue
            if not row or not row[0]:
                continue
            rows.append(row[: len(cols)])
    data = np.array([[float(v) if v.strip() else math.nan for v in r] for r in rows], dtype=float)
    return header, {c: data[:, i] for i, c in enumerate(cols)}


def _dm(v: str) -> float:
    """VBOX '38°9.631176 N' (degrees and decimal minutes) -> signed decimal degrees."""
    deg, rest = v.split("°")
    minutes, hemi = rest.split()
    x = float(deg) + float(minutes) / 60.0
    return -x if hemi in ("S", "W") else x


def read_vbox_csv(path: Path) -> dict[str, np.ndarray]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    out: dict[str, np.ndarray] = {}
    for name in rows[0]:
        if name in ("Latitude", "Longitude"):
            out[name] = np.array([_dm(r[name]) for r in rows])
            continue
        try:
            out[name] = np.array([float(r[name]) for r in rows])
        except ValueError:
            continue
    return out


# ---- lap splits --------------------------------------------------------------------------------------------
def gate_crossings(
    t: np.ndarray, lat: np.ndarray, lon: np.ndarray, gate: tuple[float, float, float] = SONOMA_SF
) -> list[tuple[float, int]]:
    """(time, sample index) of each forward crossing of the start/finish line, interpolated."""
    glat, glon, hdg = gate
    k = 111_320.0
    x = (lon - glon) * k * math.cos(math.radians(glat))  # east, m
    y = (lat - glat) * k  # north, m
    ux, uy = math.sin(math.radians(hdg)), math.cos(math.radians(hdg))
    along = x * ux + y * uy
    across = -x * uy + y * ux
    out = []
    for i in range(len(t) - 1):
        if (
            along[i] < 0 <= along[i + 1]
            and abs(across[i]) < GATE_HALF_WIDTH_M
            and along[i + 1] - along[i] < 30
        ):
            f = -along[i] / (along[i + 1] - along[i])
            out.append((float(t[i] + f * (t[i + 1] - t[i])), i))
    return out


def _laps_from_bounds(bounds: list[float], t_end: float, racing_bound: list[bool]) -> list[Lap]:
    edges = [0.0, *bounds, t_end]
    ok = [False, *racing_bound, False]
    return [
        Lap(n, edges[n], edges[n + 1], racing=ok[n] and ok[n + 1] and 0 < n < len(edges) - 2)
        for n in range(len(edges) - 1)
        if edges[n + 1] > edges[n]
    ]


def _fill(st: SessionTruth, speed: str, rpm: str | None) -> None:
    for lp in st.laps:
        sel = st.in_lap(lp)
        if sel.any():
            lp.top_kmh = float(np.nanmax(st.channels[speed][sel]))
            if rpm:
                lp.max_rpm = float(np.nanmax(st.channels[rpm][sel]))
                lp.min_rpm = float(np.nanmin(st.channels[rpm][sel]))


def _at_speed(speeds: list[float]) -> list[bool]:
    """A boundary crossed at under 0.6x the median crossing speed is a pit-lane one."""
    ref = float(np.median(speeds)) if speeds else 0.0
    return [v >= 0.6 * ref for v in speeds]


def vbox_truth(path: Path) -> SessionTruth:
    c = read_vbox_csv(path)
    t = c["Elapsed time (s)"]
    cross = gate_crossings(t, c["Latitude"], c["Longitude"])
    racing = _at_speed([float(c["Speed (km/h)"][i]) for _, i in cross])
    st = SessionTruth("vbox", _laps_from_bounds([x for x, _ in cross], float(t[-1]), racing), c, t)
    _fill(st, "Speed (km/h)", "Engine Speed (rpm)")
    return st


def aim_truth(path: Path, name: str) -> SessionTruth:
    """Laps from the file's own beacon markers."""
    header, c = read_aim_csv(path)
    t = c["Time"]
    marks = [float(x) for x in header["Beacon Markers"].split(",") if x]
    bounds = [m for m in marks if m < t[-1] - 1e-6]
    racing = _at_speed([float(np.interp(b, t, c["GPS Speed"])) for b in bounds])
    st = SessionTruth(name, _laps_from_bounds(bounds, float(t[-1]), racing), c, t)
    _fill(st, "GPS Speed", "RPM" if "RPM" in c else None)
    return st


def sim_truth(csv_path: Path, truth_json: Path) -> SessionTruth:
    """The simulator's session: laps and events from its ground truth, signals from its own AiM CSV."""
    truth = json.loads(truth_json.read_text())
    _, c = read_aim_csv(csv_path)
    laps = [
        Lap(lp["lap"], lp["t_start_s"], lp["t_end_s"], racing=lp["kind"] == "full") for lp in truth["laps"]
    ]
    st = SessionTruth("sim", laps, c, c["Time"], truth["events"])
    _fill(st, "GPS Speed", "RPM")
    return st


def theoretical_best(st: SessionTruth, lat: str, lon: str, sectors: int = 20) -> float:
    """Sum of the best sector times over the racing laps. Sector lines are gates across the best lap's own
    path at ``sectors`` equal-distance points (own haversine distance); each lap's time at a gate is the
    interpolated crossing, like the start/finish line."""
    la, lo = st.channels[lat], st.channels[lon]
    ref = st.best
    sel = np.flatnonzero(st.in_lap(ref))
    rl, ro = np.radians(la[sel]), np.radians(lo[sel])
    d = (
        2
        * 6_371_000
        * np.arcsin(
            np.sqrt(
                np.sin(np.diff(rl) / 2) ** 2 + np.cos(rl[:-1]) * np.cos(rl[1:]) * np.sin(np.diff(ro) / 2) ** 2
            )
        )
    )
    odo = np.concatenate([[0.0], np.cumsum(d)])
    best = np.full(sectors, np.inf)
    gates = []
    for m in np.linspace(0, odo[-1], sectors + 1)[1:-1]:
        i = int(np.clip(np.searchsorted(odo, m), 1, len(sel) - 1))
        dy = (la[sel[i]] - la[sel[i - 1]]) * 111_320.0
        dx = (lo[sel[i]] - lo[sel[i - 1]]) * 111_320.0 * math.cos(math.radians(la[sel[i]]))
        gates.append(
            (
                float(np.interp(m, odo, la[sel])),
                float(np.interp(m, odo, lo[sel])),
                math.degrees(math.atan2(dx, dy)) % 360,
            )
        )
    for lp in st.racing:
        idx = np.flatnonzero(st.in_lap(lp))
        marks = [lp.t_start]
        for g in gates:
            hits = gate_crossings(st.t[idx], la[idx], lo[idx], g)
            if not hits:
                break
            marks.append(hits[0][0])
        else:
            marks.append(lp.t_end)
            best = np.minimum(best, np.diff(marks))
    return float(best.sum())
