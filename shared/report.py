"""A self-contained HTML report of one session (no script, no network): what a coach opens from a bundle.
Every value from the files enters the page through ``_t`` (escaped); a Content-Security-Policy forbids
any script, so even a mistake could not run one.

Lap table, the coaching (the session analysis' opportunities: where the time is, why, one target each, and
a plan for the next session's laps), the best lap's corner table, a track map and the best lap's traces
(speed, throttle, brake against distance in metres), drawn as inline SVG (``shared.report_svg``) from the
session's lake files. A channel the session did not record says so instead of drawing a flat line. The
date is the file's, or said as guessed (``shared.session_date``); the car is named, never "generic".
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from shared.analysis.advice import target
from shared.analysis.model import from_records
from shared.analysis.plan import plan_blocks
from shared.analysis.session import SessionAnalysis
from shared.analysis.summary import LABELS, where_the_time_is
from shared.display import car_shown, lap_time
from shared.profiles.track import TrackProfile, load_track
from shared.report_svg import clean, map_svg, trace_svg
from shared.session_date import date_text
from shared.store.lake_read import SessionFiles

PLAN_LAPS = 10

_CSS = """body{font:15px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem;color:#111}
h1{font-size:1.5rem;margin:0}.sub{color:#555;margin:.2rem 0 1rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}
td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child,td.txt,th.txt{text-align:left}.best{font-weight:700;background:#eaf7ea}.dim{color:#888}
svg{width:100%;height:auto;background:#fafafa;border:1px solid #ddd;margin-bottom:1rem}
@media(max-width:600px){body{font-size:14px}td,th{padding:.2rem .3rem}}"""


def _t(v: Any) -> str:
    """Any value from the files as text in the page: every field a file or bundle sets goes through here."""
    return html.escape(str(v))


def _rows(tbl: pa.Table | None) -> list[dict[str, Any]]:
    return tbl.to_pylist() if tbl is not None else []


def _num(v: Any, fmt: str = "{:.0f}") -> str:
    return fmt.format(v) if isinstance(v, int | float) and math.isfinite(v) else "–"


def _map(tel: dict[str, np.ndarray], corners: list[dict[str, Any]]) -> str:
    lat, lon = tel.get("lat"), tel.get("lon")
    if lat is None or lon is None or np.isfinite(lat).sum() < 2:
        return "<p class=dim>No GPS position was recorded: no map.</p>"
    named = [
        (float(c["apex_m"]), _t(c["corner_name"]))
        for c in corners
        if isinstance(c.get("apex_m"), int | float)
    ]
    return map_svg(lat, lon, tel.get("dist_m"), named)


def _trace(dist: np.ndarray, v: np.ndarray | None, label: str, unit: str) -> str:
    if v is None or not (np.isfinite(v) & np.isfinite(dist)).any():
        return f"<p class=dim>{_t(label)}: not recorded.</p>"
    lo, hi = float(np.nanmin(v)), float(np.nanmax(v))
    return f"<h3>{_t(label)} ({unit}): {clean(lo)}–{clean(hi)}</h3>" + trace_svg(dist, v, _t(label), unit)


def _coaching(files: SessionFiles, track_id: str | None) -> list[str]:
    """The session analysis' opportunities (the same figures as the tablet and the debrief): each corner's
    time to find, the laps, why, and one target; then the next session's laps planned from them."""
    stored = from_records(_rows(files.table("analysis")))
    an = SessionAnalysis(rows=stored)
    top = where_the_time_is(an)
    head = "<h2>Where the time is</h2>"
    if not stored:
        return [head, "<p>This session was published without its corner analysis.</p>"]
    if not top:
        return [head, "<p>No corner loses time against your good laps.</p>", _plan([])]
    track = _track(track_id)
    out = [
        head,
        f"<p class=dim>{html.escape(LABELS['per_lap_s'])}.</p>",
        "<table><tr><th>Corner</th><th>Time to find s</th><th>Laps</th><th class=txt>Why</th><th class=txt>What to do</th></tr>",
    ]
    focus = []
    for x in top:
        c = track.find_corner(x.corner_id) if track is not None else None
        todo = target(x, c, an.corner_rows(x.corner_id)) if c is not None else ""
        if todo:
            focus.append(f"{x.corner}: {todo}")
        out.append(
            f"<tr><td>{html.escape(x.corner)}</td><td>{x.per_lap_s:.2f}</td>"
            f"<td>{', '.join(str(k) for k in x.laps)}</td>"
            f"<td class=txt>{html.escape(x.says)}: {html.escape(x.evidence)} (lap {x.worst_lap})</td>"
            f"<td class=txt>{html.escape(todo) or '–'}</td></tr>"
        )
    return [*out, "</table>", _plan(focus)]


def _plan(focus: list[str]) -> str:
    rows = "".join(
        f"<tr><td>{b['laps']}</td><td class=txt>{html.escape(b['focus'])}</td></tr>"
        for b in plan_blocks(focus, PLAN_LAPS)
    )
    return f"<h2>Plan for the next session ({PLAN_LAPS} laps)</h2><table><tr><th>Laps</th><th class=txt>Work on</th></tr>{rows}</table>"


def _track(track_id: str | None) -> TrackProfile | None:
    try:
        return load_track(track_id) if track_id else None
    except (KeyError, ValueError, OSError):  # a track only the driver's machine stored: no targets
        return None


def session_report_html(files: SessionFiles) -> str:
    """The report of the session in ``files`` (its lake files, local or on S3)."""
    session_id = files.session_id
    s = files.row()
    laps = sorted(_rows(files.table("laps")), key=lambda r: r["lap"])
    valid = [r for r in laps if r["kind"] == "full" and r["valid"]]
    best = min(valid, key=lambda r: r["time_s"]) if valid else None
    track = s.get("track_name") or s.get("track_id") or "unknown track"
    meta = json.loads(s.get("meta_json") or "{}")
    src = Path(str(s.get("source_path") or "")).name or meta.get("imported_bundle", {}).get(
        "original_source_file"
    )
    driver = s.get("driver_name") or s.get("driver_id")
    title = f"{track}: {driver}"
    out = [
        f"<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
        f"<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{_t(title)}</title><style>{_CSS}</style>",
        f"<h1>{_t(track)}</h1><p class=sub>{_t(driver)} · "
        f"{_t(car_shown(s.get('car_id'), s.get('car_name')) or 'car not named in the file')} · {_t(date_text(s))} · "
        f"{_t(src or s.get('source_format'))} · best lap "
        f"{lap_time(best['time_s']) if best else 'none (no valid full lap)'}</p>",
        "<h2>Laps</h2><table><tr><th>Lap</th><th>Time</th><th>Δ best</th><th>Kind</th><th>Valid</th></tr>",
    ]
    for r in laps:
        d = f"{r['time_s'] - best['time_s']:+.3f}" if best and r["kind"] == "full" and r["valid"] else ""
        cls = " class=best" if best and r["lap"] == best["lap"] else ""
        why = "" if r["valid"] else _t(r.get("invalid_reason") or "no")
        out.append(
            f"<tr{cls}><td>{_t(r['lap'])}</td><td>{_t(lap_time(r['time_s']))}</td><td>{d}</td>"
            f"<td>{_t(r['kind'])}</td><td>{'yes' if r['valid'] else why}</td></tr>"
        )
    out.append("</table>")
    if best is None:
        out.append("<p>No valid full lap: no corner table, map or traces.</p></html>")
        return "".join(out)
    out += _coaching(files, s.get("track_id"))
    corners = sorted(
        (c for c in _rows(files.table("corners")) if c["lap"] == best["lap"]),
        key=lambda c: c["seq"],
    )
    out.append(f"<h2>Corners, lap {_t(best['lap'])}</h2><table><tr><th>Corner</th><th>Entry km/h</th>")
    out.append("<th>Min km/h</th><th>Exit km/h</th><th>Brake at m</th><th>Time s</th></tr>")
    for c in corners:
        out.append(
            f"<tr><td>{_t(c['corner_name'])}</td><td>{_num(c['entry_kmh'])}</td>"
            f"<td>{_num(c['min_kmh'])}</td><td>{_num(c['exit_kmh'])}</td>"
            f"<td>{_num(c['brake_point_m'])}</td><td>{_num(c['time_s'], '{:.2f}')}</td></tr>"
        )
    out.append("</table>")
    tbl = files.lap(int(best["lap"]))
    tel = (
        {
            c: tbl.column(c).to_numpy(zero_copy_only=False).astype(float)
            for c in tbl.column_names
            if c != "session_id"
        }
        if tbl is not None
        else {}
    )
    out.append(f"<h2>Map, lap {_t(best['lap'])}</h2>" + _map(tel, corners))
    dist = tel.get("dist_m")
    if dist is not None:
        out.append(f"<h2>Traces, lap {_t(best['lap'])}</h2>")
        out.append(_trace(dist, tel.get("speed_kmh"), "Speed", "km/h"))
        out.append(_trace(dist, tel.get("throttle_pct"), "Throttle", "%"))
        out.append(_trace(dist, tel.get("brake_bar"), "Brake pressure", "bar"))
    out.append(f"<p class=dim>Pitwall session {_t(session_id)}.</p></html>")
    return "".join(out)
