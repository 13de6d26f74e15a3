"""Warnings and alarms in the driver's words, from a typed ``FlagReport`` (``get_flags_and_alarms``):
which alarm, on which lap and at which corner, for how long; or that none was set; or that the file
recorded no alarm channel at all. Used by the answer to "did I get any warnings?", the debrief digest
and the template debrief.
"""

from __future__ import annotations

from services.paddock.agents.fmt import corner_label
from services.paddock.tools.alarms import FLAG_WORDS, WARNING_KINDS, FlagEvent, FlagReport
from shared import event_conditions as ev

_SHOWN = 5  # events listed one by one; the rest counted
# the flags' short names on a labelled debrief line ("Safety: ABS 2 times; no engine light")
SHORT_FLAG_WORDS = {ev.ABS: "ABS", ev.DSC: "DSC", ev.MIL: "engine light", ev.TPMS_ALARM: "TPMS alarm"}


def _laps(e: FlagEvent) -> str:
    return f"lap {e.lap}" if e.end_lap == e.lap else f"laps {e.lap}–{e.end_lap}"


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"  # 90 s of alarm; 1.5 s of ABS


def event_words(e: FlagEvent) -> str:
    """``the water temp alarm was on for 90 s on laps 8–9, from T3``."""
    where = f", from {corner_label(e.corner)}" if e.corner else ""
    return f"the {e.what} was on for {_duration(e.duration_s)} on {_laps(e)}{where}"


def warning_sources(rep: FlagReport) -> list[str]:
    """The warnings the file recorded, in driver words (not ABS or DSC)."""
    return [w for w in rep.sources if w not in (FLAG_WORDS[ev.ABS], FLAG_WORDS[ev.DSC])]


def warnings_text(rep: FlagReport, lap: int | None = None) -> str:
    """The answer to "did I get any warnings or alarms?" (on ``lap`` when one is asked)."""
    sources = warning_sources(rep)
    if not sources:
        return (
            "No alarm or warning channel was recorded in this session's file, so whether a warning came on "
            "cannot be told from the data."
        )
    evs = [e for e in rep.events if e.kind in WARNING_KINDS and (lap is None or e.lap <= lap <= e.end_lap)]
    scope = f" on lap {lap}" if lap is not None else ""
    if not evs:
        return f"No: none was set{scope}. Recorded: {', '.join(sources)}."
    listed = "; ".join(event_words(e) for e in evs[:_SHOWN])
    more = f" (+{len(evs) - _SHOWN} more)" if len(evs) > _SHOWN else ""
    n = len(evs)
    return f"Yes, {n} warning{'s' if n > 1 else ''}{scope}: {listed}{more}."


def warning_line(rep: FlagReport) -> str | None:
    """The debrief's line: the warnings set, else None (the safety line says what was recorded)."""
    evs = [e for e in rep.events if e.kind in WARNING_KINDS]
    if not evs:
        return None
    listed = "; ".join(event_words(e) for e in evs[:_SHOWN])
    return f"Warnings: {listed}{f' (+{len(evs) - _SHOWN} more)' if len(evs) > _SHOWN else ''}."


def flag_counts(counts: dict[str, int | None], skip: tuple[str, ...] = ()) -> list[str]:
    """The flags set in the session and how often, in driver words (``["ABS x2", "TPMS alarm x1"]``, as the
    grounding check reads a count); the kinds in ``skip`` (told by a warnings line already) left out."""
    return [f"{SHORT_FLAG_WORDS.get(k, k)} x{v}" for k, v in counts.items() if v and k not in skip]
