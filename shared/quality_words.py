"""The data-quality report (``shared.quality``) in a driver's words: one sentence a finding.

``pitwall import`` prints these lines and the paddock sends them with ``GET /sessions/{id}/quality``
(``summary``) for the tablet's card, so the terminal and the tablet say the same thing. Built from the
report's structured fields (gaps, untrusted laps, file end, capabilities): no channel ids, no analysis
parameters.
"""

from __future__ import annotations

from typing import Any

from shared.display import lap_time
from shared.quality import EARLY_END_S

MAX_GAPS = 5  # gaps listed one by one; more are counted in one line


def clock(s: float) -> str:
    """``6:40.0``: a point of the session by its own clock (minutes, seconds and tenths)."""
    tenths = round(max(0.0, float(s)) * 10)
    m, rest = divmod(tenths, 600)
    return f"{m}:{rest / 10:04.1f}"


def _gap(g: dict[str, Any], n_channels: int) -> str:
    names = [str(c) for c in g.get("channels") or []]
    n = int(g.get("n_channels") or len(names))
    shown = ", ".join(names[:3]) + (f" and {n - 3} more" if n > 3 else "")
    which = "in any channel" if n_channels and n >= n_channels else f"in {shown}"
    return (
        f"No data {which} for {float(g['duration_s']):.1f} s, from {clock(g['start_s'])} to "
        f"{clock(g['end_s'])} into the session"
    )


def _laps(untrusted: list[dict[str, Any]]) -> list[str]:
    lines = []
    for u in untrusted:
        if u.get("kind") == "full":
            t = u.get("time_s")
            when = f" ({lap_time(float(t))})" if isinstance(t, int | float) else ""
            lines.append(f"Lap {u['lap']}{when} cannot be trusted: {u.get('reason') or 'not valid'}")
    side = {k: [str(u["lap"]) for u in untrusted if u.get("kind") == k] for k in ("out", "in")}
    parts = [f"{k}-lap{'s' * (len(v) > 1)} {', '.join(v)}" for k, v in side.items() if v]
    if parts:
        lines.append("Not compared with your full laps: " + "; ".join(parts))
    return lines


def quality_lines(report: dict[str, Any] | None) -> list[str]:
    """Every finding of the report as one sentence, worst first; ``[]`` for a whole, clean file."""
    if not report:
        return []
    lines: list[str] = []
    end, declared = float(report.get("duration_s") or 0.0), report.get("declared_duration_s")
    if isinstance(declared, int | float) and declared - end > EARLY_END_S:
        lines.append(f"The file stops at {clock(end)} of a {clock(declared)} session: the rest is missing")
    elif report.get("file_complete") is False:
        lines.append(
            f"The file stops at {clock(end)} without the logger's closing lap table: cut short or damaged"
        )
    gaps = list(report.get("gaps") or [])
    n_channels = len(report.get("channels") or [])
    lines += [_gap(g, n_channels) for g in gaps[:MAX_GAPS]]
    if len(gaps) > MAX_GAPS:
        lines.append(f"{len(gaps) - MAX_GAPS} more gaps in the data")
    lines += _laps(list(report.get("laps_untrusted") or []))
    empty = report.get("empty_channels") or []
    if empty:
        lines.append(f"{len(empty)} of {len(empty) + n_channels} channels the file lists hold no data")
    missing = [k for k, v in (report.get("capabilities") or {}).items() if not v.get("available", True)]
    if missing:
        lines.append("Not in this file, so not analysed: " + "; ".join(missing))
    return lines
