from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from services.hotpath.deps import State
from shared.http_auth import is_trusted

router = APIRouter(tags=["health"])


@router.get("/health")
async def health(state: State, request: Request) -> dict[str, Any]:
    """Status, version, active session, ingest rate, frames total and rejected by reason, writer lag.
    A client beyond loopback without the token sees liveness only (no session ids)."""
    h = state.health()
    if not is_trusted(request, state.settings):
        return {"status": h["status"], "version": h["version"]}
    lag = getattr(request.app.state, "loop_lag", None)
    return {
        **h,
        "requests_rejected": dict(getattr(request.app.state, "http_rejected", {})),
        "event_loop_lag": lag.as_dict() if lag is not None else None,
    }


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(state: State, request: Request) -> str:
    """Prometheus text format, including the frame-to-decision latency histogram and event-loop lag."""
    lines = [state.metrics_text().rstrip("\n")]
    rejected = getattr(request.app.state, "http_rejected", {})
    lines.append("# TYPE pitwall_requests_rejected_total counter")
    lines += [f'pitwall_requests_rejected_total{{reason="{k}"}} {v}' for k, v in sorted(rejected.items())]
    lag = getattr(request.app.state, "loop_lag", None)
    if lag is not None:
        lines += lag.render("pitwall_hotpath")
    return "\n".join(lines) + "\n"
