"""The session analysis as the paddock reads it: the rows stored beside the session in the lake
(``analysis.parquet``), or, for a session without them (a live session, one published before the
analysis existed), the same ``shared.analysis`` computed from its telemetry."""

from __future__ import annotations

from services.paddock.lake import get_lake
from services.paddock.tools.base import rows, session_arrays, session_row
from shared.analysis.model import from_records
from shared.analysis.session import SessionAnalysis
from shared.analysis.stored import ANALYSIS_CHANNELS, LAP_FIELDS, analyse


def session_analysis(session_id: str) -> SessionAnalysis:
    s = session_row(session_id)
    sid = s["session_id"]
    got = rows("SELECT * FROM corner_analysis WHERE session_id = ? ORDER BY lap, seq", [sid])
    if got:
        stored = from_records(got)
        return SessionAnalysis(rows=stored, laps=sorted({r.lap for r in stored}))
    wide = session_arrays(sid, ANALYSIS_CHANNELS)
    laps = rows(f"SELECT {LAP_FIELDS} FROM laps WHERE session_id = ? ORDER BY lap", [sid])
    return analyse(wide, laps, s.get("track_id"), s.get("car_id"), get_lake().settings.data_dir)
