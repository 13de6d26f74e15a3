"""Trail braking: "was I trail braking into T3?", "do I trail brake enough?". From the brake markers
(``tools.markers.get_brake_markers``, the session analysis' figures): where each lap braked, the brake
pressure still on at the corner's entry (its turn-in) and where the brake came off, before or after the
apex. A file without brake pressure has no trail braking to read: it is said so, never the brake points
read from the speed instead."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.families.channels import lacks, not_recorded
from services.paddock.questions.families.laps import named_laps
from services.paddock.questions.families.markers import markers_of
from services.paddock.questions.families.track_words import corner_names
from services.paddock.questions.model import Answer, Question

MEASURE = "trail_brake"


def _off(x: dict[str, Any]) -> str:
    m = x["off_before_apex_m"]
    if m is None:
        return "kept the brake on to the exit"
    return (
        "off the brake at the apex"
        if abs(m) < 1
        else f"off the brake {abs(m):.0f} m {'before' if m > 0 else 'after'} the apex"
    )


def _lap(x: dict[str, Any]) -> str:
    """One lap into one corner: where it braked, the pressure at turn-in and where the brake came off."""
    head = f"braked {x['before_apex_m']:.0f} m before the apex, "
    if x["before_entry_m"] < 0:  # begun past the entry: braking in the corner, not trailed into it
        return head + f"{-x['before_entry_m']:.0f} m after turn-in, {_off(x)}"
    if x["trailed"]:
        return head + f"{x['turn_in_bar']:.0f} bar still on at turn-in, {_off(x)}"
    return head + _off(x) + " (before turn-in)"


def _corner(c: dict[str, Any], name: str, laps: list[int]) -> str:
    if not c["braked"]:
        return f"You did not brake for {name} on any analysed lap, so there was no braking to trail."
    rows = [x for x in c["laps"] if not laps or x["lap"] in laps]
    if not rows:
        return f"No braking for {name} on {'lap ' + ', '.join(map(str, laps))}."
    if len(rows) == 1:
        return f"Into {name} on lap {rows[0]['lap']} you {_lap(rows[0])}."
    out = []
    best = c["best_lap"]
    if best and not laps:
        out.append(f"Into {name} on your best lap (lap {best['lap']}) you {_lap(best)}.")
    trailed = sum(1 for x in rows if x["trailed"])
    out.append(f"You trailed the brake past turn-in on {trailed} of {len(rows)} laps.")
    out.append("Lap by lap: " + "; ".join(f"lap {x['lap']} {_lap(x)}" for x in rows) + ".")
    return " ".join(out)


def _every(corners: list[dict[str, Any]], names: dict[str, str], lap: int | None, best: int | None) -> str:
    """Every braked corner on one lap (the one named, else the best)."""
    n = lap or best
    if n is None:
        return "No best lap to read trail braking on."
    got = [(names.get(c["corner"], c["name"]), x) for c in corners for x in c["laps"] if x["lap"] == n]
    if not got:
        return f"No braking was read on lap {n}."
    trailed = [nm for nm, x in got if x["trailed"]]
    lead = f"On {'lap ' + str(n) if lap else f'your best lap (lap {n})'} you trailed the brake past turn-in into "
    head = (
        (lead + ", ".join(trailed) + f" ({len(trailed)} of {len(got)} braked corners).")
        if trailed
        else (f"On lap {n} you came off the brake before turn-in at every braked corner.")
    )
    return head + " Each corner: " + "; ".join(f"{nm}: {_lap(x)}" for nm, x in got) + "."


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """Trail braking into the corner asked, lap by lap, or into every corner on the lap asked (the best)."""
    sid = str(s["session_id"])
    args = {"session_id": sid, "corner_name": q.corner}
    if lacks(sid, "brake_pressure"):
        return not_recorded(s, "brake_pressure", lead="Trail braking is read from the brake pressure, but ")
    names = corner_names(s)
    res = markers_of(s, q.corner, "trail braking", args)
    if isinstance(res, Answer):
        return res
    named = named_laps(q, s)
    if isinstance(named, Answer):  # no such lap, an out lap
        return named
    if any(other != sid for other, _ in named):
        return None  # another session's trail braking: not read here
    best = all(x.pick == "fastest" and x.rank == 1 for x in q.laps)
    laps = [] if best else [n for _, n in named]
    if q.corner:
        c = res["corners"][0]
        text = _corner(c, names.get(c["corner"], c["name"]), laps)
    else:
        text = _every(res["corners"], names, laps[0] if laps else None, res["best_lap"])
    return Answer(text, "get_brake_markers", args, res)
