"""The driver's gold laps (``<data>/gold``, written by ``pitwall gold`` and the hot path; read-only here):
what the drive screen compares against, and whether the session each came from is still stored."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from services.paddock.deps import SettingsDep
from services.paddock.tools.base import rows
from shared.display import track_title
from shared.store.gold_list import gold_laps

router = APIRouter(tags=["gold"])


def _gold(settings: Any) -> list[dict[str, Any]]:
    laps = gold_laps(settings)
    sids = sorted({str(g["session_id"]) for g in laps if g.get("session_id")})
    stored = set()
    if sids:
        marks = ", ".join("?" for _ in sids)
        stored = {
            r["session_id"]
            for r in rows(f"SELECT session_id FROM sessions WHERE session_id IN ({marks})", sids)
        }
    out = []
    for g in laps:
        entry = {
            k: g.get(k) for k in ("track_id", "driver_id", "session_id", "lap", "time_s", "source", "car_id")
        }
        entry["track_name"] = track_title(g.get("track_id"))
        entry["session_stored"] = g.get("session_id") in stored
        if g.get("damaged"):
            entry["damaged"] = g["damaged"]
        out.append(entry)
    return out


@router.get("/gold")
async def list_gold(settings: SettingsDep) -> list[dict[str, Any]]:
    """Every gold lap: track, driver, lap and time, and whether its session is still stored (the drive screen
    no longer compares with a lap whose session was deleted)."""
    return await asyncio.to_thread(_gold, settings)
