"""Coaching threads across sessions: every corner that lost time in the driver's earlier session at the
same track in the same car, or in this one, compared from the two sessions' analyses (``shared.analysis``,
the same figures every screen shows): "new" (loses time now, did not then), "worse" (more a lap, or on
more laps: both figures given), "better", "resolved" (no lap loses time there now), "unchanged" (neither
figure moved by a third).

Nothing is stored: a thread can never disagree with the sessions it is made of.
"""

from __future__ import annotations

from typing import Any

from shared.analysis.summary import CornerSummary

NEW, WORSE, BETTER, RESOLVED, UNCHANGED = "new", "worse", "better", "resolved", "unchanged"
CHANGE_SHARE = 1 / 3  # a cost per lap this much higher (lower) than before is worse (better)


def _side(s: CornerSummary | None) -> dict[str, Any] | None:
    if s is None or not s.laps:
        return None
    return {
        "time_to_find_s": round(s.per_lap_s, 3),
        "laps_lost": len(s.laps),
        "laps": s.laps,
        "valid_laps": s.valid_laps,
        "cost_per_lap_s": round(s.session_s / max(s.valid_laps, 1), 3),
        "cause": s.cause,
    }


def _status(before: dict[str, Any] | None, now: dict[str, Any] | None) -> str:
    """Two figures, each compared with its earlier value: the time to find a lap on the laps that lost it,
    and the cost over every lap. Unchanged only when neither moved by a third; a figure up by a third with
    the other not down by one is worse (a corner 4x worse a lap on as many laps, or as bad on 4x the laps);
    when they part (worse a lap, on fewer laps) the time to find a lap decides."""
    if before is None:
        return NEW
    if now is None:
        return RESOLVED
    ratios = [
        now[k] / before[k] if before[k] > 0 else float("inf") for k in ("time_to_find_s", "cost_per_lap_s")
    ]
    up = [r >= 1 + CHANGE_SHARE for r in ratios]
    down = [r <= 1 - CHANGE_SHARE for r in ratios]
    if any(up) and any(down):
        return WORSE if up[0] else BETTER
    if any(up):
        return WORSE
    if any(down):
        return BETTER
    return UNCHANGED


def session_threads(earlier: list[CornerSummary], now: list[CornerSummary]) -> list[dict[str, Any]]:
    """Each corner that lost time in either session, followed from the earlier into this one; new and
    worse first, then by this session's loss."""
    was = {s.corner_id: s for s in earlier}
    cur = {s.corner_id: s for s in now}
    out = []
    for cid in dict.fromkeys(
        [*(s.corner_id for s in now if s.laps), *(s.corner_id for s in earlier if s.laps)]
    ):
        b, n = _side(was.get(cid)), _side(cur.get(cid))
        if n is None and cid not in cur:  # not timed this session: nothing to say about it
            continue
        ref = cur.get(cid) or was[cid]
        status = _status(b, n)
        out.append(
            {
                "corner": ref.corner,
                "corner_id": cid,
                "status": status,
                "cause": (n or b or {}).get("cause"),
                "before": b,
                "now": n,
                "change_per_lap_s": round(
                    (n or {}).get("cost_per_lap_s", 0.0) - (b or {}).get("cost_per_lap_s", 0.0), 3
                ),
            }
        )
    rank = {NEW: 0, WORSE: 1, UNCHANGED: 2, BETTER: 3, RESOLVED: 4}
    return sorted(out, key=lambda t: (rank[t["status"]], -((t["now"] or {}).get("cost_per_lap_s") or 0.0)))
