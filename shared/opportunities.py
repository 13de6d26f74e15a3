"""Where a session's time is: each corner's segment time on every valid lap against its own reference.

The lap is cut into one segment per corner: from ``opportunity_lead_m`` before the earliest brake or
lift for that corner over the session's valid laps, to the next corner's segment start (the last runs to
the line and on from it to the first). A segment's *reference* is the 25th percentile of its times over
the valid laps (what the driver does on a good lap, not a lucky one); a lap *loses* at a corner when its
segment time is more than ``opportunity_min_s`` over the reference and above the segment's own noise.
The rules that name the cause (brake point, minimum speed, throttle pick-up, coasting) are in
``shared.opportunity_rules``; this module only measures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.corners import corner_metrics
from shared.profiles.track import Corner

Wide = dict[str, np.ndarray]
REFERENCE_PCT = 25.0
NOISE_SDS = 3.0  # a loss counts when it is over this many standard deviations of the segment's times
PACE_PCT = 25.0  # a lap's pace: this percentile of its segments' times over their medians
MIN_LAPS = 3
CHANNELS = (
    "t_s",
    "dist_m",
    "speed_kmh",
    "throttle_pct",
    "brake_bar",
    "g_long",
    "g_lat",
)  # a reference needs at least this many valid laps
METRICS = ("brake_point_m", "min_kmh", "throttle_pickup_m", "exit_kmh", "drive_kmh", "coast_s", "coast_m")
DRIVE_M = 100.0  # "drive": the speed this far after the corner's exit (traction out of it)
COMPLEX_GAP_M = 60.0  # a corner braked for within this of the last one's exit shares its segment
BOUNDARY_SHARE = 0.5  # a corner starts a segment when at least this share of laps brake or lift for it


@dataclass
class LapData:
    lap: int
    t_start_s: float
    t_end_s: float
    a: dict[str, np.ndarray]  # this lap's samples: dist_m strictly increasing
    metrics: dict[str, dict[str, float | None]] = field(default_factory=dict)  # corner id -> METRICS
    _dt: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def time_at(self, d: float) -> float:
        """Seconds from the lap's start line to lap distance ``d`` (interpolated)."""
        if self._dt is None:
            self._dt = (
                np.concatenate([[0.0], self.a["dist_m"]]),
                np.concatenate([[0.0], self.a["t_s"] - self.t_start_s]),
            )
        return float(np.interp(d, *self._dt))

    @property
    def time_s(self) -> float:
        return self.t_end_s - self.t_start_s


@dataclass
class Segment:
    corner: Corner  # the corner it starts at (its name)
    from_m: float
    to_m: float  # may be past the line (the last corner's segment wraps to the first)
    corners: list[Corner] = field(default_factory=list)  # every corner in it, in lap order


@dataclass
class CornerLoss:
    segment: Segment
    times: dict[int, float]  # lap -> segment time
    reference_s: float
    lost: dict[int, float]  # the laps that lost time here -> seconds lost
    noise_s: float

    @property
    def time_to_gain_s(self) -> float:
        """What the corner cost a lap on the laps it cost time: their median loss (a lap that lost a
        little here from a mistake just before does not dilute it)."""
        return float(np.median(list(self.lost.values()))) if self.lost else 0.0

    @property
    def session_s(self) -> float:
        return float(sum(self.lost.values()))


def _coast(
    a: dict[str, np.ndarray], lo: float, hi: float, th: Mapping[str, float]
) -> tuple[float, float, float]:
    """(seconds, metres, first distance) of coasting (no throttle, no brake, at speed) within [lo, hi]."""
    thr, brk, spd = a.get("throttle_pct"), a.get("brake_bar"), a.get("speed_kmh")
    d, t = a["dist_m"], a["t_s"]
    if thr is None or spd is None or not np.isfinite(thr).any():
        return float("nan"), float("nan"), float("nan")
    b = np.zeros(len(d)) if brk is None or not np.isfinite(brk).any() else np.nan_to_num(brk)
    m = (d >= lo) & (d <= hi) & (np.nan_to_num(thr, nan=100.0) < th["coast_throttle_pct"])
    m &= (b < th["coast_brake_bar"]) & (np.nan_to_num(spd) > th["coast_speed_kmh"])
    idx = np.where(m)[0]
    if not len(idx):
        return 0.0, 0.0, float("nan")
    dt = np.gradient(t)[idx]
    dd = np.gradient(d)[idx]
    return float(dt.sum()), float(dd.sum()), float(d[idx[0]])


def prepare(
    wide: Wide, laps: Sequence[Mapping[str, Any]], corners: list[Corner], th: Mapping[str, float]
) -> list[LapData]:
    """The valid full laps' samples and each corner's metrics on them (brake point, minimum and exit
    speed, throttle pick-up: ``shared.corners``, the same numbers as the corner table; coasting here)."""
    out = []
    cs = sorted(corners, key=lambda c: c.start_m)
    for lp in laps:
        if lp.get("kind") != "full" or not lp.get("valid") or lp.get("t_start_s") is None:
            continue
        m = wide["lap"] == lp["lap"]
        if m.sum() < 10:
            continue
        a = {k: wide[k][m] for k in CHANNELS if k in wide and len(wide[k]) == len(m)}
        a["dist_m"] = np.maximum.accumulate(a["dist_m"]) + np.arange(int(m.sum())) * 1e-6
        ld = LapData(int(lp["lap"]), float(lp["t_start_s"]), float(lp["t_end_s"]), a)
        prev_end: float | None = None
        for c in cs:
            got = corner_metrics(a, c, prev_end) or {}
            lo = max(c.start_m - 300.0, prev_end if prev_end is not None else c.start_m - 300.0)
            cs_s, cs_m, c_from = _coast(a, lo, float(got.get("apex_m") or c.apex_m), th)
            spd = a.get("speed_kmh")
            drive = None
            if spd is not None and np.isfinite(spd).sum() > 1 and a["dist_m"][-1] >= c.end_m + DRIVE_M:
                ok = np.isfinite(spd)
                drive = float(np.interp(c.end_m + DRIVE_M, a["dist_m"][ok], spd[ok]))
            ld.metrics[c.id] = {k: got.get(k) for k in METRICS[:4]} | {
                "drive_kmh": drive,
                "coast_s": cs_s,
                "coast_m": cs_m,
                "coast_from_m": c_from,
            }
            prev_end = c.end_m
        out.append(ld)
    return out


def _nanmin(xs: list[float | None]) -> float | None:
    v = [float(x) for x in xs if x is not None and np.isfinite(x)]
    return min(v) if v else None


def _nanmedian(xs: list[float | None]) -> float | None:
    v = [float(x) for x in xs if x is not None and np.isfinite(x)]
    return float(np.median(v)) if v else None


def _share(laps: list[LapData], cid: str, key: str) -> float:
    vals = [ld.metrics.get(cid, {}).get(key) for ld in laps]
    return sum(1 for v in vals if v is not None and np.isfinite(v)) / max(len(laps), 1)


def segments(
    laps: list[LapData], corners: list[Corner], th: Mapping[str, float], length_m: float
) -> list[Segment]:
    """One segment per corner the laps brake or lift for, in lap order: from the earliest brake or lift
    over the laps (less the lead) to the next such corner's. A corner taken flat starts none (a slow
    exit before it costs time all the way through it): it is part of the segment before it."""
    cs = sorted(corners, key=lambda c: c.start_m)
    keep: list[tuple[Corner, float]] = []
    for c in cs:
        if max(_share(laps, c.id, k) for k in ("brake_point_m", "coast_from_m")) < BOUNDARY_SHARE:
            continue
        keys = ("brake_point_m", "coast_from_m")  # the earliest on any lap: a lap that coasts lifts earlier
        first = _nanmin([ld.metrics.get(c.id, {}).get(k) for ld in laps for k in keys])
        if first is None or first >= c.apex_m:
            continue
        s = first - th["opportunity_lead_m"]
        usual = _nanmedian([ld.metrics.get(c.id, {}).get("brake_point_m") for ld in laps])
        usual = first if usual is None else usual
        if keep and usual - keep[-1][0].end_m < COMPLEX_GAP_M and keep[-1][0].end_m < c.start_m:
            continue  # braking for it starts right after the last one's exit: one complex (T3-T3A)
        if keep:
            s = max(s, keep[-1][0].apex_m + 1.0, keep[-1][1] + 1.0)
        keep.append((c, s))
    if not keep:  # nothing braked for: the whole lap is one segment
        c0 = cs[0] if cs else Corner(id="lap", name="Lap", short="Lap", seq=0, start_m=0, apex_m=0, end_m=0)
        return [Segment(c0, 0.0, length_m, cs)]
    ends = [s for _, s in keep[1:]] + [keep[0][1] + length_m]
    out = []
    for (c, a), b in zip(keep, ends, strict=True):
        inside = [x for x in cs if a <= x.apex_m < b or a <= x.apex_m + length_m < b]
        out.append(Segment(c, float(a), float(b), inside or [c]))
    return out


def segment_parts(
    ld: LapData, seg: Segment, length_m: float, nxt: LapData | None = None
) -> tuple[float, float, int] | None:
    """(seconds on this lap, seconds past the line, the lap those are on) over ``seg``. A segment that
    wraps past the line goes on into the next lap (``nxt``, when it is a valid lap: a slow exit shows
    there), else into this lap's own start."""
    top = float(ld.a["dist_m"][-1])
    if seg.from_m < 0:
        return None
    if seg.to_m <= top:
        return ld.time_at(seg.to_m) - ld.time_at(seg.from_m), 0.0, ld.lap
    if seg.from_m > top + 50:
        return None
    on = nxt or ld
    return ld.time_s - ld.time_at(seg.from_m), on.time_at(max(seg.to_m - length_m, 0.0)), on.lap


def segment_time(ld: LapData, seg: Segment, length_m: float, nxt: LapData | None = None) -> float | None:
    """Seconds the lap took over ``seg`` (``segment_parts`` added up)."""
    p = segment_parts(ld, seg, length_m, nxt)
    return None if p is None else p[0] + p[1]


def _losses(
    segs: list[Segment],
    raw: dict[int, dict[int, tuple[float, float, int]]],
    pace: dict[int, float],
    th: Mapping[str, float],
) -> list[CornerLoss]:
    out = []
    for seg in segs:
        times = {k: a / pace.get(k, 1.0) + b / pace.get(on, 1.0) for k, (a, b, on) in raw[id(seg)].items()}
        if len(times) < MIN_LAPS:
            continue
        arr = np.array(list(times.values()))
        ref = float(np.percentile(arr, REFERENCE_PCT))
        # the spread of the better half (a lap with a mistake is slower, never faster): median - p10
        noise = float((np.median(arr) - np.percentile(arr, 10)) / 1.2816)
        bar = max(th["opportunity_min_s"], NOISE_SDS * noise)
        lost = {k: round(t - ref, 3) for k, t in times.items() if t - ref > bar}
        out.append(CornerLoss(seg, times, ref, lost, noise))
    return out


def corner_losses(
    laps: list[LapData], segs: list[Segment], th: Mapping[str, float], length_m: float
) -> list[CornerLoss]:
    """Each corner's segment times, reference and the laps that lost time there. A lap's pace as a whole
    (grip, wind, traffic: the lower quartile of its segment times over theirs; a mistake only makes a
    segment slower) is taken out, so a lap that is slower everywhere by a little is no corner's
    opportunity."""
    by = {ld.lap: ld for ld in laps}
    raw = {
        id(seg): {
            ld.lap: p
            for ld in laps
            if (p := segment_parts(ld, seg, length_m, by.get(ld.lap + 1))) is not None
        }
        for seg in segs
    }
    own = {k: {lap: p[0] for lap, p in v.items()} for k, v in raw.items()}  # this lap's part alone
    med = {k: float(np.median(list(v.values()))) for k, v in own.items() if v}
    pace = {}
    for ld in laps:
        r = [own[k][ld.lap] / med[k] for k in med if ld.lap in own[k] and med[k] > 0]
        pace[ld.lap] = float(np.percentile(r, PACE_PCT)) if r else 1.0
    return _losses(segs, raw, pace, th)


def where_lost(loss: CornerLoss, laps: list[LapData], step_m: float = 10.0) -> tuple[float, float] | None:
    """(from, to) lap distance over which the laps that lost time here lost most of it (10 % to 90 % of
    their mean loss against the other laps), within the segment's part before the line."""
    seg = loss.segment
    bad = [ld for ld in laps if ld.lap in loss.lost]
    good = [ld for ld in laps if ld.lap in loss.times and ld.lap not in loss.lost]
    if not bad or not good:
        return None
    top = min(float(ld.a["dist_m"][-1]) for ld in laps)
    grid = np.arange(seg.from_m, min(seg.to_m, top), step_m)
    if len(grid) < 3:
        return None

    def run(group: list[LapData]) -> np.ndarray:
        return np.mean([[ld.time_at(d) - ld.time_at(seg.from_m) for d in grid] for ld in group], axis=0)

    delta = run(bad) - run(good)
    total = float(delta[-1])
    if total <= 0:
        return None
    a = float(grid[int(np.argmax(delta >= 0.1 * total))])
    b = float(grid[int(np.argmax(delta >= 0.9 * total))])
    return a, max(b, a + step_m)


def measure(
    wide: Wide,
    laps: Sequence[Mapping[str, Any]],
    corners: list[Corner],
    th: Mapping[str, float],
    length_m: float,
    segs: list[Segment] | None = None,
) -> tuple[list[LapData], list[CornerLoss]]:
    """The session's valid laps and its corner losses (over ``segs`` when given: an earlier session's
    segments, for a thread)."""
    data = prepare(wide, laps, corners, th)
    if len(data) < MIN_LAPS:
        return data, []
    return data, corner_losses(data, segs or segments(data, corners, th, length_m), th, length_m)
