"""What to do about a corner's loss: one concrete target in the driver's words, from its cause and the
figures of your good laps there, and the opportunity every surface shows."""

from __future__ import annotations

from typing import Any

import numpy as np

from shared.analysis.model import TYPICAL, CornerLap
from shared.analysis.summary import CornerSummary
from shared.profiles.track import Corner

MARKER_SAME_M = 5.0  # a target this close to a brake marker is "at" it
_PLACE_WORDS = ("where ", "when ", "as ", "at ", "on ", "by ")  # a marker said as a place already


def where(c: Corner, dist_m: float) -> str:
    """A brake point as a driver finds it: at (or so far from) the corner's brake marker when the track
    profile has one, else metres before the corner."""
    bm = c.brake_marker
    if bm is not None:
        off = dist_m - bm.dist_m
        if abs(off) <= MARKER_SAME_M:
            return bm.name if bm.name.lower().startswith(_PLACE_WORDS) else f"at {bm.name}"
        return f"{abs(off):.0f} m {'after' if off > 0 else 'before'} {bm.name}"
    before = c.start_m - dist_m
    return f"{before:.0f} m before {c.short}" if before > 0 else f"{-before:.0f} m into {c.short}"


def _median(rows: list[CornerLap], key: str) -> float:
    v = [getattr(r, key) for r in rows if np.isfinite(getattr(r, key))]
    return float(np.median(v)) if v else float("nan")


def target(s: CornerSummary, c: Corner, rows: list[CornerLap]) -> str:
    """One instruction for the corner's cause, from the laps that lost time to it against your good laps."""
    bad = [r for r in rows if r.cause == s.cause]
    r0 = bad[0] if bad else rows[0]
    if s.cause in ("early_brake", "late_brake"):
        d = abs(_median(bad, "brake_m") - r0.typ_brake_m)
        word = "later" if s.cause == "early_brake" else "earlier"
        return f"brake {d:.0f} m {word}, {where(c, r0.typ_brake_m)}, as on {TYPICAL}"
    if s.cause == "coasting":
        return f"go straight from throttle to brake into {c.short}: cut the {_median(bad, 'coast_s'):.1f} s of coasting"
    if s.cause == "lockup":
        return f"brake as hard but release a little at the first sign of a lock into {c.short}"
    if s.cause == "wheelspin":
        return f"squeeze the throttle out of {c.short} instead of stamping on it: no wheelspin"
    if s.cause == "slow_minimum":
        d = r0.typ_min_kmh - _median(bad, "min_kmh")
        return f"carry {d:.0f} km/h more through {c.short}: minimum {r0.typ_min_kmh:.0f} km/h"
    if s.cause == "weak_exit":
        d = r0.typ_exit_kmh - _median(bad, "exit_kmh")
        return f"exit {c.short} {d:.0f} km/h faster: {r0.typ_exit_kmh:.0f} km/h at the exit"
    good = min((r for r in rows if not r.cause), key=lambda r: r.time_s, default=None)
    text = f"find the {s.per_lap_s:.2f} s at {c.short}"
    return text + (f": overlay lap {s.worst_lap} on lap {good.lap} there" if good is not None else "")


def opportunity(rank: int, s: CornerSummary, c: Corner, rows: list[CornerLap]) -> dict[str, Any]:
    """One corner of "where the time is", as every surface shows it."""
    return {"rank": rank, **s.as_dict(), "name": c.name, "target": target(s, c, rows)}
