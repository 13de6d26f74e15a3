"""Coaching context tools: weather adaptation, audio scripts, voice-script storage, agent telemetry."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from filelock import FileLock

from services.paddock.lake import get_lake
from services.paddock.tools.base import ToolError, r, rows
from services.paddock.tools.recorded import not_recorded_text
from shared.profiles.track import load_track

_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


def get_weather_adaptation_context(hour_local: int) -> dict[str, Any]:
    """Conditions context for the hour of day: likely fog or heat, track and tyre temperatures from the latest session, and adaptations."""
    if not 0 <= hour_local <= 23:
        raise ToolError("bad_argument", "hour_local must be 0-23", "")
    last = rows(
        "SELECT session_id FROM sessions ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT 1"
    )
    temps: dict[str, Any] = {}
    lacking: list[str] = []
    if last:
        x = rows(
            """SELECT max(water_temp_c) AS water_c, avg(tpms_temp_fl_c) AS tyre_fl_c, max(tpms_press_fl_bar) AS press_fl_bar
                    FROM telemetry WHERE session_id = ?""",
            [last[0]["session_id"]],
        )[0]
        temps = {k: r(v, 1) for k, v in x.items()}
        words = {
            "water_c": "coolant temperature",
            "tyre_fl_c": "tyre temperature",
            "press_fl_bar": "tyre pressure",
        }
        lacking = [words[k] for k, v in temps.items() if v is None]
    period = (
        "morning"
        if hour_local < 11
        else "midday"
        if hour_local < 15
        else "afternoon"
        if hour_local < 19
        else "evening"
    )
    advice = {
        "morning": [
            "expect fog and a cool, damp surface in the first session",
            "extra warm-up lap for tyres and brakes",
            "brake earlier than your markers until the surface is warm",
        ],
        "midday": [
            "track is at its warmest: tyre pressures rise, bleed to your hot target",
            "watch coolant on long runs",
        ],
        "afternoon": ["surface cooling: grip improves then falls as shadows spread", "recheck hot pressures"],
        "evening": ["cooling track and low sun into some corners", "take one lap to re-learn markers"],
    }[period]
    return {
        "hour_local": hour_local,
        "period": period,
        "latest_session_temps": temps,
        # a temperature the latest session did not record is null here, and named
        "not_recorded": not_recorded_text(lacking, where="in the latest session"),
        "adaptations": advice,
        "note": "no network: this is context from the hour and your own telemetry, not a forecast",
    }


LEVEL_TIPS = {
    "novice": "one idea per cue, reference points only",
    "intermediate": "brake marker plus one technique word",
    "advanced": "deltas in metres and km/h",
    "pro": "numbers only, minimal words",
}


def get_audio_script_context(corner_name: str, driver_level: str) -> dict[str, Any]:
    """Context to write spoken cues for a corner: name, landmark, brake marker, direction, tips, driver level and word budget."""
    if driver_level not in LEVEL_TIPS:
        raise ToolError("bad_argument", f"driver_level must be one of {list(LEVEL_TIPS)}", "")
    track = load_track("sonoma")
    c = track.find_corner(corner_name)
    if c is None:
        raise ToolError(
            "unknown_corner", f"no corner {corner_name!r}", f"corners: {[x.short for x in track.corners]}"
        )
    return {
        "corner": c.short,
        "name": c.name,
        "spoken_name": c.spoken,
        "direction": c.direction,
        "brake_marker": c.brake_marker.model_dump() if c.brake_marker else None,
        "tip": c.tip,
        "driver_level": driver_level,
        "style": LEVEL_TIPS[driver_level],
        "max_words": 8,
        "seconds_per_word": 0.15,
    }


def save_voice_scripts(corner_name: str, phrases: list[str]) -> dict[str, Any]:
    """Save spoken cue phrases for a corner atomically under the paddock data folder; returns the file's absolute path."""
    slug = corner_name.strip().lower().replace(" ", "_")
    if not _SLUG.match(slug):
        raise ToolError(
            "bad_argument", f"corner name {corner_name!r} is not a safe name", "letters, digits, '_' or '-'"
        )
    if (
        not phrases
        or len(phrases) > 50
        or any(not isinstance(p, str) or not p.strip() or len(p) > 200 for p in phrases)
    ):
        raise ToolError(
            "bad_argument", "phrases must be 1-50 non-empty strings of at most 200 characters", ""
        )
    base = get_lake().settings.paddock_dir / "voice_scripts"
    base.mkdir(parents=True, exist_ok=True)
    path = (base / f"{slug}.json").resolve()
    if path.parent != base.resolve():
        raise ToolError("bad_argument", "corner name escapes the voice-script folder", "")
    with FileLock(str(path) + ".lock", timeout=10):
        existing: list[str] = json.loads(path.read_text())["phrases"] if path.is_file() else []
        merged = existing + [p.strip() for p in phrases if p.strip() not in existing]
        fd, tmp = tempfile.mkstemp(dir=base, prefix=f".{slug}.", suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump({"corner": corner_name, "phrases": merged}, fh, indent=1)
        os.replace(tmp, path)
    return {"path": str(path), "count": len(merged)}


def get_agent_telemetry(n_recent: int = 50) -> dict[str, Any]:
    """Recent agent runs and tool calls from the paddock's traces: latency, failures, slowest agents and tools."""
    if not 1 <= n_recent <= 1000:
        raise ToolError("bad_argument", "n_recent must be 1-1000", "")
    db = get_lake().settings.paddock_db_path
    if not Path(db).is_file():
        return {"available": False, "reason": "no agent traces yet: the paddock agent tree has not run"}
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error as exc:
        return {"available": False, "reason": f"paddock database busy: {str(exc).splitlines()[0]}"}
    try:
        rel = con.execute("SELECT * FROM agent_traces ORDER BY ts DESC LIMIT ?", [n_recent])
        cols = [d[0] for d in rel.description or []]
        data = [dict(zip(cols, row, strict=True)) for row in rel.fetchall()]
    except duckdb.Error as exc:
        return {"available": False, "reason": str(exc).splitlines()[0]}
    finally:
        con.close()
    return {"available": True, "count": len(data), "traces": data}
