"""A corner's observation from the frames its watcher kept (``services.hotpath.corner_live``), built at its
exit by ``summary``: a generator, so a long window's summary is spread over its exit frame and the next
two (a stage a frame, ``yield`` between them), and no frame carries all of it.

A window of ``SPLIT_ROWS`` frames or more (at 1 kHz every corner: 4-10 ms of thread CPU at its worst in
one frame) is summarised in three stages (the working columns; the corner's metrics; the coaching
figures and slips): its observation comes two frames after the exit. A shorter
window (100 Hz and slower: well under a millisecond) is summarised in its exit frame, as before."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field

import numpy as np
import numpy.ma  # np.nanpercentile imports it on first use: 12-15 ms in the first exit's frame

from shared.corners import corner_metrics
from shared.event_conditions import runs
from shared.event_detect import slip_runs
from shared.profiles.track import Corner

SPLIT_ROWS = 2000  # a window of this many frames or more is summarised over three frames


@dataclass
class SlipEvent:
    kind: str  # lockup | wheelspin
    wheel: str
    dist_m: float
    lap: int


@dataclass
class CornerObservation:
    lap: int
    corner: Corner
    metrics: dict[str, float | None]
    coast_s: float = 0.0
    overlap_s: float = 0.0
    brake_at_turn_in_bar: float | None = None
    ramp_s: float | None = None
    throttle_drop_pct: float = 0.0
    steer_reversals: int = 0
    approach_kmh: float | None = None  # top speed between the previous corner and this one
    carried_kmh: float | None = None  # speed where this corner's approach begins (the previous one's exit)
    coast_out: bool = False  # a coast begun in the corner is still going at its exit: it leads on
    lifted: bool = False  # throttle went below 20 % in the corner (there is a pickup to judge)
    slips: list[SlipEvent] = field(default_factory=list)
    clean: bool = True


@dataclass(frozen=True)
class Window:
    lo: float  # the first frame kept: the previous corner's apex, or APPROACH_M before the entry
    hi: float  # the exit
    corner: Corner
    from_m: float  # where the corner's own approach begins: the previous exit, or APPROACH_M before
    prev_end_m: float | None  # the previous corner's exit (its brake zone starts after it)


Summary = Generator[None, None, "CornerObservation | None"]


def summary(cols: dict[str, np.ndarray], w: Window, lap: int, th: dict[str, float]) -> Summary:
    """The observation of corner ``w`` on ``lap`` from its window's frames as columns (``cols``, read
    until the last stage, never written); None when the window does not cover the corner. Yields between
    stages when the window has ``SPLIT_ROWS`` frames or more."""
    c = w.corner
    arr = dict(cols)
    n = len(arr["t_s"])
    if n < 5 or np.nanmax(arr["dist_m"]) < c.end_m - 20:
        return None
    arr["dist_m"] = np.maximum.accumulate(arr["dist_m"]) + np.arange(n) * 1e-6
    t, d = arr["t_s"], arr["dist_m"]
    thr, brk, spd = (np.nan_to_num(arr[k]) for k in ("throttle_pct", "brake_bar", "speed_kmh"))
    split = n >= SPLIT_ROWS
    if split:  # about a third each (cProfile: bench/frame_stall.py --profile "corner exit")
        yield
    m = corner_metrics(arr, c, w.prev_end_m)
    if m is None:
        return None
    own = d >= w.from_m
    coast = (thr < th["coast_throttle_pct"]) & (brk < th["coast_brake_bar"]) & (spd > th["coast_speed_kmh"])
    coast_s, coast_out = _coast_into(coast, t, own, d <= c.start_m)
    overlap = (thr > th["overlap_throttle_pct"]) & (brk > th["overlap_brake_bar"])
    overlap_s = _longest_run_s(overlap[own], t[own])
    if split:
        yield
    obs = CornerObservation(lap, c, m, coast_s=coast_s, overlap_s=overlap_s, coast_out=coast_out)
    if np.isfinite(arr["brake_bar"]).any():
        obs.brake_at_turn_in_bar = float(np.interp(c.start_m, d, brk))
        bp = m.get("brake_point_m")
        peak = m.get("brake_peak_bar")
        if bp is not None and peak:
            k0 = int(np.searchsorted(d, bp))
            above = np.where(brk[k0:] >= 0.8 * peak)[0]
            if len(above):
                obs.ramp_s = float(t[k0 + above[0]] - t[k0])
    v_own = arr["speed_kmh"][own]
    obs.approach_kmh = float(np.nanmax(v_own)) if np.isfinite(v_own).any() else None
    ok = np.isfinite(arr["speed_kmh"])
    if d[0] <= w.from_m + 5.0 and ok.sum() > 1:
        obs.carried_kmh = float(np.interp(w.from_m, d[ok], arr["speed_kmh"][ok]))
    in_corner = (d >= c.start_m) & (d <= c.end_m)
    obs.lifted = bool(in_corner.any() and np.min(thr[in_corner]) < 20)
    pick = m.get("throttle_pickup_m")
    if pick is not None:
        after = (d >= pick) & (d <= c.end_m)
        if after.sum() > 2:
            obs.throttle_drop_pct = _dip(thr[after])
    apex = m.get("apex_m") or c.apex_m
    ex = (d >= apex) & (d <= c.end_m)
    obs.steer_reversals = _reversals(arr["steer_deg"][ex], t[ex])
    k_own = int(np.argmax(own)) if own.any() else len(d)
    mine = {k: v[k_own:] for k, v in arr.items()}
    for sr in slip_runs(mine, th):  # the one event detector, on the frames this corner owns
        obs.slips.append(SlipEvent(sr.kind, sr.wheel, float(d[k_own + sr.start]), lap))
    obs.clean = not obs.slips
    return obs


def _reversals(st: np.ndarray, ts: np.ndarray) -> int:
    """Steering corrections from the apex to the exit: sign changes of a deliberate hand movement."""
    ok = np.isfinite(st)
    if ok.sum() <= 6:
        return 0
    st, ts = st[ok], ts[ok]
    k = max(1, int(round(0.25 / max(float(np.median(np.diff(ts))), 1e-3))))
    sm = np.convolve(st, np.ones(k) / k, mode="valid")  # 0.25 s average: sensor noise is not a correction
    rate = np.diff(sm) / max(float(np.median(np.diff(ts))), 1e-3)
    sig = np.sign(rate[np.abs(rate) > 30.0])  # deliberate hand movement, deg/s
    return int(np.sum(sig[1:] != sig[:-1])) if len(sig) > 1 else 0


def _dip(seg: np.ndarray) -> float:
    """The largest throttle fall after pickup that is followed by a recovery (a hesitation, not a lift
    for the next corner): the fall below the running peak at a frame, counted when the throttle later
    comes back by at least half of it."""
    peak = np.maximum.accumulate(seg)
    drop = peak - seg
    later = np.maximum.accumulate(seg[::-1])[::-1]  # the highest throttle from each frame on
    ok = later[1:] >= seg[1:] + 0.5 * drop[1:]
    return float(drop[1:][ok].max()) if ok.any() else 0.0


def _coast_into(
    mask: np.ndarray, t: np.ndarray, own: np.ndarray, before_entry: np.ndarray
) -> tuple[float, bool]:
    """The longest coast that leads into this corner: it ends after the corner's approach began, or
    it began before the entry and runs through the corner; and whether one that began in the corner is
    still going at the exit (it leads into the next corner, which names it)."""
    best = 0.0
    for a, b in runs(mask):
        if b == len(mask):  # still going at the last frame: the last run
            if before_entry[a]:
                return max(best, float(t[-1] - t[a])), False
            return best, True
        if own[b - 1]:
            best = max(best, float(t[b - 1] - t[a]))
    return best, False


def _longest_run_s(mask: np.ndarray, t: np.ndarray) -> float:
    return max((float(t[b - 1] - t[a]) for a, b in runs(mask)), default=0.0)
