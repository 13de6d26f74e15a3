"""``analyse_session``: every corner on every valid full lap, its time against your typical lap, what the
lap did there and why it lost time (the one place a corner loss is computed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.analysis.causes import name_cause
from shared.analysis.measures import Marks, coast_s, lifts, marks, off_runs, slip, slip_of, trail
from shared.analysis.model import NAN, CornerLap
from shared.analysis.trace import STEP_M, LapTrace, Typical, lap_traces, paces, pin, splits, typical
from shared.profiles.track import Corner
from shared.signals import Wide

MIN_LAPS = 3  # a typical lap needs at least this many valid full laps
INHERIT_KMH = 1.5  # entering a segment this much under the typical speed: the previous exit's doing
REJOIN_KMH = 0.5  # back on the typical trace when within this of its speed


@dataclass
class SessionAnalysis:
    rows: list[CornerLap] = field(default_factory=list)
    laps: list[int] = field(default_factory=list)  # the valid full laps analysed
    reason: str = ""  # why there are no rows

    def corner_rows(self, corner_id: str) -> list[CornerLap]:
        return [r for r in self.rows if r.corner_id == corner_id]

    def offs(self) -> list[CornerLap]:
        """The corners where a lap stopped, spun or went off, in lap then driving order."""
        return [r for r in self.rows if r.off]


def _ring(corners: list[Corner], length_m: float) -> list[tuple[Corner, float]]:
    """(corner, offset): the last corner a lap before, the lap's corners, the first corner a lap after."""
    return [(corners[-1], -length_m), *((c, 0.0) for c in corners), (corners[0], length_m)]


def _starts(
    tr: LapTrace, ring: list[tuple[Corner, float]], cuts: list[float], th: Mapping[str, float]
) -> tuple[list[float], list[Marks]]:
    """Where each ring corner's segment starts on this lap: the split before it, or earlier where the lap
    lifted or braked for it before the split (``lifts``: a coast belongs to the corner it leads into)."""
    n = len(ring) - 2
    ms: list[Marks] = []
    prev_x = tr.lo
    for c, off in ring:
        mk = marks(tr, c.start_m + off, c.apex_m + off, c.end_m + off, prev_x)
        ms.append(mk)
        prev_x = mk.min_x if np.isfinite(mk.min_x) else mk.apex_m
    lifts(ms, off_runs(tr, th))
    starts = [NAN]
    for j in range(1, len(ring)):
        cut = cuts[(j - 2) % n] - (ring[-1][1] if j == 1 else 0.0)  # the split after the ring's last
        on = ms[j].onset_m
        starts.append(on if on < cut else cut)
    for j in range(len(starts) - 2, 0, -1):  # a coast through a corner into the next is the next one's:
        starts[j] = min(starts[j], starts[j + 1])  # that corner's stretch is empty on this lap
    return starts, ms


def _inherited(tr: LapTrace, pace: float, typ: Typical, a: float, limit: float) -> float:
    """Time lost from ``a`` until the lap is back on the typical speed, when it entered slower."""
    if not typ.speed_at(a) - tr.speed_at(a) > INHERIT_KMH or limit <= a:
        return 0.0
    g = np.arange(a, limit, STEP_M)
    back = np.where(tr.speed_at(g) >= typ.speed_at(g) - REJOIN_KMH)[0]
    r = float(g[back[0]]) if len(back) else float(limit)
    lost = (tr.time_at(r) - tr.time_at(a)) - (typ.time_at(r) - typ.time_at(a)) * pace
    return max(float(lost), 0.0)


def _lap_rows(
    tr: LapTrace,
    pace: float,
    ring: list[tuple[Corner, float]],
    cuts: list[float],
    typ: Typical,
    th: Mapping[str, float],
) -> list[CornerLap]:
    starts, ms = _starts(tr, ring, cuts, th)
    sl = slip_of(tr, th)
    out = []
    for j in range(1, len(ring) - 1):
        c, a, b, mk = ring[j][0], starts[j], starts[j + 1], ms[j]
        if a < tr.lo or b > tr.hi or b < a or not np.isfinite(mk.min_kmh):
            continue
        lock, spin, worst = slip(tr, sl, a, mk.min_x, b)
        turn_in_bar, release_m = trail(tr, mk, th["trail_brake_bar"])
        t_ab = float(tr.time_at(b) - tr.time_at(a))
        typ_ab = float(typ.time_at(b) - typ.time_at(a)) * pace
        inh = _inherited(tr, pace, typ, a, mk.onset_m if np.isfinite(mk.onset_m) else b)
        out.append(
            CornerLap(
                lap=tr.lap,
                corner_id=c.id,
                corner=c.short,
                seq=j - 1,
                from_m=round(a, 1),
                to_m=round(b, 1),
                time_s=t_ab,
                typical_s=typ_ab,
                best_s=NAN,
                good_s=NAN,
                inherited_s=inh,
                loss_s=t_ab - typ_ab - inh,
                entry_kmh=float(tr.speed_at(a)),
                brake_m=mk.brake_m,
                lift_m=mk.lift_m,
                coast_s=coast_s(tr, mk.lift_m, mk.brake_m if np.isfinite(mk.brake_m) else mk.min_x, th),
                min_kmh=mk.min_kmh,
                pickup_m=mk.pickup_m,
                exit_kmh=mk.exit_kmh,
                lockup_s=lock,
                wheelspin_s=spin,
                slip_kmh=worst,
                turn_in_bar=turn_in_bar,
                release_m=release_m,
            )
        )
    return out


def _typicals(rows: list[CornerLap], best: dict[str, tuple[float, float]], th: Mapping[str, float]) -> None:
    """Each corner's figures on your good laps there (those that lost under ``opportunity_min_s``)."""
    by: dict[str, list[CornerLap]] = {}
    for r in rows:
        by.setdefault(r.corner_id, []).append(r)
    for cid, rs in by.items():
        typ = {}
        good = [r for r in rs if r.loss_s < th["opportunity_min_s"]] or rs
        for k in ("brake_m", "coast_s", "min_kmh", "pickup_m", "exit_kmh"):
            v = [getattr(r, k) for r in good if np.isfinite(getattr(r, k))]
            typ[k] = float(np.median(v)) if v else NAN
        for r in rs:
            r.best_s, r.good_s = best.get(cid, (NAN, NAN))
            r.typ_brake_m, r.typ_coast_s, r.typ_min_kmh = typ["brake_m"], typ["coast_s"], typ["min_kmh"]
            r.typ_pickup_m, r.typ_exit_kmh = typ["pickup_m"], typ["exit_kmh"]


def _best(
    traces: list[LapTrace], typ: Typical, corners: list[Corner], cuts: list[float], length_m: float
) -> dict[str, tuple[float, float]]:
    """Each corner's (fastest time, your good laps' time) over its usual segment (between the splits)."""
    out = {}
    for i, c in enumerate(corners):
        a = cuts[i - 1] - (length_m if i == 0 else 0.0)
        b = cuts[i]
        ts = [float(tr.time_at(b) - tr.time_at(a)) for tr in traces if tr.lo <= a and b <= tr.hi]
        out[c.id] = (min(ts) if ts else NAN, float(typ.time_at(b) - typ.time_at(a)))
    return out


def analyse_session(
    wide: Wide,
    laps: Sequence[Mapping[str, Any]],
    corners: list[Corner],
    length_m: float,
    th: Mapping[str, float],
) -> SessionAnalysis:
    """The session's corner analysis (``wide``: lap-assigned arrays with ``lap`` and ``dist_m``)."""
    cs = sorted(corners, key=lambda c: c.apex_m)
    if not cs or "lap" not in wide or "dist_m" not in wide:
        return SessionAnalysis(reason="no corners on this track" if not cs else "no laps")
    traces = lap_traces(wide, laps, length_m)
    if len(traces) < MIN_LAPS:
        return SessionAnalysis(laps=[t.lap for t in traces], reason=f"needs at least {MIN_LAPS} valid laps")
    typ = typical(traces, length_m)
    cuts = splits(cs, typ, length_m)
    pace = paces(typ, cuts, length_m)
    pin(typ, cuts, length_m)
    ring = _ring(cs, length_m)
    rows = [
        r for tr, p in zip(traces, pace, strict=True) for r in _lap_rows(tr, float(p), ring, cuts, typ, th)
    ]
    # what a segment inherited from the exit before it is the previous corner's loss
    key = {(r.lap, r.seq): r for r in rows}
    for r in rows:
        if r.inherited_s > 0:
            prev = key.get((r.lap, r.seq - 1)) if r.seq > 0 else key.get((r.lap - 1, len(cs) - 1))
            if prev is not None:
                prev.loss_s += r.inherited_s
    _typicals(rows, _best(traces, typ, cs, cuts, length_m), th)
    for r in rows:
        name_cause(r, th)
    return SessionAnalysis(rows=rows, laps=[t.lap for t in traces])
