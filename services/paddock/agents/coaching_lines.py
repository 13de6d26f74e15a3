"""The opportunities and threads as the digest, the template narrator and the tablet say them.

Debrief: the session's (up to) three opportunities, each one sentence (corner, time to find a lap and on
which laps, the cause with its evidence, the target), then every thread with its status and numbers
(new, worse, better, resolved, unchanged). Brief: at most two things to work on, a still-open thread first.
"""

from __future__ import annotations

from typing import Any

from services.paddock.agents.fmt import corner_label, lap_list, load, secs

BRIEF_PICKS = 2
OPEN = ("new", "worse", "unchanged", "better")


def opportunity_sentence(o: dict[str, Any], target: bool = True) -> str:
    """One opportunity: where, how much, on which laps, the cause with its evidence, then (``target``)
    what to do; a debrief's digest leaves the target to its focus line, which says it once."""
    gain = secs(o.get("time_to_find_s"), 2)
    laps = lap_list(o.get("laps") or [])
    if len(o.get("laps") or []) > 1 and o.get("session_s") is not None:  # ranked by this total
        laps += f" ({secs(o['session_s'], 2)} over the session)"
    return (
        f"Opportunity {o.get('rank')}, {corner_label(o.get('corner'), o.get('name'))}: {gain} a lap on {laps}, "
        f"{o['says']} ({o['evidence']}, lap {o['worst_lap']})" + (f": {o['target']}." if target else ".")
    )


def offs_sentence(out: dict[str, Any]) -> list[str]:
    """The laps that stopped, spun or went off at a corner, kept out of the opportunities."""
    offs = out.get("offs") or []
    if not offs:
        return []
    said = "; ".join(f"lap {o['lap']} at {corner_label(o.get('corner'))} ({o['evidence']})" for o in offs)
    return [f"Left out of where the time is, as a spin, an off or a stop: {said}."]


def _side(v: dict[str, Any] | None) -> str:
    if not v:
        return "no lap lost time there"
    return f"{secs(v.get('time_to_find_s'), 2)} a lap on {v.get('laps_lost')} of {v.get('valid_laps')} laps"


def thread_sentence(t: dict[str, Any]) -> str:
    label = corner_label(t.get("corner"))
    if t.get("status") == "new":
        return f"New this session at {label}: {_side(t.get('now'))}."
    return f"Thread {label} from last session: {t.get('status')}, {_side(t.get('before'))} then, {_side(t.get('now'))} now."


def warning_thread_sentence(w: dict[str, Any]) -> str:
    """A warning of the last session followed into this one (``get_threads``' ``warnings``)."""
    head = f"From last session: the {w.get('what')} ({lap_list(w.get('laps_before') or [])})"
    if w.get("status") == "again":
        return f"{head} came on again, {lap_list(w.get('laps_now') or [])}."
    if w.get("status") == "not this time":
        return f"{head} did not come on this time."
    return f"{head} cannot be followed: not recorded this session."


IMPORT_ORDER = "Last session means the one imported before this one: this file carries no date."


def thread_lines(thr: dict[str, Any]) -> list[str]:
    """Every thread from the last session, then its warnings followed into this one; first, when the
    session's file carries no date, that "last session" is the one imported before it."""
    lines = [thread_sentence(t) for t in thr.get("threads") or []] + [
        warning_thread_sentence(w) for w in thr.get("warnings") or []
    ]
    return [IMPORT_ORDER, *lines] if lines and str(thr.get("order", "")).startswith("import order") else lines


def brief_picks(opps: list[dict[str, Any]], threads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """At most two opportunities to work on next: those with a thread still open (the same corner lost
    time again) first, then by rank."""
    still = {t["corner_id"] for t in threads if t.get("status") in OPEN}
    ranked = sorted(opps, key=lambda o: (o["corner_id"] not in still, o.get("rank") or 99))
    return ranked[:BRIEF_PICKS]


def brief_sentence(o: dict[str, Any], threads: list[dict[str, Any]]) -> str:
    t = next((x for x in threads if x["corner_id"] == o["corner_id"] and x.get("status") in OPEN), None)
    why = f" ({t['status']} since the session before)" if t else ""
    return f"{corner_label(o.get('corner'), o.get('name'))}, {o['target']}{why}, worth {secs(o['time_to_find_s'], 2)} a lap"


def coaching_lines(state: dict[str, Any], brief: bool, targets: bool = True) -> list[str]:
    opp, thr = load(state, "opportunities_data"), load(state, "threads_data")
    opps = opp.get("opportunities") or []
    threads = thr.get("threads") or []
    if brief:
        picks = brief_picks(opps, threads)
        if not picks:
            return []
        return [
            "Work on next session (two at most): "
            + "; ".join(brief_sentence(o, threads) for o in picks)
            + "."
        ]
    out = [opportunity_sentence(o, targets) for o in opps]
    if opp and not opps and opp.get("reason"):
        out.append(f"Opportunities: none to name ({opp['reason']}).")
    out += offs_sentence(opp)
    out += thread_lines(thr)
    return out


def focus(state: dict[str, Any], brief: bool) -> list[str]:
    """The template narrator's focus items (short): the opportunities' targets, or the brief's picks."""
    opp, thr = load(state, "opportunities_data"), load(state, "threads_data")
    opps = opp.get("opportunities") or []
    threads = thr.get("threads") or []
    chosen = brief_picks(opps, threads) if brief else opps
    return [f"{corner_label(o.get('corner'), o.get('name'))}: {o['target']}" for o in chosen]


def opportunities_text(out: dict[str, Any]) -> str:
    """``get_opportunities`` in plain sentences (the answer to "where can I find time?")."""
    opps = out.get("opportunities") or []
    if not opps:
        why = out.get("reason") or "no corner loses time against your good laps often enough to name"
        return f"No opportunity to name in this session: {why}."
    head = f"Your {'biggest opportunity' if len(opps) == 1 else f'{len(opps)} biggest opportunities'}, by time lost over the session:"
    return " ".join([head, *(opportunity_sentence(o) for o in opps), *offs_sentence(out)])


def threads_text(out: dict[str, Any]) -> str:
    """``get_threads`` in plain sentences."""
    lines = thread_lines(out)
    if not out.get("threads"):
        why = out.get("reason") or "the last session named no opportunity"
        lines.insert(0, f"No coaching thread to follow: {why}.")
    return " ".join(lines)
