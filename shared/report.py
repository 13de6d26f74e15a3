"""A self-contained HTML report of one session (no script, no network): what a coach opens from a bundle.
Every value from the files enters the page through ``_t`` (escaped); a Content-Security-Policy forbids
any script, so even a mistake could not run one.

Lap table, where the time is (the session analysis' top corners), the best lap's corner table, a track map and the best lap's traces (speed, throttle, brake
against distance), drawn as inline SVG from the session's lake files. A channel the session did not
record says so instead of drawing a flat line.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from shared.analysis.model import from_records
from shared.analysis.session import SessionAnalysis
from shared.analysis.summary import LABELS, where_the_time_is
from shared.display import lap_time
from shared.store.lake_read import SessionFiles

_CSS = """body{font:15px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem;color:#111}
h1{font-size:1.5rem;margin:0}.sub{color:#555;margin:.2rem 0 1rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}
td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}.best{font-weight:700;background:#eaf7ea}.dim{color:#888}
svg{width:100%;height:auto;background:#fafafa;border:1px solid #ddd;margin-bottom:1rem}
@media(max-width:600px){body{font-size:14px}td,th{padding:.2rem .3rem}}"""


def _t(v: Any) -> str:
    """Any value from the files as text in the page: every field a file or bundle sets goes through here."""
    return html.escape(str(v))


def _rows(tbl: pa.Table | None) -> list[dict[str, Any]]:
    return tbl.to_pylist() if tbl is not None else []


def _num(v: Any, fmt: str = "{:.0f}") -> str:
    return fmt.format(v) if isinstance(v, int | float) and math.isfinite(v) else "–"


def _polyline(x: np.ndarray, y: np.ndarray, w: float, h: float, pad: float = 10.0) -> tuple[str, Any]:
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 2:
        return "", None
    sx = (w - 2 * pad) / max(float(np.ptp(x)), 1e-9)
    sy = (h - 2 * pad) / max(float(np.ptp(y)), 1e-9)
    x0, y1 = float(x.min()), float(y.max())

    def at(a: float, b: float) -> tuple[float, float]:
        return pad + (a - x0) * sx, pad + (y1 - b) * sy

    pts = " ".join(f"{px:.1f},{py:.1f}" for px, py in (at(a, b) for a, b in zip(x, y, strict=True)))
    return pts, at


def _map_svg(tel: dict[str, np.ndarray], corners: list[dict[str, Any]]) -> str:
    lat, lon = tel.get("lat"), tel.get("lon")
    if lat is None or lon is None or not np.isfinite(lat).any():
        return "<p class=dim>No GPS position was recorded: no map.</p>"
    k = math.cos(math.radians(float(np.nanmedian(lat))))
    x, y = lon * k, lat
    span = max(float(np.nanmax(x) - np.nanmin(x)), 1e-9), max(float(np.nanmax(y) - np.nanmin(y)), 1e-9)
    w = 600.0
    h = max(200.0, min(600.0, w * span[1] / span[0]))
    pts, at = _polyline(x, y, w, h)
    if at is None:
        return "<p class=dim>No GPS position was recorded: no map.</p>"
    labels = []
    dist = tel.get("dist_m")
    for c in corners:
        if dist is None or not isinstance(c.get("apex_m"), int | float):
            continue
        i = int(np.clip(np.searchsorted(dist, c["apex_m"]), 0, len(dist) - 1))
        if np.isfinite(x[i]) and np.isfinite(y[i]):
            px, py = at(float(x[i]), float(y[i]))
            anchor = "end" if px > w * 0.75 else "start"  # never cut at the right edge
            name = _t(c["corner_name"])
            labels.append(
                f'<text x="{px:.0f}" y="{py:.0f}" font-size="12" text-anchor="{anchor}">{name}</text>'
            )
    return (
        f'<svg viewBox="0 0 {w:.0f} {h:.0f}" role="img" aria-label="track map">'
        f'<polyline points="{pts}" fill="none" stroke="#1565c0" stroke-width="2"/>{"".join(labels)}</svg>'
    )


def _trace_svg(dist: np.ndarray, v: np.ndarray | None, label: str, unit: str) -> str:
    if v is None or not np.isfinite(v).any():
        return f"<p class=dim>{_t(label)}: not recorded.</p>"
    pts, _ = _polyline(dist, v, 600.0, 120.0)
    lo, hi = float(np.nanmin(v)), float(np.nanmax(v))
    return (
        f"<h3>{_t(label)} ({lo:.0f}–{hi:.0f} {unit})</h3>"
        f'<svg viewBox="0 0 600 120" role="img" aria-label="{_t(label)}">'
        f'<polyline points="{pts}" fill="none" stroke="#c62828" stroke-width="1.5"/></svg>'
    )


def _where_the_time_is(files: SessionFiles) -> list[str]:
    """The session analysis' top corners (the same figures as the tablet and the debrief)."""
    stored = from_records(_rows(files.table("analysis")))
    top = where_the_time_is(SessionAnalysis(rows=stored))
    if not stored:
        return ["<h2>Where the time is</h2><p>This session was published without its corner analysis.</p>"]
    if not top:
        return ["<h2>Where the time is</h2><p>No corner loses time against your good laps.</p>"]
    out = [
        f"<h2>Where the time is</h2><p class=dim>{html.escape(LABELS['per_lap_s'])}.</p>",
        "<table><tr><th>Corner</th><th>Time to find s</th><th>Laps</th><th>Why</th></tr>",
    ]
    for x in top:
        out.append(
            f"<tr><td>{html.escape(x.corner)}</td><td>{x.per_lap_s:.2f}</td>"
            f"<td>{', '.join(str(k) for k in x.laps)}</td>"
            f"<td>{html.escape(x.says)}: {html.escape(x.evidence)} (lap {x.worst_lap})</td></tr>"
        )
    return [*out, "</table>"]


def session_report_html(files: SessionFiles) -> str:
    """The report of the session in ``files`` (its lake files, local or on S3)."""
    session_id = files.session_id
    s = files.row()
    laps = sorted(_rows(files.table("laps")), key=lambda r: r["lap"])
    valid = [r for r in laps if r["kind"] == "full" and r["valid"]]
    best = min(valid, key=lambda r: r["time_s"]) if valid else None
    track = s.get("track_name") or s.get("track_id") or "unknown track"
    when = s.get("started_at") or s.get("created_at")
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
        f"{_t(s.get('car_name') or s.get('car_id'))} · {_t(when or 'date not recorded')} · "
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
    out += _where_the_time_is(files)
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
    out.append(f"<h2>Map, lap {_t(best['lap'])}</h2>" + _map_svg(tel, corners))
    dist = tel.get("dist_m")
    if dist is not None:
        out.append(f"<h2>Traces, lap {_t(best['lap'])}</h2>")
        out.append(_trace_svg(dist, tel.get("speed_kmh"), "Speed", "km/h"))
        out.append(_trace_svg(dist, tel.get("throttle_pct"), "Throttle", "%"))
        out.append(_trace_svg(dist, tel.get("brake_bar"), "Brake pressure", "bar"))
    out.append(f"<p class=dim>Pitwall session {_t(session_id)}.</p></html>")
    return "".join(out)
