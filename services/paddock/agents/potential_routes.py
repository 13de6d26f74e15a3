"""What the driver could do: the theoretical best (every piece's best time added up) and the achievable lap
(the driver's own laps joined only where they matched), each beside the best lap. Runs tools (worker
thread)."""

from __future__ import annotations

import re
from typing import Any

from services.paddock.agents.data_answer import DataAnswer
from services.paddock.agents.pace_text import achievable_text
from shared.display import lap_time

_ACHIEVABLE = re.compile(
    r"achievable|optimal lap|optimum lap|best possible|best bits|best parts|best pieces|best sections|"
    r"put (?:it|them|my best \w+|\w+ best \w+) together|stitch|join(?:ed)? (?:up )?my (?:best|laps)|"
    r"what could i (?:really )?do|what (?:could|can) i (?:really )?(?:run|go|lap)"
)


def achievable(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """The achievable lap: the driver's own laps joined where they matched, beside the best lap and the
    theoretical best ("what could I really do?", "optimal lap")."""
    if not _ACHIEVABLE.search(q) or re.search(r"theoretical|ideal|perfect", q):
        return None
    from services.paddock.tools.registry import run_tool

    args = {"session_id": s["session_id"]}
    d = run_tool("get_achievable_lap", args)
    if "error" in d:
        return None
    res = {k: d.get(k) for k in ("achievable_s", "best_lap", "best_lap_s", "theoretical_best_s")}
    res |= {"joins": d.get("joins") or [], "segments": d.get("segments") or []}
    res |= {"gain_vs_best_s": d.get("gain_vs_best_s"), "available": d.get("available")}
    return DataAnswer(achievable_text(d), "get_achievable_lap", args, res)


def theoretical_best(q: str, s: dict[str, Any]) -> DataAnswer | None:
    if not re.search(r"theoretical|ideal lap|perfect lap", q):
        return None
    from services.paddock.tools.sessions import get_session_highlights

    hl = get_session_highlights(s["session_id"])
    theo, best = hl.get("theoretical_best_s"), hl.get("best_lap_s")
    if theo is None or best is None:
        return DataAnswer(
            "There is no theoretical best: it needs valid laps with corner times.",
            "get_session_highlights",
            {"session_id": s["session_id"]},
        )
    text = (
        f"Your theoretical best, your best time in every sector (corner entry to corner entry) added up, is "
        f"{lap_time(theo)}; "
        f"your best lap was {lap_time(best)}, {best - theo:.2f} s slower."
    )
    res = {"theoretical_best_s": theo, "best_lap_s": best, "theoretical_gain_s": round(best - theo, 2)}
    return DataAnswer(text, "get_session_highlights", {"session_id": s["session_id"]}, res)
