"""Lap times: a named lap's time against the best, the best / slowest / average lap, how many laps, a lap
of another session; and the laps a question names, resolved and checked (``named_laps``: a lap the
session does not have, or an out lap, is said so before any family answers). Runs SQL (worker thread)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from services.paddock.questions import resolve, session_words
from services.paddock.questions.model import Answer, LapRef, Question
from services.paddock.questions.numerals import ORDINALS
from services.paddock.tools.base import rows
from shared.display import lap_time, listed


def laps_said(laps: Sequence[int]) -> str:
    """How every answer names laps (one wording): "lap 6", "laps 6 and 7", "laps 6, 7 and 8"."""
    return f"lap{'' if len(laps) == 1 else 's'} {listed([str(n) for n in laps])}"


def all_laps(sid: str) -> list[dict[str, Any]]:
    return rows("SELECT lap, kind, valid, time_s FROM laps WHERE session_id = ? ORDER BY lap", [sid])


def timed(laps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The valid full laps with a time: the laps every lap-time figure is over."""
    return [x for x in laps if x["kind"] == "full" and x["valid"] and x["time_s"] is not None]


def lap_problem(sid: str, lap: int, whose: str = "this session") -> str | None:
    """Why ``lap`` of ``sid`` has no lap time (None: it is a valid timed lap)."""
    by = {x["lap"]: x for x in all_laps(sid)}
    if lap not in by:
        have = f"laps {min(by)} to {max(by)}" if len(by) > 1 else f"only lap {min(by)}" if by else "no laps"
        none = "" if timed(list(by.values())) or not by else ", and no complete timed lap"
        return f"There is no lap {lap} in {whose}: it has {have}{none}."
    x = by[lap]
    if x["kind"] != "full" or not x["valid"] or x["time_s"] is None:
        what = {"out": "an out lap", "in": "an in lap"}.get(str(x["kind"]), "not a valid timed lap")
        of = "" if whose == "this session" else f" of {whose}"
        if x["time_s"] is not None and x["kind"] in ("out", "in"):  # its time, said as not a timed lap's
            return f"Lap {lap}{of} was {what} ({lap_time(float(x['time_s']))}), not a timed lap to compare."
        return f"Lap {lap}{of} was {what}, so it has no lap time to compare."
    return None


def missing_lap(q: Question, s: dict[str, Any]) -> Answer | None:
    """The answer when a lap number the question names of this session is not in it at all ("lap 12" of a
    9-lap session), whatever else it asks: no family answers about a lap that is not there."""
    sid = str(s["session_id"])
    numbers = [r.number for r in q.laps if r.number is not None and r.session == "this" and r.count == 1]
    have = {x["lap"] for x in all_laps(sid)} if numbers else set()
    for lap in numbers:
        if lap not in have:
            text = lap_problem(sid, lap)
            return Answer(str(text), "laps", {"session_id": sid}, {"no_lap": lap})
    return None


def ref_session(ref: LapRef, s: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the session a lap reference is in, None) or (None, why none) (``resolve.which_session``); a name
    that is no stored session id is a driver's: their newest session at this track ("bo's lap 4")."""
    sid = str(s["session_id"])
    got, why = resolve.which_session(ref.session, sid)
    if (
        got is None
        or ref.session in ("this", "other")
        or session_words.described(ref.session)
        or rows("SELECT 1 FROM sessions WHERE session_id = ?", [got])
    ):
        return got, why
    named = rows(
        "SELECT session_id FROM sessions WHERE lower(driver_id) = lower(?) AND track_id IS NOT DISTINCT FROM ? "
        "AND session_id <> ? ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT 1",
        [ref.session, s.get("track_id"), sid],
    )
    return (str(named[0]["session_id"]), None) if named else (None, None)


def whose(sid: str, s: dict[str, Any]) -> str:
    """A session as an answer names it: this session, the driver's other session (by its day), a friend's
    session."""
    if sid == s["session_id"]:
        return "this session"
    got = rows("SELECT driver_id, CAST(started_at AS DATE) AS day FROM sessions WHERE session_id = ?", [sid])
    who = got[0]["driver_id"] if got else None
    if who is not None and who == s.get("driver_id"):  # the driver's own: by its day, never by its id
        return f"your other session on {got[0]['day']}" if got[0]["day"] else "your other session"
    return f"session {sid}" if who is None else f"{who}'s session {sid}"


def _elsewhere(other: str, s: dict[str, Any]) -> str | None:
    """Why a session cannot be compared with this one (another track), or None."""
    got = rows("SELECT track_id FROM sessions WHERE session_id = ?", [other])
    track = got[0]["track_id"] if got else None
    if track == s.get("track_id"):
        return None
    return f"Session {other} was driven at {track or 'another track'}, not at {s.get('track_id') or 'this track'}: only a session at this track can be compared."


def named_laps(q: Question, s: dict[str, Any]) -> list[tuple[str, int]] | Answer:
    """(session, lap) of every lap the question names, in its order; or the answer saying why one has no
    lap time (no such lap, an out lap, no other session, no valid lap)."""
    if not q.laps:
        return []
    sid = str(s["session_id"])
    args = {"session_id": sid}
    out: list[tuple[str, int]] = []
    untimed: list[int] = []  # out and in laps of this session, named beside another lap: lap times only
    here = {x["lap"]: x for x in all_laps(sid)} if len(q.laps) > 1 else {}
    for ref in q.laps:
        other, why = ref_session(ref, s)
        if other is None:
            text = why or "There is no other session of yours at this track in the lake to compare with."
            if why is None and ref.session not in ("this", "other"):
                text = f"No session of {ref.session} at this track is in the lake to compare with."
            return Answer(text, "sessions", args, {"other_session": None})
        if other != sid and (why := _elsewhere(other, s)) is not None:
            return Answer(why, "sessions", args, {"other_session": other})
        if ref.number is None and ref.pick is None:  # "my other session", "bo's lap": its best
            ref = replace(ref, pick="fastest")
        # "my best lap and the one before": the lap named before it, in the same session, comes first
        before = (LapRef(number=out[-1][1]),) if out and out[-1][0] == other else ()
        one = Question(q.text, q.intent, laps=(*before, replace(ref, session="this")))
        got = resolve.lap_numbers(one, other)[len(before) :]
        if not got:
            text = f"No valid lap in {whose(other, s)}, so there is no lap time to give."
            return Answer(text, "laps", args | {"lap_session_id": other}, {"valid_laps": 0})
        for lap in got:
            problem = lap_problem(other, lap, whose(other, s))
            if problem is not None and ref.count == 1:
                if other != sid or not _pit_lap(here.get(lap)):
                    return _no_time(problem, other, lap, args)
                untimed.append(lap)
            out.append((other, lap))
    if untimed and len({lap for _, lap in out}) > 1 and all(o == sid for o, _ in out):
        return _lap_times_only(sid, here, [lap for _, lap in out], untimed)
    if untimed:
        return _no_time(str(lap_problem(sid, untimed[0])), sid, untimed[0], args)
    return out


def _no_time(problem: str, sid: str, lap: int, args: dict[str, Any]) -> Answer:
    """The answer saying why ``lap`` of ``sid`` has no lap time to compare (``lap_problem``'s words)."""
    return Answer(
        problem, "laps", args | {"lap": lap}, {"lap": lap, "laps": [x["lap"] for x in all_laps(sid)]}
    )


def _pit_lap(x: dict[str, Any] | None) -> bool:
    """An out or in lap with a time (a lap's row of ``all_laps``): a lap time, though not a timed lap's."""
    return x is not None and x["kind"] in ("out", "in") and x["time_s"] is not None


def _lap_times_only(sid: str, by: dict[int, dict[str, Any]], laps: list[int], untimed: list[int]) -> Answer:
    """Laps of ``sid`` named beside an out or in lap (``by``: its laps by number): their lap times and the
    gap, said as such ("lap 2, an out lap, 1:02.304"); an out lap is not compared corner by corner."""
    kind = {n: f", an {by[n]['kind']} lap," for n in laps if by[n]["kind"] in ("out", "in")}
    said = [f"lap {n}{kind.get(n, '')} {lap_time(float(by[n]['time_s']))}" for n in laps]
    a, b = by[laps[0]], by[laps[1]]
    gap = float(b["time_s"]) - float(a["time_s"])
    text = "Lap times: " + "; ".join(said) + "."
    text += f" Lap {a['lap']} was {abs(gap):.3f} s {'quicker' if gap > 0 else 'slower'} than lap {b['lap']}."
    text += f" {'An out or in lap' if len(untimed) > 1 else 'That ' + str(by[untimed[0]]['kind']) + ' lap'}"
    text += " is not compared corner by corner."
    res = {"laps": laps, "lap_times_s": [by[n]["time_s"] for n in laps], "gap_s": round(gap, 3)}
    return Answer(text, "laps", {"session_id": sid}, res)


def _count(sid: str) -> Answer:
    laps = all_laps(sid)
    good = timed(laps)
    rest = [x for x in laps if x not in good]
    text = f"You have {len(good)} valid timed lap{'' if len(good) == 1 else 's'} this session"
    if rest:
        names = {"out": "out lap", "in": "in lap"}
        text += ", plus " + ", ".join(
            f"lap {x['lap']} ({names.get(str(x['kind']), 'not valid')})" for x in rest
        )
    text += f": {len(laps)} lap{'' if len(laps) == 1 else 's'} recorded."
    res = {"valid_laps": len(good), "laps_recorded": len(laps), "other_laps": [x["lap"] for x in rest]}
    return Answer(text, "laps", {"session_id": sid}, res)


def _one(sid: str, lap: int, good: list[dict[str, Any]]) -> Answer:
    this = next(x for x in good if x["lap"] == lap)
    best = min(good, key=lambda x: x["time_s"])
    gap = this["time_s"] - best["time_s"]
    text = f"Lap {lap} took {lap_time(this['time_s'])}."
    if best["lap"] == lap:
        text += f" It was your best lap of {len(good)} valid laps."
    else:
        text += f" Your best, lap {best['lap']}, was {lap_time(best['time_s'])}, {gap:.3f} s quicker."
    res = {"lap": lap, "lap_time_s": this["time_s"], "best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return Answer(text, "laps", {"session_id": sid, "lap": lap}, res | {"gap_to_best_s": round(gap, 3)})


def _other(
    sid: str, other: str, ref: LapRef, lap: int, good: list[dict[str, Any]], s: dict[str, Any]
) -> Answer:
    """A lap of another session (its best, when asked so), beside this session's best and the gap."""
    t = next(x["time_s"] for x in timed(all_laps(other)) if x["lap"] == lap)
    best = min(good, key=lambda x: x["time_s"])
    gap = best["time_s"] - t
    text = f"Lap {lap} of {whose(other, s)} was {lap_time(t)}."
    if ref.pick == "fastest" and ref.number is None and ref.rank == 1 and not ref.offset:
        text = f"Your best lap in {whose(other, s)} was lap {lap} in {lap_time(t)}."
    text += f" Your best here, lap {best['lap']} in "
    text += f"{lap_time(best['time_s'])}, was {abs(gap):.3f} s {'slower' if gap > 0 else 'faster'}."
    res = {"lap": lap, "lap_time_s": t, "best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return Answer(text, "laps", {"session_id": sid, "ref_session_id": other}, res | {"gap_s": round(gap, 3)})


def _leave_out(q: Question, sid: str, good: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The valid laps less those the question leaves out ("excluding lap 1"), and how the answer says it
    (", leaving out lap 1"; out and in laps are never among the valid laps)."""
    if not q.without:
        return good, ""
    gone = set(resolve.lap_numbers(Question(q.text, q.intent, laps=q.without), sid))
    left = [x["lap"] for x in good if x["lap"] in gone]
    said = f", leaving out {laps_said(left)}" if left else ""
    if any(x.pick in ("out", "in") for x in q.without):
        said += " (out and in laps are never counted)"
    return [x for x in good if x["lap"] not in gone], said


def _pick(sid: str, word: str, x: dict[str, Any], n: int, left: str = "") -> Answer:
    text = f"Your {word} lap was lap {x['lap']} in {lap_time(x['time_s'])}, of {n} valid laps{left}."
    key = word.replace(" ", "_")
    res = {f"{key}_lap": x["lap"], f"{key}_lap_s": x["time_s"], "valid_laps": n}
    return Answer(text, "laps", {"session_id": sid}, res)


_ENTRY_WORDS = {"out": ("out lap", "from the pits"), "in": ("in lap", "into the pits")}


def _entry(sid: str, kinds: tuple[str, ...], good: list[dict[str, Any]]) -> Answer:
    """The out laps (or in laps) by name: each one's time (none is a timed lap), beside the best lap and,
    for one lap, how much quicker the best was."""
    res: dict[str, Any] = {}
    said, one = [], []
    for kind in kinds:
        word, where = _ENTRY_WORDS[kind]
        laps = [x for x in all_laps(sid) if x["kind"] == kind and x["time_s"] is not None]
        res[f"{kind}_laps"] = {x["lap"]: x["time_s"] for x in laps}
        if not laps:
            said.append(f"No {word} was recorded this session.")
            continue
        times = listed([f"lap {x['lap']} in {lap_time(x['time_s'])}" for x in laps])
        said.append(f"Your {word}{'s were' if len(laps) > 1 else ' was'} {times} ({where}, not a timed lap).")
        one += laps
    text = " ".join(said)
    if good:
        best = min(good, key=lambda x: x["time_s"])
        text += f" Your best lap, lap {best['lap']}, was {lap_time(best['time_s'])}"
        gap = one[0]["time_s"] - best["time_s"] if len(one) == 1 else None
        text += f", {gap:.3f} s quicker." if gap is not None and gap > 0 else "."
        res |= {"best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return Answer(text, "laps", {"session_id": sid}, res)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """A lap's time, the best / slowest / average lap, how many laps, or the out / in laps by name."""
    sid = str(s["session_id"])
    if q.aggregation == "count":
        return _count(sid)
    entry = [x.pick for x in q.laps if x.pick in ("out", "in") and x.session == "this"]
    if entry and q.aggregation is None:  # "my out lap", "in lap against my best": the out / in laps' times
        return _entry(sid, tuple(dict.fromkeys(str(x) for x in entry)), timed(all_laps(sid)))
    good = timed(all_laps(sid))
    if not good:
        text = "No valid lap in this session, so there is no lap time to give."
        return Answer(text, "laps", {"session_id": sid}, {"valid_laps": 0})
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps
    good, left = _leave_out(q, sid, good)
    if not good:
        text = f"Leaving out {left}, no valid lap is left, so there is no lap time to give."
        return Answer(text, "laps", {"session_id": sid}, {"valid_laps": 0})
    if len(laps) == 1:
        other, lap = laps[0]
        ref = q.laps[0]
        if other != sid:
            return _other(sid, other, ref, lap, good, s)
        if ref.pick in ("fastest", "slowest") and ref.number is None and ref.offset == 0:
            word = "best" if ref.pick == "fastest" else "slowest"
            if left and ref.rank == 1:  # "my best lap, not counting lap 2": the best of the laps left
                pick = min if ref.pick == "fastest" else max
                return _pick(sid, word, pick(good, key=lambda y: y["time_s"]), len(good), left)
            word = f"{ORDINALS[ref.rank]} {word}" if 1 < ref.rank < len(ORDINALS) else word
            return _pick(sid, word, next(x for x in good if x["lap"] == lap), len(good))
        return _one(sid, lap, good)
    if q.aggregation == "avg":
        mean = sum(x["time_s"] for x in good) / len(good)
        text = f"Your average lap was {lap_time(mean)} over {len(good)} valid laps{left}."
        return Answer(text, "laps", {"session_id": sid}, {"average_lap_s": mean, "valid_laps": len(good)})
    if q.aggregation == "max":
        return _pick(sid, "slowest", max(good, key=lambda y: y["time_s"]), len(good), left)
    return _pick(sid, "best", min(good, key=lambda y: y["time_s"]), len(good), left)
