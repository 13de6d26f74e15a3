"""Sector times: Pitwall's one definition of a sector is a piece of the achievable lap (``shared.achievable``):
the lap cut at every corner's entry (a gate across the best lap's own path), so sector 1 runs from the line
to the first corner's entry and the last from the last corner's entry to the line. The sum of the best
sectors is the theoretical best (``get_session_highlights``), by construction the same figure."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.tools.base import r, valid_laps
from services.paddock.tools.optimal import _gate_name, session_achievable


def sector_times(session_id: str) -> dict[str, Any]:
    """Every valid lap's time in every sector, each sector's best (and its lap), the theoretical best; or
    ``available: False`` with the reason."""
    s, corners, a = session_achievable(session_id)
    base: dict[str, Any] = {"session_id": s["session_id"], "track": s["track_id"]}
    if a is None or a.crossings is None:
        why = "no valid full lap in this session"
        if valid_laps(s["session_id"]):
            why = "the best lap has no telemetry to cut into sectors"
        return {**base, "available": False, "reason": why}
    c = a.crossings
    seg = np.diff(c.time_s, axis=1)  # (laps, sectors)
    st = c.stations_m
    ends = ["the line", *[_gate_name(corners, float(m)) or f"{m:.0f} m" for m in st[1:-1]], "the line"]
    sectors = []
    for k in range(seg.shape[1]):
        col = seg[:, k]
        i = int(np.argmin(col))
        sectors.append(
            {
                "sector": k + 1,
                "from": ends[k],
                "to": ends[k + 1],
                "from_m": r(float(st[k]), 1),
                "to_m": r(float(st[k + 1]), 1),
                "best_s": r(float(col[i])),
                "best_lap": c.laps[i],
                "median_s": r(float(np.median(col))),
                "times_s": {int(lap): r(float(t)) for lap, t in zip(c.laps, col, strict=True)},
            }
        )
    gates = [
        {"lat": r(float(g[0]), 7), "lon": r(float(g[1]), 7), "heading_deg": r(float(h), 2)}
        for g, h in zip(c.gate_latlon, c.gate_heading_deg, strict=True)
    ]
    return {
        **base,
        "available": True,
        "laps": list(c.laps),
        "sectors": sectors,
        "gates": gates,  # the sector lines between sectors, to check a time from the raw file
        "gps_gates": a.gates_checked,
        "best_lap": a.best_lap,
        "best_lap_s": r(a.best_lap_s),
        "theoretical_best_s": r(a.theoretical_s),
        "lap_times_s": {int(lap): r(float(t)) for lap, t in zip(c.laps, c.time_s[:, -1], strict=True)},
    }
