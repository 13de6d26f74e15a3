"""Sign conventions checked against the car's own GPS track, after mapping.

Loggers disagree on signs (VBOX lateral g is positive left, a CAN steering angle may be positive left,
a logger mounted backwards swaps every axis). Pitwall's convention: ``g_lat``, ``yaw_rate_dps`` and
``steer_deg`` positive turning right, ``g_long`` positive accelerating, ``g_vert`` +1 g at rest. When the
GPS course and speed show clearly (|r| >= ``MIN_R``) that a signal runs the other way, it is negated, and
the reason goes into the signal registry. Weak or missing evidence changes nothing.
"""

from __future__ import annotations

import numpy as np

from shared.geo import LocalProjection
from shared.units import G

MIN_R = 0.5  # correlation needed to call a sign wrong
MIN_MOVING = 200  # samples above MOVING_KMH needed for any check
MOVING_KMH = 20.0


def _smooth(x: np.ndarray, n: int) -> np.ndarray:
    if n <= 1:
        return x
    return np.convolve(x, np.ones(n) / n, mode="same")


def gps_references(wide: dict[str, np.ndarray]) -> dict[str, np.ndarray] | None:
    """Turn rate (rad/s and deg/s, positive right), curvature, lateral and longitudinal g from the GPS
    track and speed, and the samples moving fast enough to judge."""
    t = wide.get("t_s")
    lat, lon, v = wide.get("lat"), wide.get("lon"), wide.get("speed_kmh")
    if t is None or lat is None or lon is None or v is None or len(t) < MIN_MOVING:
        return None
    ok = np.isfinite(lat) & np.isfinite(lon) & np.isfinite(v) & np.isfinite(t)
    if ok.sum() < MIN_MOVING:
        return None
    idx = np.where(ok)[0]
    proj = LocalProjection(float(lat[idx[0]]), float(lon[idx[0]]))
    x, y = proj.xy(lat[idx], lon[idx])
    tt = t[idx]
    dt = float(np.median(np.diff(tt))) if len(tt) > 1 else 0.0
    if dt <= 0:
        return None
    n = max(1, int(round(0.5 / dt)))  # half a second
    xs, ys = _smooth(x, n), _smooth(y, n)
    course = np.unwrap(np.arctan2(np.gradient(xs), np.gradient(ys)))  # clockwise from north
    turn = np.full(len(t), np.nan)
    turn[idx] = _smooth(np.gradient(course, tt), n)
    vms = v / 3.6
    acc = np.full(len(t), np.nan)
    acc[idx] = _smooth(np.gradient(_smooth(vms[idx], n), tt), n) / G
    moving = np.zeros(len(t), dtype=bool)
    moving[idx] = v[idx] > MOVING_KMH
    moving[: 2 * n] = moving[-2 * n :] = False  # smoothing edges
    if moving.sum() < MIN_MOVING:
        return None
    return {
        "turn": turn,
        "turn_dps": np.degrees(turn),
        "curv": turn / np.maximum(vms, 1.0),  # rad/m: what the steering wheel sets
        "lat_g": vms * turn / G,
        "long_g": acc,
        "moving": moving,
    }


def correlation(a: np.ndarray, b: np.ndarray, m: np.ndarray) -> float | None:
    ok = m & np.isfinite(a) & np.isfinite(b)
    if ok.sum() < MIN_MOVING or np.std(a[ok]) == 0 or np.std(b[ok]) == 0:
        return None
    return float(np.corrcoef(a[ok], b[ok])[0, 1])


CHECKS = (
    ("g_lat", "lat_g", "the lateral g from GPS speed and turn rate"),
    ("yaw_rate_dps", "turn", "the turn rate of the GPS track"),
    ("steer_deg", "turn", "the turn rate of the GPS track"),
    ("g_long", "long_g", "the change of GPS speed"),
)


def orient(wide: dict[str, np.ndarray], refs: dict[str, np.ndarray] | None = None) -> dict[str, str]:
    """Negate, in place, signals whose sign is clearly reversed; canonical -> why, for the registry."""
    notes: dict[str, str] = {}
    gv = wide.get("g_vert")
    if gv is not None and np.isfinite(gv).sum() >= MIN_MOVING:
        med = float(np.nanmedian(gv))
        if med < -0.5:
            wide["g_vert"] = -gv
            notes["g_vert"] = f"sign flipped: it reads {med:.2f} g at rest, Pitwall's convention is +1 g"
    refs = refs if refs is not None else gps_references(wide)
    if refs is None:
        return notes
    for canon, ref, what in CHECKS:
        vals = wide.get(canon)
        if vals is None:
            continue
        r = correlation(vals, refs[ref], refs["moving"])
        if r is not None and r <= -MIN_R:
            wide[canon] = -vals
            notes[canon] = f"sign flipped: it runs against {what} (r = {r:.2f})"
    return notes
