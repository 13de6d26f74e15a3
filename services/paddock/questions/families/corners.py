"""A corner's figures, from the corner table (``corner_results``): the figure asked on a named lap against
the quickest pass, or its range over the valid laps (entry, minimum and exit speed, braking point, peak
brake pressure, throttle pick-up, time through it); the gear at its slowest point; its history across
sessions when no figure is named. A figure the table does not hold (the top speed through a corner) is
said to be not recorded, beside the ones Pitwall has. Runs SQL (worker thread)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from statistics import median
from typing import Any

from services.paddock.agents.fmt import corner_label, lap_list, secs
from services.paddock.questions.families import channels
from services.paddock.questions.families.channels import MPH, not_recorded, on_lap, ordinal
from services.paddock.questions.families.laps import named_laps
from services.paddock.questions.families.track_words import corner_names, no_such_corner
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import rows, track_corners
from services.paddock.tools.registry import run_tool

# corner-table column -> what a driver calls it
LABELS = {
    "entry_kmh": "entry speed",
    "min_kmh": "minimum speed",
    "exit_kmh": "exit speed",
    "brake_point_m": "braking at",
    "brake_peak_bar": "peak brake pressure",
    "throttle_pickup_m": "throttle pick-up",
    "time_s": "time through it",
}
SPEEDS = ("entry_kmh", "min_kmh", "exit_kmh")
# a measure (``measures.MEASURES``) -> the corner-table columns that answer it
COLUMNS: dict[str, tuple[str, ...]] = {
    "entry_speed": ("entry_kmh",),
    "min_speed": ("min_kmh",),
    "exit_speed": ("exit_kmh",),
    "speed": SPEEDS,
    "brake_point": ("brake_point_m",),
    "brake_pressure": ("brake_peak_bar",),
    "throttle": ("throttle_pickup_m",),
    "lap_time": ("time_s",),
    "corner_time": ("time_s",),
}
DEFAULT = ("brake_point_m", "min_kmh", "time_s")  # "how was turn 11 on lap 3?"
SHOWN = ("brake_point_m", *SPEEDS, "time_s")  # two laps at a corner


def show(col: str, v: float) -> str:
    if col.endswith("_kmh"):
        return f"{v:.1f} km/h ({v / MPH:.1f} mph)"
    if col == "time_s":
        return f"{v:.3f} s"
    return f"{v:.0f} m" if col.endswith("_m") else f"{v:.1f} bar"


def name_of(cid: str, name: str | None) -> str:
    """A corner in driver words: ``T11`` (with the track's own name when it adds one), never an auto id."""
    if re.fullmatch(r"[tc]\d+[a-z]?", cid, re.IGNORECASE):
        return corner_label(cid, name)
    return str(name or cid)


def corner_ids(s: dict[str, Any]) -> list[str]:
    """The session's corner ids in lap order: the track profile's, else the corner table's."""
    got = [c.id for c in track_corners(s.get("track_id"))]
    if got:
        return got
    return [
        str(r["corner_id"])
        for r in rows(
            "SELECT corner_id, min(seq) AS seq FROM corner_results WHERE session_id = ? GROUP BY 1 ORDER BY 2",
            [s["session_id"]],
        )
    ]


def corner_rows(s: dict[str, Any], corner: str) -> tuple[str, dict[int, dict[str, Any]]] | Answer:
    """(the corner's name, its row on each valid lap); or the answer that the session has no such corner."""
    sid = str(s["session_id"])
    got = rows(
        "SELECT c.* FROM corner_results c JOIN laps l USING (session_id, lap) WHERE c.session_id = ? "
        "AND lower(c.corner_id) = lower(?) AND l.kind = 'full' AND l.valid ORDER BY c.lap",
        [sid, corner],
    )
    if not got:
        names = corner_names(s) or {c: name_of(c, None) for c in corner_ids(s)}  # a detected track: its own
        known = next((v for k, v in names.items() if k.lower() == corner.lower()), None)
        text = (
            f"No valid timed lap passes {known} in this session, so it has no figures there."
            if known is not None
            else no_such_corner(corner, names)
        )
        return Answer(
            text,
            "get_corner_history",
            {"session_id": sid},
            {"corners": list(names.values()), "recorded": False},
        )
    return name_of(str(got[0]["corner_id"]), got[0].get("corner_name")), {int(r["lap"]): r for r in got}


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    if q.corner is None:
        return None
    got = corner_rows(s, q.corner)
    if isinstance(got, Answer):
        return got
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps
    sid = str(s["session_id"])
    lap = laps[0][1] if laps and laps[0][0] == sid else None
    if q.measure == "gear":
        return _gear(s, q.corner, got[0], lap)
    if q.measure == "top_speed":  # a top speed is a lap's: never a corner's entry, minimum or exit speed
        top = channels.answer(replace(q, corner=None), s)
        lead = f"Pitwall does not record a top speed at one corner ({got[0]}), only a lap's top speed. "
        return None if top is None else Answer(lead + top.text, top.tool, top.args, top.result)
    if q.measure is None and lap is None:
        return _history(sid, q.corner)
    if q.measure not in COLUMNS and q.measure is not None and on_lap(sid, q.measure, None) is None:
        return not_recorded(s, q.measure)  # "steering at turn 3" with no steering channel
    cols = list(COLUMNS.get(q.measure or "", DEFAULT if lap is not None else ()))
    if not cols:
        return None
    return _figures(sid, got, cols, lap)


def _figures(
    sid: str, got: tuple[str, dict[int, dict[str, Any]]], cols: list[str], n: int | None
) -> Answer | None:
    name, by = got
    args = {"session_id": sid, "corner_name": name}
    if n is None:
        return _over_session(name, by, cols, args)
    this = by.get(n)
    if this is None:
        return Answer(
            f"Lap {n} has no figures at {name}: it is not a valid timed lap through it.",
            "get_corner_history",
            args,
            {"lap": n},
        )
    res: dict[str, Any] = {"lap": n, "corner": this["corner_id"]}
    res |= {c: this[c] for c in LABELS if this.get(c) is not None}
    bits = [f"{LABELS[c]} {show(c, this[c])}" for c in cols if this.get(c) is not None]
    gone = [LABELS[c] for c in cols if this.get(c) is None]
    if not bits:
        text = f"The {' and '.join(gone)} at {name} on lap {n} is not recorded in this session."
        return Answer(text, "get_corner_history", args, res | {"recorded": False})
    parts = [f"{name} on lap {n}: " + ", ".join(bits) + "."]
    if gone:
        parts.append(f"The {' and '.join(gone)} is not recorded.")
    timed = [r for r in by.values() if r.get("time_s") is not None]
    quick = min(timed, key=lambda r: r["time_s"]) if timed else None
    if quick is not None and quick["lap"] != n:
        ref = [f"{LABELS[c]} {show(c, quick[c])}" for c in cols if quick.get(c) is not None]
        if "brake_point_m" in cols and None not in (quick.get("brake_point_m"), this.get("brake_point_m")):
            shift = this["brake_point_m"] - quick["brake_point_m"]
            moved = (
                f"{abs(shift):.0f} m {'later' if shift > 0 else 'earlier'}"
                if abs(shift) >= 0.5
                else "at the same point"
            )
            ref.append(f"so lap {n} braked {moved}")
            res["brake_shift_m"] = round(abs(shift), 1)
        if "time_s" in cols and this.get("time_s") is not None:
            gain = this["time_s"] - quick["time_s"]
            ref.append(f"{gain:.3f} s quicker than lap {n}")
            res["time_lost_s"] = round(gain, 3)
        if ref:
            parts.append(f"Your quickest pass, lap {quick['lap']}: " + ", ".join(ref) + ".")
        res |= {"quickest_lap": quick["lap"]} | {f"quickest_{c}": quick.get(c) for c in cols}
    return Answer(" ".join(parts), "get_corner_history", args, res)


def _over_session(name: str, by: dict[int, dict[str, Any]], cols: list[str], args: dict[str, Any]) -> Answer:
    res: dict[str, Any] = {"corner": name, "valid_laps": len(by)}
    bits = []
    for c in cols:
        got = [r for r in by.values() if r.get(c) is not None]
        if not got:
            bits.append(f"{LABELS[c]} not recorded")
            continue
        hi, lo = max(got, key=lambda r: r[c]), min(got, key=lambda r: r[c])
        bits.append(
            f"{LABELS[c]} from {show(c, lo[c])} (lap {lo['lap']}) to {show(c, hi[c])} (lap {hi['lap']})"
        )
        res |= {f"{c}_lo": lo[c], f"{c}_lo_lap": lo["lap"], f"{c}_hi": hi[c], f"{c}_hi_lap": hi["lap"]}
    text = f"{name} over your {len(by)} valid laps: " + "; ".join(bits) + "."
    return Answer(text, "get_corner_history", args, res)


def _gear(s: dict[str, Any], corner: str, name: str, n: int | None) -> Answer:
    """The gear at the corner's slowest point (the minimum-speed point, ``apex_m``)."""
    sid = str(s["session_id"])
    args = {"session_id": sid, "corner_name": name}
    try:
        have = rows("SELECT count(gear) AS n FROM telemetry WHERE session_id = ? AND gear > 0", [sid])
    except Exception:  # a lake without the column at all
        have = []
    if not (have and have[0]["n"]):
        text = f"Gear is not recorded in this session's file (no gear channel), so the gear at {name} is unknown."
        return Answer(text, "telemetry", args, {"recorded": False})
    got = rows(
        """SELECT c.lap, c.min_kmh,
                  (SELECT t.gear FROM telemetry t WHERE t.session_id = c.session_id AND t.lap = c.lap
                     AND t.gear > 0 ORDER BY abs(t.dist_m - c.apex_m) LIMIT 1) AS gear,
                  (SELECT t.rpm FROM telemetry t WHERE t.session_id = c.session_id AND t.lap = c.lap
                     AND t.rpm IS NOT NULL ORDER BY abs(t.dist_m - c.apex_m) LIMIT 1) AS rpm
           FROM corner_results c JOIN laps l USING (session_id, lap)
           WHERE c.session_id = ? AND lower(c.corner_id) = lower(?) AND l.kind = 'full' AND l.valid
             AND c.apex_m IS NOT NULL ORDER BY c.lap""",
        [sid, corner],
    )
    by = {int(x["lap"]): (round(float(x["gear"])), x["min_kmh"]) for x in got if x["gear"] is not None}
    res: dict[str, Any] = {"corner": name, "gear_by_lap": {k: v[0] for k, v in by.items()}}
    if n is not None:
        if n not in by:
            text = f"Lap {n} has no gear reading at {name}: it is not a valid timed lap through it."
            return Answer(text, "telemetry", args | {"lap": n}, res | {"lap": n})
        g, vmin = by[n]
        text = f"At {name} on lap {n} you were in {ordinal(g)} gear at the slowest point"
        text += f" ({vmin:.1f} km/h)." if vmin is not None else "."
        return Answer(text, "telemetry", args | {"lap": n}, res | {"lap": n, "gear": g, "min_kmh": vmin})
    if not by:
        return Answer(f"No valid lap has a gear reading at {name}.", "telemetry", args, res)
    typical, k = Counter(g for g, _ in by.values()).most_common(1)[0]
    text = (
        f"At {name} you were in {ordinal(typical)} gear at the slowest point on {k} of {len(by)} valid laps"
    )
    others = sorted((lap, g) for lap, (g, _) in by.items() if g != typical)
    if others:
        text += " (" + ", ".join(f"{ordinal(g)} on lap {lap}" for lap, g in others) + ")"
    res |= {"typical_gear": typical, "laps_in_typical_gear": k, "valid_laps": len(by)}
    revs = sorted(float(x["rpm"]) for x in got if x["gear"] is not None and x["rpm"] is not None)
    if revs:  # "am I bogging out of the hairpin?", "is 3rd too tall there?": how low the engine got
        mid = median(revs)
        text += f", the engine at {mid:,.0f} rpm there (median; {revs[0]:,.0f} to {revs[-1]:,.0f})"
        res |= {"rpm_at_slowest": round(mid), "rpm_at_slowest_range": [round(revs[0]), round(revs[-1])]}
    return Answer(text + ".", "telemetry", args, res)


def history_text(h: dict[str, Any]) -> str:
    """``get_corner_history`` as sentences: this session's corner time, speed and braking, the time to
    find there, the trend across sessions."""
    label = corner_label(h["corner"], h.get("name"))
    this = next((x for x in h.get("sessions") or [] if x["session_id"] == h["session_id"]), None)
    if this is None:
        return f"{label}: no valid lap through it in this session."
    parts = [
        f"{label} this session: corner time best {secs(this['best_s'])}, typical {secs(this['median_s'])}"
    ]
    if this.get("min_speed_kmh") is not None:
        parts[0] += f", minimum speed {this['min_speed_kmh']:g} km/h"
    if this.get("brake_point_m") is not None:
        parts[0] += f", braking at {this['brake_point_m']:g} m"
    parts[0] += "."
    if this.get("laps_lost"):
        parts.append(
            f"Time to find there: {secs(this['time_to_find_s'], 2)} a lap on {lap_list(this['laps_lost'])}, against your good laps."
        )
    if len(h.get("sessions") or []) > 1:
        parts.append(f"Across your {len(h['sessions'])} sessions at {h.get('track')}: {h['trend']}.")
    return " ".join(parts)


def _history(sid: str, corner: str) -> Answer:
    args = {"session_id": sid, "corner_name": corner}
    h = run_tool("get_corner_history", args)
    if "error" in h:
        return Answer(str(h["error"].get("message")) + ".", "get_corner_history", args, h)
    return Answer(history_text(h), "get_corner_history", args, h)
