"""A corner's figures, answered straight from the corner table (``corner_results``): on a named lap
against the quickest pass, or over the session's valid laps. The figure asked is the figure answered
(entry, minimum or exit speed, brake point, peak brake pressure, throttle pick-up, time through it); a
figure the table does not hold (the top speed through a corner) is said to be not recorded, beside the
figures Pitwall has, each under its own name. Runs SQL (worker thread).
"""

from __future__ import annotations

import re
from typing import Any

from services.paddock.agents.data_answer import DataAnswer, _find_corner

_ONE_LAP = re.compile(r"\blap\s+(\d{1,4})\b")
_CMP = re.compile(r"\b(?:vs\.?|versus|compare|compared|than|why|slower|faster|differ|difference|between)\b")
MPH = 1.609344

# (column, what a driver calls it, unit, words that ask for it); speeds first
FIGURES: list[tuple[str, str, str, str]] = [
    (
        "entry_kmh",
        "entry speed",
        "km/h",
        r"\bentry\b|\benter(?:ing)?\b|carr(?:y|ied) in|turn.?in speed|\binto\b(?=.*(?:\bspeeds?\b|how fast|km/h|mph))",
    ),
    ("min_kmh", "minimum speed", "km/h", r"\bmin(?:imum)?\b|\bslowest\b|\bapex speed|mid.?corner|\blowest\b"),
    ("exit_kmh", "exit speed", "km/h", r"\bexit(?:ing)?\b|\bout of\b|coming out|carr(?:y|ied) out"),
    ("brake_peak_bar", "peak brake pressure", "bar", r"how hard.{0,20}brak|brake pressure|peak brak"),
    ("brake_point_m", "braking at", "m", r"\bbrak"),
    (
        "throttle_pickup_m",
        "throttle pick-up",
        "m",
        r"throttle|back on the (?:gas|power)|on the (?:gas|power)",
    ),
    ("time_s", "time through it", "s", r"\btime\b|how long|\blos[et]\b|\bgain|\bquick"),
]
SPEEDS = ("entry_kmh", "min_kmh", "exit_kmh")
# the top speed through a corner: not a column of the corner table
_MAX = re.compile(r"top speed|max(?:imum)? speed|highest speed|peak speed|fastest speed|\bv ?max\b")
_SPEED = re.compile(r"\bspeeds?\b|how fast|\bkm/?h\b|\bkph\b|\bmph\b")


def _rows(sql: str, params: list[Any]) -> list[dict[str, Any]]:
    from services.paddock.tools.base import rows

    return rows(sql, params)


def _one_lap(q: str) -> int | None:
    laps = {int(x) for x in _ONE_LAP.findall(q)}
    return laps.pop() if len(laps) == 1 and not _CMP.search(q) else None


def _show(col: str, v: float, mph: bool) -> str:
    if col.endswith("_kmh"):
        return f"{v:.1f} km/h" + (f" ({v / MPH:.1f} mph)" if mph else "")
    if col == "time_s":
        return f"{v:.3f} s"
    return f"{v:.0f} m" if col.endswith("_m") else f"{v:.1f} bar"


def asked(q: str) -> tuple[list[str], bool]:
    """(the corner-table columns the question asks for, whether it asks for the top speed through it)."""
    top = bool(_MAX.search(q))
    cols = [c for c, _, _, pat in FIGURES if re.search(pat, q)]
    if "brake_peak_bar" in cols:
        cols.remove("brake_point_m")
    if top:
        cols = [c for c in cols if c != "min_kmh"]  # "highest"/"lowest" words belong to the top speed
    elif _SPEED.search(q) and not any(c in SPEEDS for c in cols):
        cols += list(SPEEDS)  # "what speed did I carry through T2?": every speed, each by its name
    return cols, top


def _order(c: str) -> tuple[int, str]:
    m = re.match(r"[A-Z]+(\d+)(.*)", c)
    return (int(m.group(1)), m.group(2)) if m else (0, c)


def _cid(corner: str) -> str:
    return re.sub(r"^turn\s+", "t", re.sub(r"^corner\s+", "c", corner.lower())).replace(" ", "")


def corner_id_in(corner: str, sid: str) -> tuple[str, list[str]]:
    """(the corner id a question's corner is in this session's corner table, upper case; the session's
    corner ids in lap order). "turn 11" on a track whose corners are numbered C1, C2, ... is C11."""
    have = [
        r["c"]
        for r in _rows(
            "SELECT DISTINCT upper(corner_id) AS c FROM corner_results WHERE session_id = ?", [sid]
        )
    ]
    cid = _cid(corner).upper()
    if cid not in have and re.sub(r"^[A-Z]+", "C", cid) in have:
        cid = re.sub(r"^[A-Z]+", "C", cid)
    return cid, sorted(have, key=_order)


def corner_figures(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """The figure asked at a corner, on a named lap or over the session."""
    n = _one_lap(q)
    corner = _find_corner(q, s.get("track_id"))
    if corner is None or (n is None and _ONE_LAP.search(q)):
        return None
    cols, top = asked(q)
    if n is None and not (top or any(c in SPEEDS for c in cols)):
        return None  # "how's my T4 looking?": the corner coach's history answers it
    if n is not None and not cols and not top:
        cols = ["brake_point_m", "min_kmh", "time_s"]  # "how was turn 11 on lap 3?"
    sid = s["session_id"]
    cid, have = corner_id_in(corner, sid)
    args = {"session_id": sid, "corner_name": corner}
    if cid not in have:  # a corner this session does not have: said so, never another figure
        listed = f"its corners are {', '.join(have)}" if have else "it has no corners"
        text = f"This session has no corner {cid}: {listed}."
        return DataAnswer(text, "get_corner_history", args, {"corners": have, "recorded": False})
    rows = _rows(
        "SELECT c.* FROM corner_results c JOIN laps l USING (session_id, lap) WHERE c.session_id = ? "
        "AND upper(c.corner_id) = ? AND l.kind = 'full' AND l.valid ORDER BY c.lap",
        [sid, cid],
    )
    mph = bool(re.search(r"\bmph\b|miles", q))
    if n is None:
        return _over_session(rows, cols, top, mph, args)
    this = next((r for r in rows if r["lap"] == n), None)
    if this is None:
        return None
    name = str(this["corner_id"]).upper()
    res: dict[str, Any] = {"lap": n, "corner": this["corner_id"]}
    res |= {c: this.get(c) for c, *_ in FIGURES if this.get(c) is not None}
    lead = ""
    if top:
        lead = f"Pitwall does not record the top speed through {name}; it has entry, minimum and exit speed. "
        cols = list(dict.fromkeys([*SPEEDS, *cols]))
    labels = {c: w for c, w, _, _ in FIGURES}
    bits = [f"{labels[c]} {_show(c, this[c], mph)}" for c in cols if this.get(c) is not None]
    gone = [labels[c] for c in cols if this.get(c) is None]
    if not bits:
        text = f"The {' and '.join(gone)} at {name} on lap {n} is not recorded in this session."
        return DataAnswer(text, "get_corner_history", args, res | {"recorded": False})
    parts = [lead + f"{name} on lap {n}: " + ", ".join(bits) + "."]
    if gone:
        parts.append(f"The {' and '.join(gone)} is not recorded.")
    timed = [r for r in rows if r.get("time_s") is not None]
    quick = min(timed, key=lambda r: r["time_s"]) if timed else None
    if quick is not None and quick["lap"] != n:
        ref = [f"{labels[c]} {_show(c, quick[c], mph)}" for c in cols if quick.get(c) is not None]
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
    return DataAnswer(" ".join(parts), "get_corner_history", args, res)


def _over_session(
    rows: list[dict[str, Any]], cols: list[str], top: bool, mph: bool, args: dict[str, Any]
) -> DataAnswer | None:
    if not rows:
        return None
    name = str(rows[0]["corner_id"]).upper()
    labels = {c: w for c, w, _, _ in FIGURES}
    lead = ""
    if top:
        lead = f"Pitwall does not record the top speed through {name}; it has entry, minimum and exit speed. "
        cols = list(dict.fromkeys([*SPEEDS, *cols]))
    res: dict[str, Any] = {"corner": rows[0]["corner_id"], "valid_laps": len(rows)}
    bits = []
    for c in cols:
        got = [r for r in rows if r.get(c) is not None]
        if not got:
            bits.append(f"{labels[c]} not recorded")
            continue
        hi, lo = max(got, key=lambda r: r[c]), min(got, key=lambda r: r[c])
        bits.append(
            f"{labels[c]} from {_show(c, lo[c], mph)} (lap {lo['lap']}) to {_show(c, hi[c], mph)} (lap {hi['lap']})"
        )
        res |= {f"{c}_lo": lo[c], f"{c}_lo_lap": lo["lap"], f"{c}_hi": hi[c], f"{c}_hi_lap": hi["lap"]}
    text = lead + f"{name} over your {len(rows)} valid laps: " + "; ".join(bits) + "."
    return DataAnswer(text, "get_corner_history", args, res)
