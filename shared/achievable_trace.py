"""The achievable lap as a distance trace (timed from the line), for the live delta, RuleCoach and the
tablet's overlay; and a session's laps, corners and telemetry read from the lake's files for it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from shared.achievable import Achievable, achievable_lap
from shared.resample import line_to_line
from shared.settings import Settings
from shared.signals import Wide
from shared.store.gold import session_facts
from shared.store.lake_layout import lap_path, table_path


def stitched_trace(
    wide: Wide,
    laps: Sequence[Mapping[str, Any]],
    ach: Achievable,
    channels: Iterable[str] = ("speed_kmh",),
    step_m: float = 5.0,
) -> dict[str, np.ndarray]:
    """The achievable lap on a distance grid: each piece is its lap's own samples between the piece's gate
    crossings, laid on the reference lap's distance between the gates; ``time_s`` runs from the line (0 at
    0 m) and ends at the achievable time. ``dist_m``, ``time_s``, ``lap`` (which lap each point is from)
    and each channel the session recorded (NaN where it did not)."""
    c = ach.crossings
    if c is None:
        raise ValueError("the achievable lap carries no crossings to stitch")
    by_lap = {int(lp["lap"]): lp for lp in laps}
    st = np.asarray(ach.stations_m)
    top = float(st[-1])
    grid = np.append(np.arange(0.0, top, step_m), top)
    chans = [ch for ch in dict.fromkeys(channels) if ch in wide]
    out: dict[str, np.ndarray] = {"dist_m": grid, "time_s": np.zeros(len(grid)), "lap": np.zeros(len(grid))}
    out.update({ch: np.full(len(grid), np.nan) for ch in chans})
    t_done = 0.0
    k = 0  # the station the piece starts at
    for p in ach.pieces:
        k1 = int(np.searchsorted(st, p.to_m - 1e-6))
        row = c.laps.index(p.lap)
        lp = by_lap[p.lap]
        t0 = float(lp["t_start_s"])
        m = (wide["lap"] == p.lap) & (wide["t_s"] >= t0) & (wide["t_s"] <= float(lp["t_end_s"]))
        spd = wide.get("speed_kmh")
        td, tt = line_to_line(
            wide["t_s"][m], wide["dist_m"][m], spd[m] if spd is not None else None, t0, float(lp["t_end_s"])
        )
        td = td + np.arange(len(td)) * 1e-6
        # the lap's own distance at its crossings of the piece's first and last gate
        d0, d1 = np.interp([c.time_s[row, k], c.time_s[row, k1]], tt, td)
        if k1 == len(st) - 1:  # the lap's end: its last sample's distance, as the reference lap's length is
            d1 = float(np.max(wide["dist_m"][m]))
        sel = (grid >= st[k]) & ((grid < st[k1]) | (k1 == len(st) - 1))
        frac = (grid[sel] - st[k]) / max(st[k1] - st[k], 1e-9)
        own = d0 + frac * (d1 - d0)  # the grid point on this lap's own distance
        out["time_s"][sel] = t_done + np.interp(own, td, tt) - c.time_s[row, k]
        out["lap"][sel] = p.lap
        dd = wide["dist_m"][m] + np.arange(int(m.sum())) * 1e-6
        for ch in chans:
            v = wide[ch][m]
            ok = np.isfinite(v)
            if ok.sum() > 1:
                out[ch][sel] = np.interp(own, dd[ok], v[ok])
        t_done += p.time_s
        k = k1
    out["time_s"][-1] = ach.time_s
    return out


def _read(settings: Settings, session_id: str, table: str) -> list[dict[str, Any]]:
    p = table_path(settings.lake_dir, session_id, table)
    if not p.is_file():
        raise FileNotFoundError(f"session {session_id} has no {table} in the lake ({p})")
    return pq.read_table(p).to_pylist()


def lake_session(
    settings: Settings, session_id: str, channels: Iterable[str]
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], list[dict[str, Any]]]:
    """(telemetry of the valid full laps, laps, corner rows) of one session, read from the lake's files
    (the hot path has no paddock lake). FileNotFoundError when the session is not there."""
    laps = _read(settings, session_id, "laps")
    corners = _read(settings, session_id, "corners")
    want = ["t_s", "lap", "dist_m", *channels]
    parts = []
    for lp in laps:
        if lp.get("kind") == "full" and lp.get("valid"):
            f = lap_path(settings.lake_dir, session_id, int(lp["lap"]))
            if f.is_file():
                tbl = pq.read_table(f)
                parts.append(tbl.select([c for c in dict.fromkeys(want) if c in tbl.column_names]))
    if not parts:
        raise FileNotFoundError(f"session {session_id} has no valid full lap in the lake")
    tbl = pa.concat_tables(parts, promote_options="default")
    wide = {c: tbl.column(c).to_numpy(zero_copy_only=False).astype(float) for c in tbl.column_names}
    order = np.argsort(wide["t_s"], kind="stable")
    return {c: v[order] for c, v in wide.items()}, laps, corners


def achievable_reference(
    settings: Settings, session_id: str, channels: Iterable[str]
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A session's achievable lap as a reference trace with its metadata (like a gold lap's)."""
    chans = tuple(channels)
    facts = session_facts(settings, session_id)  # a session not in the lake says so first
    wide, laps, corners = lake_session(settings, session_id, ("speed_kmh", "lat", "lon", *chans))
    ach = achievable_lap(wide, laps, corners)
    if ach is None:
        raise ValueError(f"session {session_id} has no valid full lap for an achievable lap")
    trace = stitched_trace(wide, laps, ach, chans)
    meta = {
        "track_id": facts.get("track_id"),
        "driver_id": facts.get("driver_id"),
        "session_id": session_id,
        "lap": None,
        "time_s": ach.time_s,
        "source": f"achievable lap of laps {sorted({p.lap for p in ach.pieces})}",
        "car_id": facts.get("car_id"),
    }
    return trace, meta
