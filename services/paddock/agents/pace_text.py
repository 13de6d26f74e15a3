"""Plain driver's sentences for the race-pace model and the achievable lap (times as m:ss.sss), the data
answer and the narrator's facts for those tools. Pure functions of a tool's result."""

from __future__ import annotations

from typing import Any

from shared.display import lap_time


def race_pace_text(d: dict[str, Any]) -> str:
    """``get_race_pace_model`` as sentences: quickest and median lap, spread, trend per lap."""
    quali, race, n = d.get("quali_pace_s"), d.get("race_pace_s"), d.get("laps")
    if quali is None or race is None:
        return "There is no race pace yet: it needs at least two valid laps."
    parts = [
        f"Your race pace, the median of your {n} valid laps, is {lap_time(race)}; your quickest lap, "
        f"your qualifying pace, was {lap_time(quali)}."
    ]
    std = d.get("consistency_std_s")
    if std is not None:
        parts.append(f"Your lap times spread by {std:.2f} s (standard deviation).")
    slope = d.get("degradation_s_per_lap")
    if slope is not None:
        if abs(slope) < 0.005:
            parts.append("Your lap times held steady over the stint.")
        else:
            word = "slower" if slope > 0 else "quicker"
            parts.append(f"Over the stint you got {abs(slope):.2f} s a lap {word} (trend line).")
    return " ".join(parts)


def _where(j: dict[str, Any]) -> str:
    return str(j.get("where") or f"{float(j['at_m']):.0f} m")


def achievable_text(d: dict[str, Any]) -> str:
    """``get_achievable_lap`` as sentences: the achievable time beside the best lap and the theoretical
    best, and which laps it joins where."""
    if not d.get("available"):
        return f"There is no achievable lap for this session: {str(d.get('reason') or 'no valid lap')}."
    ach, best, theo = d["achievable_s"], d["best_lap_s"], d["theoretical_best_s"]
    parts = [
        f"Your achievable lap, your own laps joined only where they matched in speed, heading and line, is "
        f"{lap_time(ach)}: {best - ach:.3f} s quicker than your best lap, lap {d['best_lap']} in "
        f"{lap_time(best)}. Your theoretical best, every piece's best time added up, is {lap_time(theo)}."
    ]
    laps = list(dict.fromkeys(int(p["lap"]) for p in d.get("segments") or []))
    joins = d.get("joins") or []
    if len(laps) > 1 and joins:
        where = ", ".join(f"lap {j['from_lap']} to lap {j['to_lap']} at {_where(j)}" for j in joins)
        parts.append(f"It joins laps {', '.join(map(str, laps))}: {where}.")
    else:
        parts.append("No join gained time where the laps matched, so it is your best lap as driven.")
    if d.get("not_recorded"):
        parts.append(str(d["not_recorded"]))
    return " ".join(parts)
