"""A log's mapped channels on one time grid in canonical units, and the registry saying, per channel,
what it feeds, why, how it was checked and how much of it is a reading.

Order: map (:mod:`shared.channel_map`), resample, find unclaimed channels by their values
(:mod:`shared.channel_values`), let a g or yaw source that disagrees with the GPS track
give way (:mod:`shared.channel_check`), blank frozen stretches (:mod:`shared.channel_valid`), then fix
signs (:mod:`shared.channel_orient`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from shared.channel_check import CHECKED, Candidates, cross_check
from shared.channel_map import Decision
from shared.channel_orient import gps_references, orient
from shared.channel_valid import blank_frozen, valid_raw, valid_share
from shared.channel_values import find_by_values
from shared.importers.base import RawChannel, RawLog
from shared.signals import MutableWide, Wide

RegistryRow = dict[str, Any]


def build_wide(
    raw: RawLog, decisions: list[Decision], rate_hz: float | None
) -> tuple[MutableWide, list[RegistryRow]]:
    """Resample every mapped channel onto one time grid in canonical units; sentinels become NaN."""
    picked = [(d, raw.channels[d.name]) for d in decisions if d.spec is not None]
    grid = time_grid(raw, [ch for _, ch in picked], rate_hz)
    wide: MutableWide = {"t_s": grid}
    for d, ch in picked:
        assert d.spec is not None and d.canonical is not None
        wide[d.canonical] = resample(ch.t_s, d.spec.apply(ch.values), grid, hold=d.spec.hold)
    refs = gps_references(wide)  # lat, lon and speed are final here: one reference for every check
    decisions = find_by_values(wide, raw, decisions, lambda t, v: resample(t, v, grid), refs)
    source = {d.canonical: d.name for d in decisions if d.canonical and not d.pinned}
    alternates: Candidates = {}
    for d in decisions:
        if d.alt is not None and d.alt.canonical in source and d.alt.canonical in CHECKED:
            ch = raw.channels[d.name]
            vals = resample(ch.t_s, d.alt.apply(ch.values), grid, hold=d.alt.hold)
            alternates.setdefault(d.alt.canonical, []).append((d.name, vals))
    swaps, checked = cross_check(wide, source, alternates, refs)
    decisions = _swapped(decisions, swaps)
    frozen = blank_frozen(wide)
    signs = orient(wide, refs)
    registry: list[RegistryRow] = []
    for d in decisions:
        ch = raw.channels[d.name]
        extra = [checked.get(d.name), frozen.get(d.canonical or ""), signs.get(d.canonical or "")]
        why = "; ".join([d.why, *[x for x in extra if x]])
        registry.append(
            {
                "name": d.name,
                "unit": ch.unit,
                "source": ch.source,
                "rate_hz": ch.rate_hz,
                "canonical": d.canonical,
                "mapped_by": why,
                "valid_share": _share(d, ch, wide),
            }
        )
    return wide, registry


def _share(d: Decision, ch: RawChannel, wide: Wide) -> float:
    if not len(ch.t_s):
        return 0.0
    if d.canonical is None:
        return float(valid_raw(ch.t_s, ch.values, ch.unit).mean())
    return valid_share(wide["t_s"], wide[d.canonical], float(ch.t_s[0]), float(ch.t_s[-1]))


def _swapped(decisions: list[Decision], swaps: dict[str, str]) -> list[Decision]:
    if not swaps:
        return decisions
    out: list[Decision] = []
    for d in decisions:
        if d.canonical in swaps:
            why = f"fits {d.canonical} by {d.why}"
            d = replace(d, canonical=None, spec=None, candidate_for=[d.canonical], alt=d.spec, why=why)
        elif d.alt is not None and swaps.get(d.alt.canonical) == d.name:
            d = replace(
                d, canonical=d.alt.canonical, spec=d.alt, alt=None, why=f"second choice for {d.alt.canonical}"
            )
        out.append(d)
    return out


def time_grid(raw: RawLog, chans: list[RawChannel], rate_hz: float | None) -> np.ndarray:
    if not chans:
        chans = list(raw.channels.values())
    if not chans:
        return np.zeros(0)
    first = chans[0].t_s
    if rate_hz is None and all(c.t_s is first or np.array_equal(c.t_s, first) for c in chans):
        return first.astype(np.float64)
    rates = [c.rate_hz for c in chans if c.rate_hz]
    rate = rate_hz or min(max(rates) if rates else 20.0, 50.0)
    t0 = min(float(c.t_s[0]) for c in chans if len(c.t_s))
    t1 = max(float(c.t_s[-1]) for c in chans if len(c.t_s))
    n = int(math.floor((t1 - t0) * rate + 1e-9)) + 1
    return t0 + np.arange(n) / rate


def resample(t: np.ndarray, v: np.ndarray, grid: np.ndarray, hold: bool = False) -> np.ndarray:
    if len(t) == len(grid) and (t is grid or np.array_equal(t, grid)):
        return v
    if len(t) == 0:
        return np.full(len(grid), np.nan)
    ok = np.isfinite(v)
    idx = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(t) - 1)
    if hold or ok.sum() < 2:
        out = v[idx].astype(np.float64)
    else:
        out = np.interp(grid, t[ok], v[ok])
        out[~ok[idx]] = np.nan  # the sample at or before this instant was "no reading"
    out[(grid < t[0] - 1e-9) | (grid > t[-1] + 1.0)] = np.nan
    return out
