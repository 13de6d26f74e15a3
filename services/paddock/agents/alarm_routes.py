"""The route for "did I get any warnings or alarms?": the session's flag and alarm events
(``get_flags_and_alarms``) in the driver's words (``alarm_text``)."""

from __future__ import annotations

import re
from typing import Any

from services.paddock.agents.alarm_text import warnings_text
from services.paddock.agents.data_answer import DataAnswer
from services.paddock.tools.alarms import flag_report

ASKS = re.compile(
    r"\b(alarms?|warnings?|warn(?:ed)?|alerts?|engine (?:warning )?light|check engine|dash(?:board)? lights?|"
    r"lights? (?:came|come|went) on)\b"
)
_LAP = re.compile(r"\blap (\d{1,4})\b")
# the car's interventions have their own answer (lap_routes.events_where): "did the ABS warn me?"
_INTERVENTION = re.compile(r"\b(abs|anti.?lock|dsc|tc|traction control|stability control)\b")


def alarms(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Which warning or alarm came on, on which lap and corner and for how long, or that none did, or
    that the file has no alarm channel."""
    if not ASKS.search(q) or _INTERVENTION.search(q):
        return None
    rep = flag_report(s["session_id"])
    lap = _LAP.search(q)
    text = warnings_text(rep, int(lap.group(1)) if lap else None)
    return DataAnswer(text, "get_flags_and_alarms", {"session_id": rep.session_id}, rep.as_dict())
