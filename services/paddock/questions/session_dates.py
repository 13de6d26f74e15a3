"""A session named by when or which (``session_words``), picked among the driver's own sessions at this
track by their dates and order (``tools.session_compare.own_sessions_here``: each with ``at``, when it was
driven): "yesterday" and "last Saturday" are days before this session's day (today is the day of the session
asked about, never the clock's); "the 14th" is the latest such date up to it. A description no session fits
gets why, with the driver's sessions here, never another session; but a date the file does not carry (a
guess from the file's time) rules nothing out: then it is the newest other session. Pure."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from services.paddock.questions import session_words as sw
from shared.display import lap_time

WET = "whether a session was wet or dry is not recorded (the logger files hold no weather)"


def _at(g: dict[str, Any]) -> datetime | None:
    return datetime.fromisoformat(g["at"]) if g.get("at") else None


def day_text(d: date) -> str:
    return d.strftime("%d %b %Y").lstrip("0")


def _when_text(g: dict[str, Any]) -> str:
    at = _at(g)
    if at is None:
        return "date unknown"
    return at.strftime("%d %b %Y %H:%M").lstrip("0") + (", date guessed" if g.get("at_guessed") else "")


def _none(what: str, why: str, got: list[dict[str, Any]], this: str) -> str:
    """What was understood, why no session fits it, and the sessions there are: never another's figures."""
    return f"I read this as {what}, but {why}; {listed(got, this)}."


def listed(got: list[dict[str, Any]], this: str) -> str:
    """The driver's sessions here, oldest first, as a driver reads them: "your sessions here: 21 Nov 2026
    10:00 (best 1:35.274), 22 Nov 2026 10:00 (this one, best 1:36.010)"."""
    parts = []
    for g in sorted(got, key=_order):
        best = f"best {lap_time(g['best_s'])}" if g.get("best_s") is not None else "no valid lap"
        parts.append(f"{_when_text(g)} ({'this one, ' if g['session_id'] == this else ''}{best})")
    return "your sessions here: " + ", ".join(parts)


def _order(g: dict[str, Any]) -> tuple[datetime, str]:
    return _at(g) or datetime.min, str(g["session_id"])


def pick(desc: str, s: dict[str, Any], got: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """(the session ``desc`` names, None) or (None, why none). ``got``: the own sessions here (``s``'s
    among them)."""
    sid = str(s["session_id"])
    key, _, value = desc.partition("=")
    if key == "wet":
        return None, _none("your session in the wet", WET, got, sid)
    if key in ("best", "worst"):
        timed = [g for g in got if g.get("best_s") is not None]
        if not timed:
            return None, _none(f"your {key} session here", "none of them has a valid lap", got, sid)
        by = sorted(timed, key=lambda g: (g["best_s"], _order(g)))
        return str((by[0] if key == "best" else by[-1])["session_id"]), None
    order = sorted(got, key=_order)
    here = next((i for i, g in enumerate(order) if g["session_id"] == sid), None)
    if key == "ago":
        k = int(value)
        if here is not None and here - k >= 0:
            return str(order[here - k]["session_id"]), None
        said = "the session before this one" if k == 1 else f"{k} sessions before this one"
        return None, _none(said, "you have no such session here", got, sid)
    if key == "track":
        return _track(value, s, got)
    this = next((g for g in got if g["session_id"] == sid), {})
    today = _at(this)
    found = _by_day(key, value, today, order, sid) if today is not None else (None, None)
    others = [g for g in order if g["session_id"] != sid]
    if found[0] is None and others and not all(map(_sure, (this, *others))):
        # a date the file does not carry (a guess, or none) is no evidence against: the newest other
        return str(others[-1]["session_id"]), None
    if today is None:
        return None, _none("a session by its date", "this session's date is not known", got, sid)
    return found


def _sure(g: dict[str, Any]) -> bool:
    """The session's date is the file's own (not guessed, not unknown)."""
    return bool(g.get("at")) and not g.get("at_guessed")


def _by_day(
    key: str, value: str, today: datetime, order: list[dict[str, Any]], sid: str
) -> tuple[str | None, str | None]:
    """A session by its day, among those whose file carries its date: a day before today, a weekday, a
    date, a part of today, the nth of today."""
    others = [g for g in order if g["session_id"] != sid and _sure(g)]
    if key in ("part", "nth"):
        mine = [g for g in order if (at := _at(g)) is not None and _sure(g) and at.date() == today.date()]
        if key == "nth":
            k = int(value)
            if k <= len(mine):
                return str(mine[k - 1]["session_id"]), None
            count = f"{len(mine)} session{'s' if len(mine) != 1 else ''}"
            what = f"session {k} of {day_text(today.date())}"
            return None, _none(what, f"you drove {count} here that day", order, sid)
        lo, hi = sw.PARTS[value]
        fit = [g for g in mine if g["session_id"] != sid and lo <= (_at(g) or today).hour < hi]
        if fit:
            return str(fit[-1]["session_id"]), None
        what = f"your session in the {value} of {day_text(today.date())}"
        return None, _none(what, "you have no other session then here", order, sid)
    if key == "span":
        return _around(int(value), today.date(), others, order, sid)
    day = _day(key, value, today.date())
    if day is None:
        return None, _none("a session on a date", "there is no such date", order, sid)
    fit = [g for g in others if (_at(g) or today).date() == day]
    if key == "day" and day == today.date():
        fit = [g for g in fit if (_at(g) or today) < today]  # "earlier today": before this one
    if fit:
        return str(fit[-1]["session_id"]), None
    return None, _none(f"your session on {day_text(day)}", "you have no session that day here", order, sid)


def _day(key: str, value: str, today: date) -> date | None:
    """The day a description names, up to today; None when no date is such ("30 February")."""
    if key == "day":
        return today + timedelta(days=int(value))
    if key == "weekday":  # "last Saturday": the latest one before today
        return today - timedelta(days=(today.weekday() - int(value) - 1) % 7 + 1)
    month, day = (int(x) for x in value.split("-"))
    y, m = today.year, month or today.month
    for _ in range(13):  # "14 March": this year's or last; "the 14th": this month's or an earlier one's
        got = _date(y, m, day)
        if got is not None and got <= today:
            return got
        y, m = (y - 1, m) if month else (y, m - 1) if m > 1 else (y - 1, 12)
    return None


def _date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _track(name: str, s: dict[str, Any], got: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """ "Last time at Sonoma": the newest other session here when the name is this track's, else why not."""
    sid = str(s["session_id"])
    names = " ".join(str(s.get(k) or "") for k in ("track_id", "track_name")).lower()
    if name in names:
        others = [g for g in sorted(got, key=_order) if g["session_id"] != sid]
        if others:
            return str(others[-1]["session_id"]), None
        return None, _none(f"your last session at {name.title()}", "you have no other session here", got, sid)
    why = f"none of your sessions at this track is at {name.title()}, and only they can be compared"
    return None, _none(f"a session at {name.title()}", why, got, sid)


def _around(
    days: int, today: date, others: list[dict[str, Any]], order: list[dict[str, Any]], sid: str
) -> tuple[str | None, str | None]:
    """ "a month ago": the session nearest the day that many days before today, within half the span
    (three days either side of "a week ago"); the newer of two as near."""
    target = today - timedelta(days=days)
    near = [(abs(((_at(g) or datetime.min).date() - target).days), i, g) for i, g in enumerate(others)]
    near = [x for x in near if x[0] <= max(3, days // 2)]
    if near:
        return str(min(near, key=lambda x: (x[0], -x[1]))[2]["session_id"]), None
    return None, _none(f"your session around {day_text(target)}", "you have no session here then", order, sid)
