from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from services.paddock.deps import Coach, Store
from shared.names import DriverId

router = APIRouter(tags=["conversations"])


class ResetRequest(BaseModel):
    driver_id: DriverId


@router.get("/conversations/{session_id}")
def by_session(session_id: str, store: Store) -> list[dict[str, Any]]:
    """Every brief, debrief and Q&A turn about a session."""
    return store.query("SELECT * FROM conversations WHERE session_id = ? ORDER BY ts, turn", [session_id])


@router.get("/conversations/driver/{driver_id:path}")  # a name may hold "/"
def by_driver(driver_id: str, store: Store) -> list[dict[str, Any]]:
    """Every conversation turn with a driver."""
    return store.query("SELECT * FROM conversations WHERE driver_id = ? ORDER BY ts, turn", [driver_id])


@router.post("/session/reset")
async def reset(req: ResetRequest, coach: Coach) -> dict[str, Any]:
    """Start a fresh ADK session for the driver."""
    return await coach.reset(req.driver_id)
