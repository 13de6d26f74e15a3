"""The driver's sessions here and one against another: "what sessions do I have here?", "how did I do
compared with my other session?", "how did yesterday's session compare?". Own sessions only
(``tools.session_compare``); which session is ``resolve.which_session``'s: "my other session" the newest
other own session at the same track, "yesterday", "two sessions ago" … by the sessions' dates and order."""

from __future__ import annotations

from typing import Any

from services.paddock.questions import resolve
from services.paddock.questions.families.track_words import corner_names
from services.paddock.questions.model import Answer, Question
from services.paddock.questions.session_words import PREFIX
from services.paddock.tools.base import ToolError
from services.paddock.tools.session_compare import compare_sessions, get_sessions_here
from shared.display import lap_time, track_title

TOP_CORNERS = 3


def _track(here: dict[str, Any]) -> str:
    """The track as the file names it, else as Pitwall's profile does (never an id)."""
    return str(here.get("track_name") or track_title(here.get("track")))


def _day(g: dict[str, Any] | None) -> str:
    """When a session was driven, as the file says (a guessed date said as one)."""
    at = (g or {}).get("at")
    return (
        f"on {at[:10]}" + (" (date guessed)" if g and g.get("at_guessed") else "") if at else "(date unknown)"
    )


def _list(here: dict[str, Any]) -> str:
    got = here["sessions"]
    track = _track(here)
    n = len(got)
    parts = []
    for g in got:
        name = "this session" if g["this"] else f"the session {_day(g)}"
        best = (
            f"best {lap_time(g['best_s'])} (lap {g['best_lap']})"
            if g["best_s"] is not None
            else "no valid lap"
        )
        parts.append(f"{name}: {g['valid_laps']} valid lap{'s' if g['valid_laps'] != 1 else ''}, {best}")
    return (
        f"You have {n} session{'s' if n != 1 else ''} of your own at {track}: "
        + "; ".join(parts)
        + "."
        + _against(got)
    )


def _against(got: list[dict[str, Any]]) -> str:
    """This session's best against the best of the driver's other sessions here, with the gap and which
    is better ("did I set a new PB today?"); nothing when either has no valid lap."""
    this = next((g for g in got if g["this"] and g["best_s"] is not None), None)
    others = [g for g in got if not g["this"] and g["best_s"] is not None]
    if this is None or not others:
        return ""
    o = min(others, key=lambda g: g["best_s"])
    gap = this["best_s"] - o["best_s"]
    verdict = f"{abs(gap):.3f} s {'slower' if gap > 0 else 'faster'} than" if gap else "exactly as fast as"
    head = "your best here before" if gap > 0 else "your best here until now"
    return (
        f" This session's best, {lap_time(this['best_s'])}, was {verdict} {head}, "
        f"{lap_time(o['best_s'])} in the session {_day(o)}."
    )


def _compare(res: dict[str, Any], names: dict[str, str], other: dict[str, Any] | None) -> str:
    when = _day(other)
    if not res["available"]:
        return f"I can't compare with your session {when}: {res['reason']}."
    gap = res["gap_s"]
    verdict = f"{abs(gap):.3f} s {'slower' if gap > 0 else 'faster'}" if gap else "exactly as fast"
    out = [
        f"Your best lap here, {lap_time(res['best_s'])} (lap {res['best_lap']}), was {verdict} than your best in "
        f"your other session {when}, {lap_time(res['other_best_s'])} (lap {res['other_best_lap']})."
    ]
    lost = [c for c in res["corners"] if c["gap_s"] > 0][:TOP_CORNERS]
    won = [c for c in res["corners"] if c["gap_s"] < 0][:TOP_CORNERS]
    for label, cs in (("Slower at", lost), ("Faster at", won)):
        if cs:
            out.append(
                f"{label} "
                + ", ".join(f"{names.get(c['corner'], c['name'])} ({abs(c['gap_s']):.3f} s)" for c in cs)
                + "."
            )
    return " ".join(out)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """This session against the other one the question names (or the newest other), else the list of the
    driver's sessions here."""
    sid = s["session_id"]
    here = get_sessions_here(sid)
    wants_other = any(x.session != "this" for x in q.laps) or q.intent == "compare"
    if not wants_other:
        text = _list(here)
        if len(here["sessions"]) <= 1 and q.aggregation != "count":
            # "have I plateaued?" with no other session here: the list of one is no answer to it
            text = (
                f"I read this as your sessions here, and this is your only one, so I can only give it: {text}"
            )
        return Answer(text, "get_sessions_here", {"session_id": sid}, here)
    said = next((x.session for x in q.laps if x.session != "this"), "other")
    other, why = resolve.which_session(said, sid)
    if other is None:
        return Answer(
            why or f"You have no other session of your own at {_track(here)}.",
            "get_sessions_here",
            {"session_id": sid},
            here,
        )
    rest = [g for g in here["sessions"] if not g["this"] and g["best_s"] is not None]
    lead = ""
    if other == sid and rest and said in (f"{PREFIX}best", f"{PREFIX}worst"):
        # "is this my fastest session here?": yes, against the best of the others
        lead = f"This is your {said.removeprefix(PREFIX)} session here. "
        other = str(min(rest, key=lambda g: g["best_s"])["session_id"])
    if other == sid:  # "the first one today": this one
        return Answer(f"That is this session. {_list(here)}", "get_sessions_here", {"session_id": sid}, here)
    names = corner_names(s)
    args = {"session_id": sid, "other_session_id": other}
    try:
        res = compare_sessions(sid, other)
    except ToolError as exc:
        if exc.code not in ("not_comparable", "unknown_session"):
            raise
        text = f"That session is not another of your own at {_track(here)}, so I can't compare with it."
        return Answer(text, "compare_sessions", args, exc.as_dict())
    row = next((g for g in here["sessions"] if g["session_id"] == other), None)
    return Answer(lead + _compare(res, names, row), "compare_sessions", args, res)
