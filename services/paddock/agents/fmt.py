"""How the paddock writes figures the grounding check reads: ``T11``, ``98.123 s``, ``1:38.123``,
``lap 4, lap 6``; and a data agent's output read back from state."""

from __future__ import annotations

import json
import math
from typing import Any

from shared.corner_ids import CORNER_ID, corner_id
from shared.display import lap_time


def load(state: dict[str, Any], key: str) -> dict[str, Any]:
    """One data agent's output as a dict (an error object or LLM text becomes an empty dict)."""
    v = state.get(key)
    if isinstance(v, str):
        text = v.strip()
        if text.startswith("```"):  # an LLM data agent (PITWALL_DATA_AGENTS=llm) fences its JSON
            text = text.strip("`").removeprefix("json").strip()
        try:
            v = json.loads(text)
        except ValueError:
            return {}
    if not isinstance(v, dict) or "error" in v:
        return {}
    return v


def corner_label(cid: Any, name: Any = None) -> str:
    """``T11`` or ``T6 Carousel``: the short id the grounding check reads, plus a name when it adds one."""
    c = str(cid or "?")
    short = corner_id(c).upper() if CORNER_ID.match(c) else c
    n = str(name or "").strip()
    if n and n.lower() not in (c.lower(), f"turn {c[1:]}".lower(), f"corner {c[1:]}".lower()):
        return f"{short} {n}"
    return short


def secs(x: Any, nd: int = 3) -> str | None:
    """A time as the digest writes it: ``98.123 s``; None for a missing or non-finite value."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(f):
        return None
    return f"{round(f, nd):g} s"


def laptime(x: Any) -> str | None:
    """A lap time as everywhere else (``1:38.123``, shared.display); None for a missing value."""
    return None if secs(x) is None else lap_time(float(x))


def lap_list(laps: list[int]) -> str:
    """``lap 4, lap 6, lap 7, lap 9 (+3 more)``: at most four laps, in order, each citable by the grounding check."""
    laps = sorted(int(x) for x in laps)
    shown = ", ".join(f"lap {x}" for x in laps[:4])
    return shown + (f" (+{len(laps) - 4} more)" if len(laps) > 4 else "")  # not "and 3": that reads as lap 3
