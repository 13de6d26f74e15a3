"""Sessions, laps, traces and cue notes from the lake (read-only)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from fastapi import APIRouter, HTTPException, Query, Response
from fastapi.responses import HTMLResponse

from services.paddock.deps import SettingsDep, Store
from services.paddock.lake import Lake, get_lake
from services.paddock.lake_listing import shown
from services.paddock.lake_s3 import LISTED_AT_MOST
from services.paddock.tools.base import (
    ToolError,
    damaged_error,
    damaged_session_error,
    lake_unreachable_error,
    lap_arrays,
    rows,
    session_arrays,
    session_row,
    valid_laps,
)
from services.paddock.tools.optimal import session_achievable
from shared.achievable_trace import stitched_trace
from shared.bundle import SUFFIX, export_bundle
from shared.hotpath_link import HotpathUnavailable, delete_via_hotpath
from shared.ids import is_id
from shared.quality_words import quality_lines
from shared.report import session_report_html
from shared.store.lake_read import SessionFiles

T = TypeVar("T")
router = APIRouter(tags=["sessions"])
TRACE_CHANNELS = (
    "speed_kmh",
    "throttle_pct",
    "brake_bar",
    "steer_deg",
    "g_lat",
    "g_long",
    "rpm",
    "gear",
    "lat",
    "lon",
)


def _clean(v: Any) -> Any:
    if isinstance(v, float) and v != v:
        return None
    return v


@router.get("/sessions")
async def list_sessions(limit: int = Query(100, ge=1, le=LISTED_AT_MOST)) -> Response:
    """Stored sessions, newest first; a damaged one has ``status: "damaged"`` and ``damage: {file, reason}``
    (the JSON rendered once per catalog version: :mod:`services.paddock.lake_listing`). On the event loop:
    it joins bytes the follower rendered, so a request waits for no worker thread."""
    return Response(get_lake().sessions_page(limit), media_type="application/json")


def _session_files(session_id: str) -> tuple[Lake, SessionFiles]:
    """The session's files through the paddock's lake reader: 404 unknown, 409 damaged (naming the file)."""
    lake = get_lake()
    files = lake.session_files(session_id) if is_id(session_id) else None
    if files is None:
        raise HTTPException(404, detail=f"no session {session_id!r}")
    if (err := damaged_error(session_id)) is not None:
        raise HTTPException(409, detail=err.as_dict()["error"])
    return lake, files


def _read_whole(lake: Lake, files: SessionFiles, read: Callable[[SessionFiles], T]) -> T:
    """``read(files)``; when it fails, the session's files are read whole: a damaged one answers 409
    naming it (and the session is listed as damaged from then on), an unreadable lake 503."""
    try:
        return read(files)
    except Exception as exc:
        sid = files.session_id
        if (problem := lake.check_session(sid)) is not None:
            raise HTTPException(409, detail=damaged_session_error(sid, problem).as_dict()["error"]) from exc
        if isinstance(exc, FileNotFoundError):
            raise HTTPException(404, detail=f"no session {sid!r}") from exc
        if (away := lake_unreachable_error(exc)) is not None:
            raise HTTPException(503, detail=away.as_dict()["error"]) from exc
        why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise HTTPException(503, detail=f"the lake {lake.url} could not be read: {why}") from exc


@router.delete("/sessions/{session_id}")
async def delete_session(session_id: str, settings: SettingsDep, store: Store) -> dict[str, Any]:
    """Delete a session everywhere: the hot path removes it from its store and the lake, then the
    paddock drops its own conversations about it. The tablet asks the driver to confirm first."""
    if not is_id(session_id):  # never sent on: an id is a plain name, never a path or control bytes
        raise HTTPException(404, detail=f"no session {session_id!r}")
    try:
        code, body = await asyncio.to_thread(delete_via_hotpath, settings, session_id)
    except HotpathUnavailable as exc:
        # 409, not 5xx: nothing is wrong with the paddock; the data's owner must be running to delete it
        raise HTTPException(
            409, detail=f"{exc}; the hot path owns the data: start it, then delete again"
        ) from exc
    if code not in (200, 404):
        raise HTTPException(
            code if 400 <= code < 500 else 409, detail=f"the hot path refused: {body.get('detail', body)}"
        )
    turns = await asyncio.to_thread(store.forget_session, session_id)
    if code == 404 and not turns:
        raise HTTPException(404, detail=f"no session {session_id!r}")
    await asyncio.to_thread(get_lake().refresh, True)
    return {**(body if code == 200 else {"session_id": session_id}), "conversation_turns": turns}


@router.get("/sessions/{session_id}/export")
async def export(session_id: str, settings: SettingsDep) -> Response:
    """The session as one ``.pitwall`` file (its lake files and a self-contained HTML report)."""
    lake, files = await asyncio.to_thread(_session_files, session_id)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{session_id}{SUFFIX}"
        await asyncio.to_thread(
            _read_whole, lake, files, lambda f: export_bundle(settings, session_id, out, files=f)
        )
        data = out.read_bytes()
    disposition = f'attachment; filename="{session_id}{SUFFIX}"'
    return Response(data, media_type="application/zip", headers={"Content-Disposition": disposition})


@router.get("/sessions/{session_id}/report", response_class=HTMLResponse)
async def report(session_id: str) -> HTMLResponse:
    """The session's self-contained HTML report (the one inside its export)."""
    lake, files = await asyncio.to_thread(_session_files, session_id)
    return HTMLResponse(await asyncio.to_thread(_read_whole, lake, files, session_report_html))


@router.get("/sessions/{session_id}")
def get_session(session_id: str) -> dict[str, Any]:
    """One session (404 unknown, 409 damaged in the lake: the error names the file)."""
    try:
        row = session_row(session_id)
    except ToolError as exc:
        raise HTTPException(_status(exc), detail=exc.as_dict()["error"]) from exc
    return {**row, **shown(row)}


def _status(exc: ToolError) -> int:
    return {"damaged_session": 409, "lake_unreachable": 503}.get(exc.code, 404)


@router.get("/sessions/{session_id}/quality")
def get_quality(session_id: str) -> dict[str, Any]:
    """The session's data-quality report (channels, gaps, file end, untrusted laps, what cannot be said)."""
    sid = get_session(session_id)["session_id"]
    got = rows("SELECT report_json FROM session_quality WHERE session_id = ?", [sid])
    if not got:
        return {
            "session_id": sid,
            "available": False,
            "reason": "no data-quality report: a live or simulated session",
        }
    report = json.loads(got[0]["report_json"])
    return {"session_id": sid, "available": True, **report, "summary": quality_lines(report)}


@router.get("/sessions/{session_id}/laps")
def get_laps(session_id: str) -> list[dict[str, Any]]:
    """A session's laps with best and invalid laps marked."""
    get_session(session_id)
    return rows("SELECT * FROM laps WHERE session_id = ? ORDER BY lap", [session_id])


@router.get("/sessions/{session_id}/corners")
def get_corners(session_id: str) -> list[dict[str, Any]]:
    """Per-lap, per-corner results."""
    get_session(session_id)
    return rows("SELECT * FROM corner_results WHERE session_id = ? ORDER BY lap, start_m", [session_id])


def _trace_channels(channels: str) -> tuple[str, ...]:
    chans = tuple(c.strip() for c in channels.split(",") if c.strip())
    bad = [c for c in chans if c not in TRACE_CHANNELS]
    if bad:
        raise HTTPException(
            422,
            detail={
                "code": "bad_argument",
                "argument": "channels",
                "message": f"unknown {bad}; one of {TRACE_CHANNELS}",
            },
        )
    return chans


def _values(v: np.ndarray) -> list[Any]:
    return [_clean(x) for x in v.round(6).tolist()]


@router.get("/sessions/{session_id}/laps/{lap}/trace")
def get_trace(
    session_id: str,
    lap: int,
    channels: str = Query(",".join(TRACE_CHANNELS[:3])),
    step_m: float = Query(10.0, gt=0.5, le=200.0),
) -> dict[str, Any]:
    """A lap resampled by distance for charts: dist_m, time_s and the requested channels."""
    chans = _trace_channels(channels)
    get_session(session_id)
    try:
        a = lap_arrays(session_id, lap, chans)
    except ToolError as exc:
        raise HTTPException(_status(exc), detail=exc.as_dict()["error"]) from exc
    d = np.maximum.accumulate(a["dist_m"]) + np.arange(len(a["dist_m"])) * 1e-6
    grid = np.arange(0.0, float(d[-1]), step_m)
    out: dict[str, Any] = {
        "session_id": session_id,
        "lap": lap,
        "step_m": step_m,
        "dist_m": grid.round(1).tolist(),
        "time_s": np.interp(grid, d, a["t_s"] - a["t_s"][0]).round(3).tolist(),
    }
    for c in chans:
        v = a[c]
        ok = np.isfinite(v)
        out[c] = _values(np.interp(grid, d[ok], v[ok])) if ok.sum() > 1 else [None] * len(grid)
    return out


@router.get("/sessions/{session_id}/achievable/trace")
def get_achievable_trace(
    session_id: str,
    channels: str = Query(",".join(TRACE_CHANNELS[:3])),
    step_m: float = Query(10.0, gt=0.5, le=200.0),
) -> dict[str, Any]:
    """The session's achievable lap (its valid laps joined where they matched) as a trace like a lap's,
    timed from the line, with ``from_lap`` (the lap each point is from) and its pieces; 404 without a
    valid full lap."""
    chans = _trace_channels(channels)
    sid = get_session(session_id)["session_id"]
    try:
        _, _, ach = session_achievable(sid)
        if ach is None:
            raise ToolError(
                "no_valid_lap", f"session {sid} has no valid full lap", "out and in laps never count"
            )
        tr = stitched_trace(session_arrays(sid, chans), valid_laps(sid), ach, chans, step_m)
    except ToolError as exc:
        raise HTTPException(_status(exc), detail=exc.as_dict()["error"]) from exc
    return {
        "session_id": sid,
        "lap": "achievable",
        "step_m": step_m,
        "time_s_total": round(ach.time_s, 3),
        "pieces": [
            {"lap": p.lap, "from_m": round(p.from_m, 1), "to_m": round(p.to_m, 1)} for p in ach.pieces
        ],
        "dist_m": tr["dist_m"].round(1).tolist(),
        "time_s": tr["time_s"].round(3).tolist(),
        "from_lap": tr["lap"].astype(int).tolist(),
        **{c: _values(tr[c]) if c in tr else [None] * len(tr["dist_m"]) for c in chans},
    }


@router.get("/sessions/{session_id}/notes")
def get_notes(session_id: str) -> list[dict[str, Any]]:
    """What the hot path said or dropped, and why."""
    get_session(session_id)
    return rows("SELECT * FROM coaching_notes WHERE session_id = ? ORDER BY ts", [session_id])
