from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from services.hotpath.deps import State

router = APIRouter(tags=["health"])


@router.get("/health")
def health(state: State) -> dict[str, Any]:
    """Status, version, active session, ingest rate, frames total and rejected by reason, writer lag."""
    return state.health()


@router.get("/metrics", response_class=PlainTextResponse)
def metrics(state: State) -> str:
    """Prometheus text format, including the frame-to-decision latency histogram."""
    return state.metrics_text()
