"""The driver-question route for a lap of another session: "compare lap 5 with bo's best lap", "my best
against lap 3 of session 20260601-101500-ab12", "how far off Bo Smith's lap 4 was I?". The reference is
found in the lake, never guessed: a driver's name (any stored driver at this track, followed by 's) or a
stored session id the question spells out. The comparison is ``get_lap_delta`` with ``ref_session_id``
(by distance, line to line), in Pitwall's own sentences, its result kept for the narrator's facts and the
grounding check. Runs SQL (call it in a worker thread)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from services.paddock.agents.data_answer import DataAnswer, format_result
from shared.display import lap_time

_BEST = r"(?:best|fastest|quickest|pb)"
_COMPARE = re.compile(
    r"compar|\bvs\.?\b|versus|against|\bwith\b|\bthan\b|\bgap\b|differ|delta|\bto\b|\bbehind\b|\bahead\b|"
    r"\boff\b|\bslower\b|\bfaster\b|\blose\b|\blost\b|\bgain"
)


@dataclass
class _Ref:
    session_id: str
    driver_id: str | None
    lap: int | None  # None: that session's (or driver's) best valid lap
    span: tuple[int, int]  # where the question names it
    by_driver: bool


def _rows(sql: str, params: list[Any]) -> list[dict[str, Any]]:
    from services.paddock.tools.base import rows

    return rows(sql, params)


def _others(s: dict[str, Any]) -> list[dict[str, Any]]:
    return _rows(
        """SELECT session_id, driver_id, CAST(started_at AS VARCHAR) AS started FROM sessions
           WHERE track_id IS NOT DISTINCT FROM ? AND session_id <> ?
           ORDER BY started_at DESC NULLS LAST, session_id DESC""",
        [s.get("track_id"), s["session_id"]],
    )


def _near_lap(q: str, a: int, b: int) -> tuple[int | None, tuple[int, int]]:
    """A lap number or "best lap" said right before or after a name at q[a:b]: (lap or None, span)."""
    after = re.match(rf"(?:'s|’s|'|’)?\s+(?:(?:{_BEST}\s+lap)|lap\s+(\d{{1,4}})\b)", q[b:])
    if after:
        return (int(after.group(1)) if after.group(1) else None), (a, b + after.end())
    before = re.search(
        rf"(?:{_BEST}\s+lap|\blap\s+(\d{{1,4}}))\s+(?:of|from|in|by)\s+(?:session\s+)?$", q[:a]
    )
    if before:
        return (int(before.group(1)) if before.group(1) else None), (before.start(), b)
    return None, (a, b)


def _find(q: str, s: dict[str, Any]) -> _Ref | None:
    others = _others(s)
    for o in others:  # a stored session id spelled out: the most exact
        key = str(o["session_id"]).lower()
        i = q.find(key)
        if i >= 0 and not (q[i - 1 : i].isalnum() or q[i + len(key) : i + len(key) + 1].isalnum()):
            lap, span = _near_lap(q, i, i + len(key))
            return _Ref(o["session_id"], o["driver_id"], lap, span, False)
    names = {str(o["driver_id"]) for o in others if o["driver_id"] and o["driver_id"] != s.get("driver_id")}
    for name in sorted(names, key=len, reverse=True):  # "bo smith" before "bo"
        m = re.search(rf"(?<!\w){re.escape(name.lower())}(?='s\b|’s\b|['’](?=\s))", q)  # bo's, chris
        if m is None:
            continue
        lap, span = _near_lap(q, m.start(), m.end())
        theirs = [o for o in others if o["driver_id"] == name]
        if lap is None:  # their best lap at this track, over all their sessions here
            best = _best_of([o["session_id"] for o in theirs])
            sid = best[0] if best else theirs[0]["session_id"]
            return _Ref(sid, name, best[1] if best else None, span, True)
        return _Ref(theirs[0]["session_id"], name, lap, span, True)  # lap N of their latest session
    return None


def _best_of(sids: list[str]) -> tuple[str, int] | None:
    got = _rows(
        f"""SELECT session_id, lap FROM laps WHERE session_id IN ({", ".join("?" for _ in sids)})
            AND kind = 'full' AND valid AND time_s IS NOT NULL ORDER BY time_s, session_id, lap LIMIT 1""",
        sids,
    )
    return (got[0]["session_id"], int(got[0]["lap"])) if got else None


def _lap_problem(sid: str, lap: int, whose: str) -> str | None:
    """Why ``lap`` of ``sid`` has no lap time to compare (None: it is a valid full lap)."""
    laps = _rows("SELECT lap, kind, valid, time_s FROM laps WHERE session_id = ? ORDER BY lap", [sid])
    by = {x["lap"]: x for x in laps}
    if lap not in by:
        have = f"laps {min(by)} to {max(by)}" if by else "no laps"
        return f"There is no lap {lap} in {whose}: it has {have}."
    x = by[lap]
    if x["kind"] != "full" or not x["valid"] or x["time_s"] is None:
        what = {"out": "an out lap", "in": "an in lap"}.get(str(x["kind"]), "not a valid timed lap")
        return f"Lap {lap} of {whose} was {what}, so it has no lap time to compare."
    return None


def other_lap(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """A question naming a lap of another stored session at this track (by driver or session id)."""
    from services.paddock.tools.registry import run_tool

    ref = _find(q, s)
    if ref is None:
        return None
    sid = s["session_id"]
    whose = f"{ref.driver_id}'s session {ref.session_id}" if ref.driver_id else f"session {ref.session_id}"
    base = {"session_id": sid, "ref_session_id": ref.session_id}
    if ref.lap is None:
        best = _best_of([ref.session_id])
        if best is None:
            return DataAnswer(f"There is no valid lap in {whose} to compare with.", "laps", base)
        ref.lap = best[1]
    problem = _lap_problem(ref.session_id, ref.lap, whose)
    if problem is not None:
        return DataAnswer(problem, "laps", base, {"lap": ref.lap})
    rest = q[: ref.span[0]] + " " + q[ref.span[1] :]
    if not _COMPARE.search(rest):  # "what was bo's best lap?": that lap's time, no comparison
        t = _rows("SELECT time_s FROM laps WHERE session_id = ? AND lap = ?", [ref.session_id, ref.lap])
        text = f"Lap {ref.lap} of {whose} was {lap_time(t[0]['time_s'])}."
        return DataAnswer(text, "laps", base, {"lap": ref.lap, "lap_time_s": t[0]["time_s"]})
    mine = [int(x) for x in re.findall(r"\blap\s+(\d{1,4})\b", rest)]
    if mine:
        own = mine[0]
        problem = _lap_problem(sid, own, "this session")
        if problem is not None:
            return DataAnswer(problem, "laps", {"session_id": sid}, {"lap": own})
    else:  # "my best lap", "my lap", nothing said: the session's best lap
        best = _best_of([sid])
        if best is None:
            return DataAnswer("No valid lap in this session to compare.", "laps", {"session_id": sid})
        own = best[1]
    args = {**base, "lap_a": ref.lap, "lap_b": own}
    d = run_tool("get_lap_delta", args)
    return DataAnswer(format_result("get_lap_delta", d), "get_lap_delta", args, d)
