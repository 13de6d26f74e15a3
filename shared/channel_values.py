"""Value plausibility: a channel that neither the file's function nor its name identifies is found by
how its values behave against the car's own GPS track.

Only for the signals the track can vouch for (yaw rate, lateral and longitudinal g, steering), and only
when the session lacks the signal or has it only GPS-derived: an unmapped channel in a unit that fits,
whose values follow the track's reference closely (|r| >= ``FIND_R``) and, for g and yaw, at the right
scale (slope within ``SLOPE``), feeds it; the car's own sensor so found outranks the GPS-derived channel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from shared.channel_map import NO_RULE, Decision
from shared.channel_orient import correlation
from shared.channel_spec import Spec, unit_fits
from shared.importers.base import RawLog
from shared.signals import CHANNEL_BY_NAME
from shared.units import declared

FIND_R = 0.85
SLOPE = (0.7, 1.4)
MIN_STEER_DEG = 20.0  # a steering wheel turns this far in corners; a body roll angle never does
#: canonical, the GPS reference it must follow, in words, whether its scale must match the reference
TARGETS = (
    ("yaw_rate_dps", "turn_dps", "the turn rate of the GPS track", True),
    ("g_lat", "lat_g", "the lateral g from GPS speed and turn rate", True),
    ("g_long", "long_g", "the change of GPS speed", True),
    ("steer_deg", "curv", "the curvature of the GPS track", False),
)
Resample = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _gps_fed(d: Decision | None) -> bool:
    return d is not None and (d.name.lower().startswith("gps") or "GPS-derived" in d.why)


def _open(d: Decision) -> bool:
    """An unmapped channel no rule claimed: not ignored by the user, no alarm, no other candidate."""
    return d.canonical is None and not d.candidate_for and d.why == NO_RULE


def _score(v: np.ndarray, ref: np.ndarray, moving: np.ndarray, scaled: bool) -> float:
    r = correlation(v, ref, moving)
    if r is None or abs(r) < FIND_R:
        return 0.0
    ok = moving & np.isfinite(v) & np.isfinite(ref)
    if scaled:
        slope = abs(float(np.sum(v[ok] * ref[ok]) / max(float(np.sum(ref[ok] ** 2)), 1e-12)))
        if not SLOPE[0] <= slope <= SLOPE[1]:
            return 0.0
    elif float(np.percentile(np.abs(v[ok]), 99)) < MIN_STEER_DEG:  # a roll or pitch angle, not a wheel
        return 0.0
    return abs(r)


def find_by_values(
    wide: dict[str, np.ndarray],
    raw: RawLog,
    decisions: list[Decision],
    resample: Resample,
    refs: dict[str, np.ndarray] | None,
) -> list[Decision]:
    """Decisions with channels found by their values (``wide`` updated in place); ``refs`` are the GPS
    track's references (:func:`shared.channel_orient.gps_references`), None without a usable track."""
    if refs is None:
        return decisions
    by_canon = {d.canonical: d for d in decisions if d.canonical}
    out = {d.name: d for d in decisions}
    for canon, ref, what, scaled in TARGETS:
        current = by_canon.get(canon)
        if current is not None and (current.pinned or not _gps_fed(current)):
            continue
        target = CHANNEL_BY_NAME[canon].unit
        best: tuple[float, str, Spec, np.ndarray] | None = None
        for d in out.values():
            ch = raw.channels[d.name]
            if not _open(d) or not declared(ch.unit) or not unit_fits(ch.unit, target):
                continue
            if d.name.lower().startswith("gps") or ch.unit.strip().lower() in ("", "#"):
                continue
            spec = Spec(canon, ch.unit)
            vals = resample(ch.t_s, spec.apply(ch.values))
            score = _score(vals, refs[ref], refs["moving"], scaled)
            if score and (best is None or score > best[0]):
                best = (score, d.name, spec, vals)
        if best is None:
            continue
        score, name, spec, vals = best
        wide[canon] = vals
        why = f"found by its values: they follow {what} (|r| = {score:.2f})"
        if current is not None:
            why += f"; the car's own sensor, over the GPS-derived {current.name!r}"
            out[current.name] = replace(
                current,
                canonical=None,
                spec=None,
                candidate_for=[canon],
                alt=current.spec,
                why=f"{current.why}; gives way to {name!r}, the car's own sensor, found by its values",
            )
        out[name] = replace(out[name], canonical=canon, spec=spec, why=why)
    return [out[d.name] for d in decisions]
