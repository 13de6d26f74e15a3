"""Honest coverage: which samples of a channel are readings at all.

A logger writes "no reading" in ways that look like numbers: ``-1024`` (VBOX analogue inputs without a
sensor), ``65535`` / ``-32768`` (an unset 16-bit CAN field), ``255`` in every sample (an unset 8-bit gear),
and a sensor that stops updating repeats its last value. Mapped signals drop their rule's markers
(:mod:`shared.channel_rules`); here the same is done for every channel, and a continuous signal that holds
one exact value for ``FROZEN_S`` while the car moves is blanked as frozen. The share left is the
channel's coverage in the data-quality report (:mod:`shared.quality`).
"""

from __future__ import annotations

import numpy as np

from shared.units import normalise_unit

NO_READING = (-1024.0, 65535.0, -32768.0)  # raw values that are never a reading, whatever the channel
ALL_ONES = (255.0, 65535.0)  # a channel that holds only this value reports nothing
FROZEN_S = 15.0  # one exact value held this long while moving is a sensor that stopped updating
MOVING_KMH = 30.0
#: signals that always move while the car does (noise alone changes them); flags, pedals, brake and
#: temperatures legitimately hold a value
CONTINUOUS = ("steer_deg", "g_lat", "g_long", "g_vert", "yaw_rate_dps", "rpm")
#: units of a physical sensor: one exact value over a whole session of one is an unconnected input
SENSOR_UNITS = (
    "C",
    "F",
    "K",
    "bar",
    "psi",
    "kPa",
    "mbar",
    "V",
    "mV",
    "g",
    "m/s2",
    "rpm",
    "km/h",
    "mph",
    "deg/s",
)
MIN_SESSION_S = 60.0


def no_marker(v: np.ndarray) -> np.ndarray:
    """False where a raw value is one of the universal "no reading" markers (``NO_READING``)."""
    ok = np.ones(len(v), dtype=bool)
    for marker in NO_READING:
        ok &= v != marker
    return ok


def valid_raw(t: np.ndarray, values: np.ndarray, unit: str) -> np.ndarray:
    """Which raw samples of any channel are readings: finite, no universal marker, not all-ones, and not
    a sensor's unit holding one exact value for a whole session (an input with nothing connected)."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v) & no_marker(v)
    fin = v[ok]
    if len(fin) and fin.min() == fin.max():
        span = float(t[-1] - t[0]) if len(t) > 1 else 0.0
        if float(fin[0]) in ALL_ONES or (normalise_unit(unit) in SENSOR_UNITS and span >= MIN_SESSION_S):
            ok[:] = False
    return ok


def frozen_runs(t: np.ndarray, v: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """Samples in runs of one exact value lasting ``FROZEN_S`` or more, all of it while moving."""
    out = np.zeros(len(v), dtype=bool)
    if len(v) < 2:
        return out
    change = np.r_[True, (v[1:] != v[:-1]) | ~np.isfinite(v[1:])]
    starts = np.flatnonzero(change)
    ends = np.r_[starts[1:], len(v)]  # exclusive
    long = (t[ends - 1] - t[starts] >= FROZEN_S) & np.isfinite(v[starts])
    still = np.r_[0, np.cumsum(~moving)]  # samples not moving before each index
    for a, b in zip(starts[long], ends[long], strict=True):
        if still[b] == still[a]:
            out[a:b] = True
    return out


def blank_frozen(wide: dict[str, np.ndarray]) -> dict[str, str]:
    """Blank, in place, frozen stretches of the continuous signals; canonical -> what was blanked."""
    t, v = wide.get("t_s"), wide.get("speed_kmh")
    notes: dict[str, str] = {}
    if t is None or v is None or len(t) < 2:
        return notes
    with np.errstate(invalid="ignore"):
        moving = np.asarray(v > MOVING_KMH)
    for canon in CONTINUOUS:
        x = wide.get(canon)
        if x is None:
            continue
        frozen = frozen_runs(t, x, moving)
        if frozen.any():
            x = x.copy()
            x[frozen] = np.nan
            wide[canon] = x
            share = 100.0 * frozen.sum() / max(1, int(moving.sum()))
            notes[canon] = (
                f"frozen (one value for {FROZEN_S:.0f} s or more while moving) in {share:.0f} % of the moving samples: no reading there"
            )
    return notes


def valid_share(t_grid: np.ndarray, values: np.ndarray, t_first: float, t_last: float) -> float:
    """Share of the grid rows inside the channel's own time span that hold a reading."""
    a = int(np.searchsorted(t_grid, t_first - 1e-9, side="left"))
    b = int(np.searchsorted(t_grid, t_last + 1e-9, side="right"))
    return float(np.isfinite(values[a:b]).sum() / (b - a)) if b > a else 0.0
