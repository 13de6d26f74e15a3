"""The achievable lap on laps built by hand on a circle (where each lap is fast, how fast, which line):
a join happens only where speed, heading and lateral offset agree within the stated tolerances; invalid
laps never contribute; a single lap is exactly itself; the search finds the true optimum (checked by
brute force over every chain)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest

from shared import achievable as ac
from shared.achievable import achievable_lap, solve
from shared.achievable_trace import stitched_trace
from shared.geo import LocalProjection
from shared.lap_gates import Crossings

R = 100.0  # the reference line's radius, m (counter-clockwise: the right of travel is outside)
L = 2 * math.pi * R
GATES = (L / 4, 3 * L / 4)  # corner entries: pieces [0, L/4], [L/4, 3L/4], [3L/4, L]
PROJ = LocalProjection(38.16, -122.45)
Profile = Callable[[np.ndarray], np.ndarray]


def _bump(a: float, b: float, gain: float) -> Profile:
    """Extra speed (m/s) in (a, b), zero (with zero slope) at both ends."""
    return lambda s: np.where((s > a) & (s < b), gain * np.sin(np.pi * (s - a) / (b - a)) ** 2, 0.0)


def _near(g: float, size: float, width: float = 12.0) -> Profile:
    return lambda s: size * np.exp(-(((s - g) / width) ** 2))


def _zero(s: np.ndarray) -> np.ndarray:
    return np.zeros_like(s)


def _lap_frames(
    t0: float, extra: Profile = _zero, offset: Profile = _zero, dt: float = 0.05
) -> dict[str, np.ndarray]:
    """One lap from the line: 20 m/s plus ``extra``, on a line ``offset`` metres outside the circle."""
    s, t, ss, ts = 0.0, t0, [], []
    while s < L:
        ss.append(s)
        ts.append(t)
        s += float(20.0 + extra(np.array([s]))[0]) * dt
        t += dt
    s_arr, t_arr = np.array(ss + [s]), np.array(ts + [t])
    frac = (L - s_arr[-2]) / (s_arr[-1] - s_arr[-2])  # the line crossing that ends the lap
    t_end = t_arr[-2] + frac * dt
    s_arr, t_arr = s_arr[:-1], t_arr[:-1]
    ang = s_arr / R
    rad = R + offset(s_arr)
    lat, lon = PROJ.latlon(rad * np.cos(ang), rad * np.sin(ang))
    return {
        "t_s": t_arr,
        "dist_m": s_arr,
        "speed_kmh": (20.0 + extra(s_arr)) * 3.6,
        "lat": np.asarray(lat),
        "lon": np.asarray(lon),
        "t_end": np.array([t_end]),
    }


def _session(
    specs: list[tuple[Profile, Profile]], kinds: list[tuple[str, bool]] | None = None
) -> tuple[dict[str, np.ndarray], list[dict[str, object]]]:
    """Laps 1..n back to back (with ``kinds``: (kind, valid) each; default valid full laps)."""
    parts, laps, t = [], [], 0.0
    for n, (extra, off) in enumerate(specs, start=1):
        f = _lap_frames(t, extra, off)
        t_end = float(f.pop("t_end")[0])
        f["lap"] = np.full(len(f["t_s"]), float(n))
        parts.append(f)
        kind, valid = (kinds or [("full", True)] * len(specs))[n - 1]
        laps.append(
            {"lap": n, "t_start_s": t, "t_end_s": t_end, "time_s": t_end - t, "kind": kind, "valid": valid}
        )
        t = t_end
    wide = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return wide, laps


CORNERS = [{"start_m": g} for g in GATES]
A_FAST_FIRST = _bump(0, GATES[0], 4.0)  # lap A gains in the first piece (and is the best lap)
B_FAST_MIDDLE = _bump(GATES[0], GATES[1], 1.0)  # lap B gains in the middle piece, less


def _ab(b_extra: Profile = _zero, b_offset: Profile = _zero) -> tuple[dict[str, np.ndarray], list]:
    return _session([(A_FAST_FIRST, _zero), (lambda s: B_FAST_MIDDLE(s) + b_extra(s), b_offset)])


def test_laps_that_agree_at_the_gate_are_joined_and_the_time_adds_up() -> None:
    wide, laps = _ab()
    a = achievable_lap(wide, laps, CORNERS)
    assert a is not None and a.best_lap == 1
    assert [(p.lap, round(p.from_m), round(p.to_m)) for p in a.pieces] == [
        (1, 0, round(GATES[0])),
        (2, round(GATES[0]), round(L)),
    ]
    (j,) = a.joins
    assert (j.from_lap, j.to_lap) == (1, 2) and abs(j.at_m - GATES[0]) < 1e-6
    assert abs(j.d_speed_kmh) < 0.05 and abs(j.d_heading_deg) < 0.2 and abs(j.d_offset_m) < 0.05
    # own arithmetic: lap 1 to the gate at 20 m/s plus its bump, lap 2 from there (gains of each piece)
    t_plain = lambda a_, b_: (b_ - a_) / 20.0  # noqa: E731
    s = np.linspace(0, GATES[0], 200_001)
    own_first = float(np.trapezoid(1 / (20 + A_FAST_FIRST(s)), s))
    s2 = np.linspace(GATES[0], GATES[1], 200_001)
    own_mid = float(np.trapezoid(1 / (20 + B_FAST_MIDDLE(s2)), s2))
    own = own_first + own_mid + t_plain(GATES[1], L)
    assert abs(a.time_s - own) < 0.01
    assert a.theoretical_s <= a.time_s < a.best_lap_s


@pytest.mark.parametrize(
    ("b_extra", "b_offset", "what"),
    [
        (_near(GATES[0], 3.0 / 3.6), _zero, "speed"),  # 3 km/h faster at the gate, same line
        (_zero, lambda s: 0.105 * (s - GATES[0]) * np.exp(-(((s - GATES[0]) / 8.0) ** 2)), "heading"),
        (_zero, _near(GATES[0], 2.0, 40.0), "offset"),  # 2 m wide of lap A at the gate
    ],
)
def test_no_join_where_one_measure_disagrees(b_extra: Profile, b_offset: Profile, what: str) -> None:
    wide, laps = _ab(b_extra, b_offset)
    a = achievable_lap(wide, laps, CORNERS)
    assert a is not None
    c = a.crossings
    assert c is not None
    dv, dh, do = ac.mismatch(c, 0, 0, 1)
    over = {"speed": abs(dv) > ac.SPEED_TOL_KMH, "heading": abs(dh) > ac.HEADING_TOL_DEG}
    over["offset"] = abs(do) > ac.OFFSET_TOL_M
    assert over == {k: k == what for k in over}, (dv, dh, do)  # only this measure is out of tolerance
    # the middle piece of lap 2 is faster, but it cannot be reached: the achievable lap is lap 1
    assert [p.lap for p in a.pieces] == [1] and not a.joins
    assert a.time_s == pytest.approx(laps[0]["time_s"], abs=1e-9)
    assert a.theoretical_s < a.time_s - 0.05  # the theoretical best does take it


def test_invalid_out_and_in_laps_never_contribute() -> None:
    fast = _bump(0, L, 4.0)  # faster everywhere than any valid lap
    wide, laps = _session(
        [(fast, _zero), (A_FAST_FIRST, _zero), (fast, _zero), (B_FAST_MIDDLE, _zero), (fast, _zero)],
        [("out", False), ("full", True), ("full", False), ("full", True), ("in", False)],
    )
    a = achievable_lap(wide, laps, CORNERS)
    assert a is not None and a.laps == [2, 4] and a.best_lap == 2
    assert {p.lap for p in a.pieces} <= {2, 4}
    assert a.theoretical_s > laps[0]["time_s"]  # the invalid fast laps are not in the theoretical best
    assert achievable_lap(wide, [lp for lp in laps if lp["lap"] in (1, 3, 5)], CORNERS) is None


def test_a_single_lap_is_exactly_that_lap() -> None:
    wide, laps = _session([(A_FAST_FIRST, _zero)])
    a = achievable_lap(wide, laps, CORNERS)
    assert a is not None and not a.joins and [p.lap for p in a.pieces] == [1]
    assert a.time_s == a.theoretical_s == a.best_lap_s == laps[0]["time_s"]
    tr = stitched_trace(wide, laps, a)
    assert tr["time_s"][0] == 0.0 and tr["time_s"][-1] == laps[0]["time_s"]


def test_without_gps_nothing_is_joined_and_the_theoretical_best_still_adds_up() -> None:
    wide, laps = _ab()
    blind = {k: v for k, v in wide.items() if k not in ("lat", "lon")}
    a = achievable_lap(blind, laps, CORNERS)
    assert a is not None and a.gates_checked == 0 and not a.joins and [p.lap for p in a.pieces] == [1]
    assert a.theoretical_s < a.time_s  # pieces timed by lap distance: lap 2's middle is still faster


def test_the_stitched_trace_runs_from_the_line_to_the_achievable_time() -> None:
    wide, laps = _ab()
    a = achievable_lap(wide, laps, CORNERS)
    assert a is not None
    tr = stitched_trace(wide, laps, a, ("speed_kmh",), step_m=5.0)
    assert tr["time_s"][0] == 0.0 and tr["time_s"][-1] == pytest.approx(a.time_s)
    assert (np.diff(tr["time_s"]) > 0).all()
    at = int(np.searchsorted(tr["dist_m"], GATES[0]))
    assert set(tr["lap"][: at - 1]) == {1} and set(tr["lap"][at + 1 :]) == {2}
    # the speed is each lap's own: lap 2's bump in the middle piece
    mid = int(np.searchsorted(tr["dist_m"], (GATES[0] + GATES[1]) / 2))
    assert tr["speed_kmh"][mid] == pytest.approx((20 + 1.0) * 3.6, abs=0.2)


def _brute(c: Crossings) -> float:
    """Every chain of laps over the pieces, each change of lap allowed only where ``agree`` says."""
    seg = np.diff(c.time_s, axis=1)
    n, pieces = seg.shape
    best = math.inf
    for chain in itertools.product(range(n), repeat=pieces):
        if all(
            chain[k] == chain[k - 1] or ac.agree(c, k - 1)[chain[k - 1], chain[k]] for k in range(1, pieces)
        ):
            best = min(best, float(seg[list(chain), range(pieces)].sum()))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_the_search_finds_the_fastest_allowed_chain(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, g = 4, 4
    seg = rng.uniform(5.0, 6.0, (n, g + 1))
    c = Crossings(
        list(range(1, n + 1)),
        np.concatenate([np.zeros((n, 1)), np.cumsum(seg, axis=1)], axis=1),
        rng.normal(100.0, 2.0, (n, g)),
        rng.normal(0.0, 2.5, (n, g)),
        rng.normal(0.0, 0.8, (n, g)),
        np.arange(g + 2) * 100.0,
        np.zeros((g, 2)),
        np.zeros(g),
    )
    chain, t = solve(c)
    assert t == pytest.approx(_brute(c), abs=ac.JOIN_PENALTY_S * g)
    lap_times = c.time_s[:, -1]
    assert seg.min(axis=0).sum() <= t + 1e-9 and t <= lap_times.min() + 1e-9


def test_a_valid_lap_without_telemetry_is_left_out_and_a_best_lap_without_it_gives_no_figure() -> None:
    wide, laps = _session([(A_FAST_FIRST, _zero), (B_FAST_MIDDLE, _zero), (_bump(0, L, -1.0), _zero)])
    gone = wide["lap"] == 3  # lap 3's rows lost (the lake holds its lap row, not its telemetry)
    a = achievable_lap({k: v[~gone] for k, v in wide.items()}, laps, CORNERS)
    assert a is not None and a.laps == [1, 2]
    full = achievable_lap(wide, laps[:2], CORNERS)
    assert full is not None and a.theoretical_s == pytest.approx(full.theoretical_s)
    assert achievable_lap({k: v[wide["lap"] != 1] for k, v in wide.items()}, laps, CORNERS) is None
