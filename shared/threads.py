"""Coaching threads across sessions: each opportunity of an earlier session at the same track in the same
car, re-measured in this one and marked resolved, improving or unchanged, with the numbers (before ->
now); "no new data" when the corner was not driven on enough valid laps or the rule's channel was not
recorded.

Threads are computed on demand from the lake (the earlier session's opportunities, this session's corner
losses): nothing is stored, so a thread can never disagree with the sessions it is made of.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from shared.opportunities import CornerLoss, LapData, Wide, measure
from shared.opportunity_rules import RULES, evidence
from shared.profiles.track import TrackProfile

IMPROVING_SHARE = 2 / 3  # improving: the cost per lap fell to at most this share of what it was
RESOLVED, IMPROVING, UNCHANGED, NO_DATA = "resolved", "improving", "unchanged", "no new data"
# the rule's metric -> the name of the evidence that holds it in an opportunity
EVIDENCE_OF = {
    "brake_point_m": "brake_point_m",
    "min_kmh": "min_speed_kmh",
    "throttle_pickup_m": "throttle_pickup_m",
    "exit_kmh": "exit_speed_kmh",
    "drive_kmh": "speed_100m_after_exit_kmh",
    "coast_s": "coasting_s",
}
CHANNEL_WORDS = {
    "brake_point_m": "brake pressure (or deceleration)",
    "coast_s": "throttle and brake",
    "throttle_pickup_m": "throttle",
}


def _median(xs: Sequence[float | None]) -> float | None:
    v = [float(x) for x in xs if x is not None and np.isfinite(x)]
    return round(float(np.median(v)), 2) if v else None


def _no_data(before: Mapping[str, Any], why: str) -> dict[str, Any]:
    return {**_head(before), "status": NO_DATA, "reason": why, "now": None}


def _head(before: Mapping[str, Any]) -> dict[str, Any]:
    n = max(int(before.get("valid_laps") or 1), 1)
    return {
        "corner": before["corner"],
        "corner_id": before["corner_id"],
        "name": before.get("name"),
        "rule": before["rule"]["name"],
        "target": before["target"],
        "before": {
            "session_id": before.get("session_id"),
            "time_to_gain_s": before["time_to_gain_s"],
            "laps_lost": len(before["laps"]),
            "valid_laps": n,
            "cost_per_lap_s": round(before["session_s"] / n, 3),
            "metric": before["check"].get("metric"),
            "metric_value": (
                before["evidence"].get(EVIDENCE_OF.get(before["check"].get("metric") or ""), {}) or {}
            ).get("laps"),
        },
    }


def follow(
    before: Mapping[str, Any], losses: dict[str, CornerLoss], laps: list[LapData], th: Mapping[str, float]
) -> dict[str, Any]:
    """One earlier opportunity re-measured in this session (its corner's losses and metrics)."""
    cid = before["corner_id"]
    loss = losses.get(cid)
    if loss is None:
        return _no_data(before, f"{before['corner']} was not timed on 3 valid laps this session")
    metric = before["check"].get("metric")
    values = [ld.metrics.get(cid, {}).get(metric) for ld in laps] if metric else []
    if metric and _median(values) is None:
        words = CHANNEL_WORDS.get(metric, "the channel it needs")
        return _no_data(before, f"{words} not recorded at {before['corner']} this session")
    n = len(loss.times)
    cost_now = loss.session_s / n
    head = _head(before)
    ev = evidence(loss, laps) if loss.lost else {}
    key = next((r.metric for r in RULES if r.metric == metric), None)
    now = {
        "time_to_gain_s": round(loss.time_to_gain_s, 3),
        "laps_lost": len(loss.lost),
        "laps": sorted(loss.lost),
        "valid_laps": n,
        "cost_per_lap_s": round(cost_now, 3),
        "metric_value": (ev.get(key, {}) or {}).get("laps") if key and loss.lost else _median(values),
        "metric_all_laps": _median(values) if metric else None,
    }
    target, tol = before["check"].get("target"), before["check"].get("tolerance")
    off_target = (
        metric is not None
        and target is not None
        and tol is not None
        and now["metric_all_laps"] is not None
        and abs(now["metric_all_laps"] - target) >= tol
        and np.sign(now["metric_all_laps"] - target)
        == np.sign((head["before"]["metric_value"] or target) - target)
    )
    if not loss.lost and not off_target:
        status = RESOLVED
    elif loss.lost and cost_now <= IMPROVING_SHARE * head["before"]["cost_per_lap_s"]:
        status = IMPROVING
    else:
        status = UNCHANGED
    return {**head, "status": status, "now": now}


def session_threads(
    earlier: Sequence[Mapping[str, Any]],
    wide: Wide,
    laps: Sequence[Mapping[str, Any]],
    track: TrackProfile,
    th: Mapping[str, float],
) -> list[dict[str, Any]]:
    """Every earlier opportunity (``earlier``: opportunity dicts, each with its ``session_id``) followed
    into this session (``wide``, ``laps``)."""
    data, losses = measure(wide, laps, track.corners, th, track.length_m)
    by = {x.segment.corner.id: x for x in losses}
    for o in earlier:  # a corner that starts no segment this session is timed in the one around it
        c = track.find_corner(o["corner_id"])
        if c is not None and c.id not in by:
            for x in losses:
                s = x.segment
                if s.from_m <= c.apex_m < s.to_m or s.from_m <= c.apex_m + track.length_m < s.to_m:
                    by[c.id] = x
    return [follow(o, by, data, th) for o in earlier]
