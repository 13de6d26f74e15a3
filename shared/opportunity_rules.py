"""A session's three opportunities: the corners that cost the most time, each with its evidence, the
rule that names the cause, one concrete target and how the next session checks it.

The rules are one table (``RULES``), tried in order on the corner's evidence (the laps that lost time
there against the laps that did not); their thresholds are the coaching threshold table's
(``shared.thresholds``), so the hot path's cues and the debrief's opportunities use the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.opportunities import METRICS, CornerLoss, LapData, Wide, measure, where_lost
from shared.profiles.track import Corner, TrackProfile

TOP_N = 3
MARKER_SAME_M = 5.0  # a target this close to a brake marker is "at" it


@dataclass(frozen=True)
class Rule:
    name: str
    metric: str  # the evidence it reads
    threshold: str  # its key in the threshold table
    sign: int  # +1: the evidence is over the threshold; -1: under minus the threshold
    says: str  # what it means, for the driver


# tried in this order; the first whose evidence passes its threshold names the cause
RULES: tuple[Rule, ...] = (
    Rule("coasting", "coast_s", "coast_min_s", +1, "coasting between throttle and brake"),
    Rule("brake_early", "brake_point_m", "brake_point_delta_m", -1, "braking earlier than on your good laps"),
    Rule("brake_late", "brake_point_m", "brake_point_delta_m", +1, "braking later and running in deep"),
    Rule("over_slow", "min_kmh", "over_slow_kmh", -1, "a lower minimum speed than on your good laps"),
    Rule("late_power", "throttle_pickup_m", "late_power_m", +1, "picking up the throttle later"),
    Rule("weak_exit", "exit_kmh", "weak_exit_kmh", -1, "a slower exit than on your good laps"),
    Rule(
        "weak_drive",
        "drive_kmh",
        "weak_exit_kmh",
        -1,
        "less drive out of the corner (wheelspin or a late, timid throttle)",
    ),
)
SEGMENT_RULE = Rule("segment_time", "", "opportunity_min_s", +1, "time lost with no single input to blame")
UNITS = {
    "brake_point_m": "m",
    "min_kmh": "km/h",
    "throttle_pickup_m": "m",
    "exit_kmh": "km/h",
    "drive_kmh": "km/h",
    "coast_s": "s",
}


def _median(xs: Sequence[float | None]) -> float | None:
    v = [float(x) for x in xs if x is not None and np.isfinite(x)]
    return float(np.median(v)) if v else None


def evidence(
    loss: CornerLoss, laps: list[LapData], corner: Corner | None = None
) -> dict[str, dict[str, float | None]]:
    """Each metric of ``corner`` (the segment's first by default) on the laps that lost time in its
    segment (``laps``) and on the others (``reference``)."""
    cid = (corner or loss.segment.corner).id
    bad = [ld.metrics.get(cid, {}) for ld in laps if ld.lap in loss.lost]
    good = [ld.metrics.get(cid, {}) for ld in laps if ld.lap not in loss.lost]
    out = {}
    for k in METRICS:
        now, ref = _median([m.get(k) for m in bad]), _median([m.get(k) for m in good])
        out[k] = {
            "laps": None if now is None else round(now, 2),
            "reference": None if ref is None else round(ref, 2),
            "delta": None if now is None or ref is None else round(now - ref, 2),
        }
    return out


def pick_rule(ev: Mapping[str, Mapping[str, float | None]], th: Mapping[str, float]) -> Rule:
    for rule in RULES:
        d = ev.get(rule.metric, {}).get("delta")
        if d is not None and d * rule.sign >= th[rule.threshold]:
            return rule
    return SEGMENT_RULE


def where(c: Corner, dist_m: float) -> str:
    """A brake point as a driver finds it: at (or so far from) the corner's brake marker when the track
    profile has one, else metres before the corner."""
    bm = c.brake_marker
    if bm is not None:
        off = dist_m - bm.dist_m
        if abs(off) <= MARKER_SAME_M:
            return f"at {bm.name}"
        return f"{abs(off):.0f} m {'after' if off > 0 else 'before'} {bm.name}"
    before = c.start_m - dist_m
    return f"{before:.0f} m before {c.short}" if before > 0 else f"{-before:.0f} m into {c.short}"


def target(rule: Rule, c: Corner, ev: Mapping[str, Mapping[str, float | None]]) -> tuple[str, float | None]:
    """(one concrete instruction, the value the next session is checked against)."""
    e = ev.get(rule.metric, {})
    ref, d = e.get("reference"), e.get("delta")
    if rule.name in ("brake_early", "brake_late") and ref is not None and d is not None:
        word = "later" if rule.name == "brake_early" else "earlier"
        return f"brake {abs(d):.0f} m {word}, {where(c, ref)}", ref
    if rule.name == "coasting" and e.get("laps") is not None:
        return (
            f"go straight from throttle to brake into {c.short}: cut the {e['laps']:.1f} s of coasting",
            ref,
        )
    if rule.name == "over_slow" and ref is not None and d is not None:
        return f"carry {abs(d):.0f} km/h more through {c.short}: minimum {ref:.0f} km/h", ref
    if rule.name == "late_power" and ref is not None and d is not None:
        return (
            f"pick up the throttle {abs(d):.0f} m earlier, {ref - c.apex_m:+.0f} m from the apex of {c.short}",
            ref,
        )
    if rule.name == "weak_exit" and ref is not None and d is not None:
        return f"exit {c.short} {abs(d):.0f} km/h faster: {ref:.0f} km/h at the exit", ref
    if rule.name == "weak_drive" and ref is not None and d is not None:
        return (
            f"drive out of {c.short} cleanly: {abs(d):.0f} km/h more, {ref:.0f} km/h 100 m after the exit",
            ref,
        )
    return f"drive {c.short} as on your good laps", None


def _phase(c: Corner, a: float, b: float) -> str:
    if b <= c.apex_m:
        return f"on the way into {c.short}"
    if a >= c.apex_m:
        return f"on the way out of {c.short}"
    return f"through {c.short}"


def unexplained(c: Corner, loss: CornerLoss, laps: list[LapData]) -> str:
    """The target when no input explains the loss: where on the track it goes, and which laps to overlay."""
    span = where_lost(loss, laps)
    worst = max(loss.lost, key=lambda k: loss.lost[k])
    good = min((k for k in loss.times if k not in loss.lost), key=lambda k: loss.times[k], default=None)
    text = f"find the {loss.time_to_gain_s:.2f} s"
    if span is not None:
        text += f" {_phase(c, *span)}, from {span[0]:.0f} m to {span[1]:.0f} m"
    if good is not None:
        text += f": overlay lap {worst} on lap {good} there"
    return text


def check(
    rule: Rule, c: Corner, value: float | None, loss: CornerLoss, th: Mapping[str, float]
) -> dict[str, Any]:
    """How the next session checks it: the same segment re-timed, and the rule's metric against the target."""
    seg = loss.segment
    out: dict[str, Any] = {
        "segment_m": [round(seg.from_m, 1), round(seg.to_m, 1)],
        "time_to_gain_under_s": th["opportunity_min_s"],
        "metric": rule.metric or None,
        "target": None if value is None else round(value, 1),
        "tolerance": th[rule.threshold] if rule.metric else None,
        "unit": UNITS.get(rule.metric),
    }
    text = f"next session: {c.short} within {th['opportunity_min_s']:g} s of your reference on every lap"
    if rule.metric and value is not None:
        text += (
            f", {rule.metric.removesuffix('_m').removesuffix('_kmh').removesuffix('_s').replace('_', ' ')}"
        )
        text += f" {value:.1f} {UNITS[rule.metric]} within {th[rule.threshold]:g}"
    out["text"] = text
    return out


def cause(
    loss: CornerLoss, laps: list[LapData], th: Mapping[str, float]
) -> tuple[Corner, dict[str, Any], Rule]:
    """The corner of the segment whose evidence a rule explains (the first, in lap order), its evidence
    and the rule; the segment's first corner and the segment-time rule when none does."""
    first: tuple[Corner, dict[str, Any], Rule] | None = None
    for c in loss.segment.corners or [loss.segment.corner]:
        ev = evidence(loss, laps, c)
        rule = pick_rule(ev, th)
        if rule is not SEGMENT_RULE:
            return c, ev, rule
        if first is None or c is loss.segment.corner:
            first = (c, ev, rule)
    assert first is not None
    return first


def opportunity(
    loss: CornerLoss, laps: list[LapData], th: Mapping[str, float], n_laps: int
) -> dict[str, Any]:
    c, ev, rule = cause(loss, laps, th)
    text, value = target(rule, c, ev)
    if rule is SEGMENT_RULE:
        text = unexplained(c, loss, laps)
    return {
        "corner": c.short,
        "corner_id": c.id,
        "name": c.name,
        "segment_corners": [x.short for x in loss.segment.corners],
        "time_to_gain_s": round(loss.time_to_gain_s, 3),
        "session_s": round(loss.session_s, 3),
        "laps": sorted(loss.lost),
        "valid_laps": n_laps,
        "reference_s": round(loss.reference_s, 3),
        "evidence": {
            "brake_point_m": ev["brake_point_m"],
            "min_speed_kmh": ev["min_kmh"],
            "throttle_pickup_m": ev["throttle_pickup_m"],
            "exit_speed_kmh": ev["exit_kmh"],
            "speed_100m_after_exit_kmh": ev["drive_kmh"],
            "coasting_s": ev["coast_s"],
            "coasting_m": ev["coast_m"],
        },
        "rule": {
            "name": rule.name,
            "says": rule.says,
            "threshold": th[rule.threshold],
            "threshold_name": rule.threshold,
        },
        "target": text,
        "check": check(rule, c, value, loss, th),
    }


def session_opportunities(
    wide: Wide,
    laps: Sequence[Mapping[str, Any]],
    track: TrackProfile,
    th: Mapping[str, float],
    n: int = TOP_N,
) -> dict[str, Any]:
    """The ``n`` corners with the most time to gain this session (time lost per lap on the laps that lost
    it, times those laps: the session's total), best first; fewer when fewer corners lose time."""
    data, losses = measure(wide, laps, track.corners, th, track.length_m)
    if not losses:
        return {"valid_laps": len(data), "opportunities": [], "reason": "needs at least 3 valid laps"}
    ranked = sorted((x for x in losses if x.lost), key=lambda x: -x.session_s)[:n]
    return {
        "valid_laps": len(data),
        "opportunities": [
            {"rank": i + 1, **opportunity(x, data, th, len(data))} for i, x in enumerate(ranked)
        ],
        "method": "segment time per corner against its 25th percentile over the valid laps",
    }
