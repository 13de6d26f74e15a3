"""The data-quality report of one imported session: what each channel holds, where data is missing,
whether the file is whole, which laps cannot be trusted, and what cannot be said without a channel.

One table (``CAPABILITIES``) says which canonical signals each kind of analysis needs; coaching and
tools read the stored report (``unavailable``) to refuse, with the reason, what a missing channel
would be needed for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shared.importers.base import RawLog
from shared.laps import Lap
from shared.profiles.car import DERIVED_FROM
from shared.signals import Wide

#: analysis -> groups of canonical signals; each group needs any one of its signals
CAPABILITIES: dict[str, list[list[str]]] = {
    "lap times from GPS": [["lat"], ["lon"]],
    "speed, corner speeds and corners": [["speed_kmh"]],
    "brake points and braking": [["brake_bar", "brake_pct", "g_long"]],
    "brake pressure (peak, trail braking)": [["brake_bar"]],
    "throttle pickup and throttle use": [["throttle_pct"]],
    "steering smoothness": [["steer_deg"]],
    "grip use (g-g)": [["g_lat"], ["g_long"]],
    "gears and shift points": [["gear", "rpm"]],
    "lockups and wheelspin": [
        ["wheel_speed_fl_kmh", "wheel_speed_fr_kmh"],
        ["wheel_speed_rl_kmh", "wheel_speed_rr_kmh"],
    ],
    "engine health": [["oil_press_bar", "oil_temp_c", "water_temp_c"]],
    "tyre pressures and temperatures": [
        ["tpms_press_fl_bar", "tpms_press_fr_bar", "tpms_press_rl_bar", "tpms_press_rr_bar"]
    ],
}
MIN_PRESENT = 0.2  # a signal finite on fewer than this share of rows counts as missing
PARTIAL = 0.9  # an analysis built on a signal with readings on fewer than this share of rows says so
EARLY_END_S = 2.0  # a file whose data stops this long before its declared length ends early


def _gaps(t: np.ndarray, rate: float | None) -> list[tuple[float, float]]:
    if len(t) < 2 or not rate:
        return []
    limit = max(1.0, 5.0 / rate)
    dt = np.diff(t)
    return [(float(t[i]), float(t[i + 1])) for i in np.where(dt > limit)[0]]


def _merge(spans: list[tuple[float, float, str]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for a, b, name in sorted(spans):
        if out and a <= out[-1]["end_s"]:
            last = out[-1]
            last["end_s"] = max(last["end_s"], b)
            if name not in last["channels"]:
                last["channels"].append(name)
            continue
        out.append({"start_s": a, "end_s": b, "channels": [name]})
    for g in out:
        g["start_s"], g["end_s"] = round(g["start_s"], 3), round(g["end_s"], 3)
        g["duration_s"] = round(g["end_s"] - g["start_s"], 3)
        g["n_channels"] = len(g["channels"])
        g["channels"] = g["channels"][:8]
    return out


def _declared_length(raw: RawLog) -> float | None:
    for key in ("duration_s", "declared_duration_s"):
        v = raw.meta.get(key)
        try:
            if v not in (None, ""):
                return float(v)
        except (TypeError, ValueError):
            continue
    return None


def capabilities(wide: Wide, registry: list[dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """Each analysis of ``CAPABILITIES``: available or not (and if not, the signals it lacks), the source
    channel of each signal it uses, and ``partial`` when one of them has a reading on only part of the
    session (a sentinel-filled or frozen channel)."""
    n = max(1, len(wide.get("t_s", ())))
    share = {
        k: float(np.isfinite(v).sum() / n)
        for k, v in wide.items()
        if isinstance(v, np.ndarray) and k != "t_s"
    }
    present = {k for k, f in share.items() if f >= MIN_PRESENT}
    source = {r["canonical"]: r["name"] for r in registry or [] if r.get("canonical")}
    out: dict[str, dict[str, Any]] = {}
    for what, groups in CAPABILITIES.items():
        lacking = [g for g in groups if not any(s in present for s in g)]
        used = [next(s for s in g if s in present) for g in groups if g not in lacking]
        partial = [s for s in used if share[s] < PARTIAL]
        out[what] = {
            "available": not lacking,
            "reason": None if not lacking else _lacking(lacking, present),
            "sources": {s: source.get(s, DERIVED_FROM.get(s, "derived")) for s in used},
            "coverage_pct": {s: round(100 * share[s], 1) for s in used},
            "partial": None
            if not partial or lacking
            else "; ".join(
                f"built on {s} ({source.get(s, DERIVED_FROM.get(s, 'derived'))!r}), which has a reading in only "
                f"{100 * share[s]:.0f} % of the session"
                for s in partial
            ),
        }
    return out


def _lacking(lacking: list[list[str]], present: set[str]) -> str:
    text = "no " + " and no ".join(" or ".join(g) for g in lacking) + " channel in this session"
    if any("throttle_pct" in g for g in lacking) and "throttle_body_pct" in present:
        text += " (only the throttle body, which never closes: coasting cannot be told from it)"
    return text


def quality_report(
    raw: RawLog, wide: Wide, registry: list[dict[str, Any]], laps: list[Lap]
) -> dict[str, Any]:
    """The report stored with the session and shown by ``pitwall import``."""
    t = wide["t_s"]
    t0 = float(t[0]) if len(t) else 0.0
    t_end = float(t[-1]) if len(t) else 0.0
    span = max(t_end - t0, 1e-9)
    canon = {r["name"]: r.get("canonical") for r in registry}
    valid = {r["name"]: r.get("valid_share") for r in registry}
    channels: list[dict[str, Any]] = []
    spans: list[tuple[float, float, str]] = []
    for name, ch in raw.channels.items():
        tt = ch.t_s
        finite = np.isfinite(ch.values)
        holes = _gaps(tt, ch.rate_hz)
        spans += [(a, b, name) for a, b in holes]
        covered = 0.0
        if len(tt) >= 2:
            covered = float(tt[-1] - tt[0]) - sum(b - a for a, b in holes)
        share = valid.get(name)  # readings: no sentinel, no frozen stretch (shared.channel_valid)
        if share is None:
            share = float(finite.mean()) if len(finite) else 0.0
        coverage = min(1.0, covered / span) * share
        channels.append(
            {
                "name": name,
                "canonical": canon.get(name),
                "unit": ch.unit,
                "rate_hz": ch.rate_hz,
                "samples": len(tt),
                "coverage_pct": round(100.0 * coverage, 1),
            }
        )
    warnings: list[str] = []
    declared = _declared_length(raw)
    complete = raw.meta.get("file_complete")
    if declared is not None and declared - t_end > EARLY_END_S:
        warnings.append(f"file ends at {t_end:.0f} s of a {declared:.0f} s session")
        complete = False
    elif complete is False:
        warnings.append(
            f"file ends at {t_end:.0f} s without the logger's closing lap table and summary: "
            "cut short or corrupt blocks"
        )
    empty = raw.meta.get("empty_channels") or []
    if empty:
        total = len(empty) + len(raw.channels)
        warnings.append(f"{len(empty)} of {total} channels the file declares hold no data")
    gaps = _merge(spans)
    big = [g for g in gaps if g["n_channels"] >= max(1, len(raw.channels) // 2)]
    for g in big[:3]:
        warnings.append(
            f"no data from {g['start_s']:.1f} s to {g['end_s']:.1f} s in {g['n_channels']} channels"
        )
    untrusted = [
        {"lap": lp.lap, "kind": lp.kind, "time_s": lp.time_s, "reason": lp.invalid_reason or lp.kind}
        for lp in laps
        if not (lp.kind == "full" and lp.valid)
    ]
    bad_full = [u for u in untrusted if u["kind"] == "full"]
    if bad_full:
        warnings.append(
            f"{len(bad_full)} full lap(s) cannot be trusted: "
            + "; ".join(f"lap {u['lap']}: {u['reason']}" for u in bad_full[:3])
        )
    caps = capabilities(wide, registry)
    for what, c in caps.items():
        if not c["available"] and what in ("speed, corner speeds and corners", "lap times from GPS"):
            warnings.append(f"{what}: {c['reason']}")
        if c["partial"]:
            warnings.append(f"{what}: {c['partial']}")
    return {
        "duration_s": round(t_end - t0, 3),
        "declared_duration_s": declared,
        "file_complete": complete if complete is not None else True,
        "rows": len(t),
        "channels": channels,
        "empty_channels": list(empty),
        "gaps": gaps[:50],
        "laps_untrusted": untrusted,
        "capabilities": caps,
        "warnings": warnings,
    }


def partial_pct(report: dict[str, Any] | None, what: str) -> float | None:
    """The share (%) of the session ``what`` (a ``CAPABILITIES`` key) is built on when that is only part
    of it (a channel with no reading on the rest), else None."""
    c = ((report or {}).get("capabilities") or {}).get(what)
    if not c or not c.get("partial") or not c.get("coverage_pct"):
        return None
    return float(min(c["coverage_pct"].values()))


def unavailable(report: dict[str, Any] | None, what: str) -> str | None:
    """Why ``what`` (a ``CAPABILITIES`` key) cannot be stated for a session, or None when it can."""
    if not report:
        return None
    c = (report.get("capabilities") or {}).get(what)
    if c is None or c.get("available", True):
        return None
    return f"{what} cannot be stated: {c.get('reason')}"
