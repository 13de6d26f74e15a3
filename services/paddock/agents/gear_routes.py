"""Gear questions: the gear channel at a corner's slowest point (the minimum-speed point ``corner_results``
measures, ``apex_m``), on a named lap or over the valid laps; without a corner, the gears used. A session
whose file has no gear channel is told so plainly, never a zero. Runs SQL (worker thread)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from services.paddock.agents.corner_routes import _cid, corner_id_in
from services.paddock.agents.data_answer import DataAnswer, _find_corner

GEAR = re.compile(r"\bgears?\b")
_LAP = re.compile(r"\blap\s+(\d{1,4})\b")


def _rows(sql: str, params: list[Any]) -> list[dict[str, Any]]:
    from services.paddock.tools.base import rows

    return rows(sql, params)


def ordinal(g: int) -> str:
    return f"{g}{'th' if 10 <= g % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(g % 10, 'th')}"


def _recorded(sid: str) -> bool:
    try:
        r = _rows("SELECT count(gear) AS n FROM telemetry WHERE session_id = ? AND gear > 0", [sid])
    except Exception:  # a lake without the column at all
        return False
    return bool(r and r[0]["n"])


def gear(q: str, s: dict[str, Any]) -> DataAnswer | None:
    if not GEAR.search(q) or re.search(r"\bgearbox\b|\bgearing\b|\bratio", q):
        return None
    sid = s["session_id"]
    args = {"session_id": sid}
    corner = _find_corner(q, s.get("track_id"))
    lap = _LAP.search(q)
    n = int(lap.group(1)) if lap else None
    if not _recorded(sid):
        where = f" at {_cid(corner).upper()}" if corner else ""
        text = (
            f"Gear is not recorded in this session's file (no gear channel), so the gear{where} is unknown."
        )
        return DataAnswer(text, "telemetry", args, {"recorded": False})
    if corner is None:
        return _gears_used(sid, n, args)
    cid, have = corner_id_in(corner, sid)
    if cid not in have:
        listed = ", ".join(have) if have else "none"
        text = f"This session has no corner {cid}: its corners are {listed}."
        return DataAnswer(text, "get_corner_history", args, {"corners": have, "recorded": False})
    got = _rows(
        """SELECT c.lap, c.min_kmh, c.apex_m,
                  (SELECT t.gear FROM telemetry t WHERE t.session_id = c.session_id AND t.lap = c.lap
                     AND t.gear > 0 ORDER BY abs(t.dist_m - c.apex_m) LIMIT 1) AS gear
           FROM corner_results c JOIN laps l USING (session_id, lap)
           WHERE c.session_id = ? AND upper(c.corner_id) = ? AND l.kind = 'full' AND l.valid
             AND c.apex_m IS NOT NULL ORDER BY c.lap""",
        [sid, cid],
    )
    by = {int(x["lap"]): (round(float(x["gear"])), x["min_kmh"]) for x in got if x["gear"] is not None}
    res: dict[str, Any] = {"corner": cid, "gear_by_lap": {k: v[0] for k, v in by.items()}}
    if n is not None:
        if n not in by:
            text = f"Lap {n} has no gear reading at {cid}: it is not a valid timed lap through it."
            return DataAnswer(text, "telemetry", args | {"lap": n}, res | {"lap": n})
        g, vmin = by[n]
        text = f"At {cid} on lap {n} you were in {ordinal(g)} gear at the slowest point"
        text += f" ({vmin:.1f} km/h)." if vmin is not None else "."
        res |= {"lap": n, "gear": g, "min_kmh": vmin}
        return DataAnswer(text, "telemetry", args | {"lap": n}, res)
    if not by:
        return DataAnswer(f"No valid lap has a gear reading at {cid}.", "telemetry", args, res)
    count = Counter(g for g, _ in by.values())
    typical, k = count.most_common(1)[0]
    text = f"At {cid} you were in {ordinal(typical)} gear at the slowest point on {k} of {len(by)} valid laps"
    others = sorted((lap, g) for lap, (g, _) in by.items() if g != typical)
    if others:
        text += " (" + ", ".join(f"{ordinal(g)} on lap {lap}" for lap, g in others) + ")"
    res |= {"typical_gear": typical, "laps_in_typical_gear": k, "valid_laps": len(by)}
    return DataAnswer(text + ".", "telemetry", args, res)


def _gears_used(sid: str, n: int | None, args: dict[str, Any]) -> DataAnswer | None:
    """The gears used (lowest to top) and the one used most, by share of the moving samples."""
    where, params = ("", [sid]) if n is None else (" AND lap = ?", [sid, n])
    got = _rows(
        "SELECT round(gear) AS g, count(*) AS n FROM telemetry WHERE session_id = ? AND gear > 0 "
        f"AND speed_kmh > 5{where} GROUP BY 1 ORDER BY 2 DESC",
        params,
    )
    if not got:
        return None
    lo, hi = round(float(min(x["g"] for x in got))), round(float(max(x["g"] for x in got)))
    most, share = round(float(got[0]["g"])), 100.0 * got[0]["n"] / sum(x["n"] for x in got)
    scope = f"on lap {n}" if n is not None else "this session"
    text = f"Gears used {scope}: {ordinal(lo)} to {ordinal(hi)}, top gear {ordinal(hi)}; "
    text += f"most of the time in {ordinal(most)} ({share:.0f} % of the time moving)."
    res = {"lowest_gear": lo, "highest_gear": hi, "most_used_gear": most, "most_used_pct": round(share)}
    return DataAnswer(text, "telemetry", args, res)
