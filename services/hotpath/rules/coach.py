"""RuleCoach: runs the technique rules per corner against a reference lap, and the safety rules per frame.

The reference is the gold lap saved for this track and car when there is one (``set_gold``), otherwise
the session's best clean lap so far; ``ref_source`` says which ("gold", "session_best" or "none").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from services.hotpath.corner_live import CornerObservation, CornerWatcher, SlipEvent
from services.hotpath.rules.loaded import load_rules
from services.hotpath.rules.registry import RuleHit, RuleSpec
from services.hotpath.rules.safety import SafetyContext
from services.hotpath.rules.technique import CornerContext
from shared import event_conditions as ev
from shared.events import LiveEvents
from shared.laps import Lap
from shared.profiles.track import TrackProfile

# the event kinds a safety rule can fire on (lockups and wheelspin are technique, per corner)
SAFETY_KINDS = frozenset((ev.OIL_PRESSURE, ev.COOLANT, ev.TPMS_ALARM, ev.TPMS_DROP, ev.ABS, ev.DSC, ev.MIL))
AT_PACE = 0.93  # approach speed below this share of the reference's: cool-down, traffic, no technique cues
CARRIED_PACE = 0.9  # nor with the approach begun this much slower (a slower exit before is not a cool-down)


@dataclass
class RuleCoach:
    """Deterministic rules per corner (technique) and per frame (safety)."""

    track: TrackProfile | None
    th: dict[str, float]
    technique: dict[str, RuleSpec] = field(default_factory=dict)
    safety_rules: dict[str, RuleSpec] = field(default_factory=dict)
    history: dict[str, list[CornerObservation]] = field(default_factory=dict)
    ref_lap: int | None = None
    ref_obs: dict[str, CornerObservation] = field(default_factory=dict)
    ref_source: str = "none"  # gold | session_best | none
    ref_detail: dict[str, object] = field(default_factory=dict)
    slips: list[SlipEvent] = field(default_factory=list)
    safety_ctx: SafetyContext | None = None
    last_fired: dict[str, float] = field(default_factory=dict)
    lap_obs: dict[int, list[CornerObservation]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.technique, self.safety_rules = load_rules()
        self.safety_ctx = SafetyContext(self.th)

    def set_gold(self, obs: dict[str, CornerObservation], detail: Mapping[str, object] | None = None) -> None:
        """A saved gold lap's corners become the reference for the whole session."""
        if not obs:
            return
        self.ref_obs, self.ref_source, self.ref_lap = obs, "gold", None
        self.ref_detail = dict(detail or {})

    def on_corner(self, obs: CornerObservation) -> list[RuleHit]:
        cid = obs.corner.id
        self.slips = [s for s in self.slips if s.lap > obs.lap - 3] + obs.slips
        self.lap_obs.setdefault(obs.lap, []).append(obs)
        hits: list[RuleHit] = []
        ref = self.ref_obs.get(cid)
        own_lap = self.ref_source != "gold" and ref is not None and ref.lap == obs.lap
        if ref is not None and not own_lap and _at_pace(obs, ref):
            ctx = CornerContext(ref, self.history.get(cid, []), self.th, self.slips)
            for spec in self.technique.values():
                h = spec.fn(obs, ctx)
                if h is not None:
                    hits.append(h)
            if any(h.rule != "brake_inconsistent" for h in hits):
                obs.clean = False
        self.history.setdefault(cid, []).append(obs)
        return hits

    def on_lap(self, lap: Lap, best_time: float | None) -> None:
        """A lap closed: the best clean lap so far becomes the reference (unless a gold lap is set)."""
        obs = self.lap_obs.pop(lap.lap, [])
        if self.ref_source == "gold" or lap.kind != "full" or not lap.valid:
            return
        need = max(1, len(self.track.corners) - 1) if self.track else 1
        clean = all(o.clean for o in obs) and len(obs) >= need
        if clean and (best_time is None or lap.time_s <= best_time + 1e-9 or self.ref_lap is None):
            self.ref_lap = lap.lap
            self.ref_obs = {o.corner.id: o for o in obs}
            self.ref_source = "session_best"
            self.ref_detail = {"time_s": lap.time_s}

    def share_events(self, events: LiveEvents) -> None:
        """The live event detector runs first on every frame: the safety rules use its TPMS baseline and
        are skipped on frames where none of their conditions holds (``on_frame(..., conditions)``)."""
        assert self.safety_ctx is not None
        self.safety_ctx.tpms_baseline = events.tpms_baseline

    def on_frame(
        self,
        row: dict[str, float],
        now: float,
        conditions: Mapping[tuple[str, str | None], object] | None = None,
    ) -> list[RuleHit]:
        """The safety rules on one frame. ``conditions``: the event detector's verdicts on this frame
        (``LiveEvents.conditions``, after ``share_events``); with none of the safety kinds among them and
        no flag left on, no rule can fire and none is run."""
        assert self.safety_ctx is not None
        if conditions is not None and not any(k[0] in SAFETY_KINDS for k in conditions):
            flags = self.safety_ctx.last_flags
            if not any(ev.is_flag_on(v) for v in flags.values()):
                return []
        out = []
        for spec in self.safety_rules.values():
            h = spec.fn(row, self.safety_ctx)
            if h is None:
                continue
            cd = self.th["safety_cooldown_s"] if spec.cooldown_s <= 0 else spec.cooldown_s
            key = f"{h.rule}:{h.wheel or ''}"
            if now - self.last_fired.get(key, -1e9) < cd:
                continue
            self.last_fired[key] = now
            out.append(h)
        return out


def _at_pace(obs: CornerObservation, ref: CornerObservation) -> bool:
    """False on a cool-down lap, behind a safety car or in traffic: no technique cues then. Either the
    speed the corner's approach began at or its top speed will do: a coast or an early lift lowers
    the top speed (the very mistake to cue), never the speed the approach began at."""
    pairs = [(obs.carried_kmh, ref.carried_kmh, CARRIED_PACE), (obs.approach_kmh, ref.approach_kmh, AT_PACE)]
    known = [(a, r, k) for a, r, k in pairs if a is not None and r is not None]
    return not known or any(a >= k * r for a, r, k in known)


def reference_from_trace(
    trace: Mapping[str, np.ndarray], track: TrackProfile, th: dict[str, float]
) -> dict[str, CornerObservation]:
    """Corner observations of a lap given as a distance trace (a saved gold lap: ``dist_m``, ``time_s``
    and channels), built by the same corner watcher as live laps."""
    d = np.asarray(trace.get("dist_m", ()), dtype=np.float64)
    t = trace.get("time_s")
    if len(d) < 5 or t is None:
        return {}
    watcher = CornerWatcher(track, th)
    keys = [k for k in trace if k not in ("dist_m", "time_s")]
    out: dict[str, CornerObservation] = {}
    for i in range(len(d)):
        row = {k: float(trace[k][i]) for k in keys}
        row["t_s"], row["dist_m"] = float(t[i]), float(d[i])
        obs = watcher.feed(0, row)
        if obs is not None:
            out[obs.corner.id] = obs
    for obs in watcher.drain():  # a long trace's last exits: their summaries spread over later frames
        out[obs.corner.id] = obs
    return out
