from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from services.hotpath.deps import State
from services.hotpath.state import HotpathState
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
        "cue_send_ms": state.hub.send_ms.summary(),  # publish -> written to each cue stream
    }


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(state: State, request: Request) -> str:
    """Prometheus text format, including the frame-to-decision latency histogram and event-loop lag."""
    lines = _state_metrics(state)
    rejected = getattr(request.app.state, "http_rejected", {})
    lines.append("# TYPE pitwall_requests_rejected_total counter")
    lines += [f'pitwall_requests_rejected_total{{reason="{k}"}} {v}' for k, v in sorted(rejected.items())]
    lag = getattr(request.app.state, "loop_lag", None)
    if lag is not None:
        lines += lag.render("pitwall_hotpath")
    return "\n".join(lines) + "\n"


def _state_metrics(state: HotpathState) -> list[str]:
    """The hot path's own counters, histograms and gauges (Prometheus text lines)."""
    c = state.counters
    lines = state.latency.render("pitwall_decision_latency_ms", "Frame arrival to arbiter decision, ms")
    lines += state.hub.send_ms.render("pitwall_cue_send_ms", "Cue published to written on its SSE stream, ms")
    lines += [
        "# HELP pitwall_frames_total Frames received",
        "# TYPE pitwall_frames_total counter",
        f"pitwall_frames_total {c.frames_total}",
        "# HELP pitwall_frames_rejected_total Frames or values rejected, by reason",
        "# TYPE pitwall_frames_rejected_total counter",
    ]
    for r, n in c.as_dict()["rejected"].items():
        lines.append(f'pitwall_frames_rejected_total{{reason="{r}"}} {n}')
    lines += [
        "# TYPE pitwall_writer_lag_seconds gauge",
        f"pitwall_writer_lag_seconds {state.writer.lag_s:.4f}",
        "# TYPE pitwall_writer_rows_total counter",
        f"pitwall_writer_rows_total {state.writer.rows_written}",
        "# TYPE pitwall_ingest_fps gauge",
        f"pitwall_ingest_fps {state.rate.rate:.2f}",
    ]
    spoken = sum(s.cues_spoken for s in state.sessions.values())
    dropped = sum(s.cues_dropped for s in state.sessions.values())
    lines += [
        "# TYPE pitwall_cues_total counter",
        f'pitwall_cues_total{{status="spoken"}} {spoken}',
        f'pitwall_cues_total{{status="dropped"}} {dropped}',
    ]
    return lines
