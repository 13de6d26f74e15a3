"""CoachArbiter: decides what may be said and when.

* Safety (priority 3) is spoken at once.
* Technique cues wait for the corner they concern, on the next lap. They are spoken only when the
  driver is not busy (not braking, |g_lat| < 0.3), starting about 150 m before the corner (more at high
  speed or for long phrases), and only if the phrase can finish before the corner's entry. A cue that
  cannot finish in time is dropped: late is worse than silence.
* At least 3 s between cues; a cue queued for its window expires after 5 s; at most one technique cue
  per corner per lap and a per-lap budget; no "time lost" cue on a personal-best lap; corners closer
  than 2 % of the lap share one cue.
Every decision, spoken or dropped with its reason, is returned so the frame path can store it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.hotpath.phrases import Phrase
from services.hotpath.rules.registry import RuleHit
from shared.profiles.track import Corner, TrackProfile

BUSY_BRAKE_BAR = 5.0
BUSY_G_LAT = 0.3
SAFETY_MARGIN_S = 0.3  # speech must end this long before the corner entry


@dataclass
class FrameState:
    t_s: float
    lap: int
    dist_m: float
    speed_kmh: float
    brake_bar: float
    g_lat: float
    next_corner: Corner | None
    dist_to_next_m: float
    on_pb_pace: bool = False


@dataclass
class Decision:
    status: str  # spoken | dropped
    reason: str | None
    hit: RuleHit
    phrase: Phrase
    t_s: float
    lap: int
    dist_m: float
    # session time by which speech must START to end before the corner entry, less the headset latency;
    # None for safety cues (spoken at once; the frame path gives them a short fixed deadline)
    deadline_t_s: float | None = None


@dataclass
class _Pending:
    hit: RuleHit
    phrase: Phrase
    created_lap: int
    queued_at: float | None = None  # session time its delivery window opened


@dataclass
class ArbiterConfig:
    min_gap_s: float = 3.0
    queue_ttl_s: float = 5.0
    lead_m: float = 150.0
    lap_budget: int = 4
    group_frac: float = 0.02
    headset_latency_s: float = 0.15  # audio path delay to the driver's ears (Bluetooth adds ~0.1-0.2 s)


@dataclass
class CoachArbiter:
    track: TrackProfile | None
    cfg: ArbiterConfig = field(default_factory=ArbiterConfig)
    last_spoken_t: float = -1e9
    pending: dict[str, list[_Pending]] = field(default_factory=dict)
    spoken_groups: set[tuple[int, str]] = field(default_factory=set)
    lap_counts: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.group_of: dict[str, str] = {}
        if self.track is not None:
            prev: Corner | None = None
            for c in sorted(self.track.corners, key=lambda c: c.start_m):
                close = (
                    prev is not None and c.start_m - prev.start_m < self.cfg.group_frac * self.track.length_m
                )
                self.group_of[c.id] = self.group_of[prev.id] if close and prev is not None else c.id
                prev = c

    # ---- inputs -----------------------------------------------------------------
    def safety(self, hit: RuleHit, phrase: Phrase, st: FrameState) -> Decision:
        self.last_spoken_t = st.t_s
        return Decision("spoken", None, hit, phrase, st.t_s, st.lap, st.dist_m)

    def schedule(self, hit: RuleHit, phrase: Phrase, st: FrameState) -> Decision | None:
        """A technique cue about ``hit.corner``: held for that corner on the next lap."""
        if hit.corner is None:
            return Decision("dropped", "no_corner", hit, phrase, st.t_s, st.lap, st.dist_m)
        g = self.group_of.get(hit.corner.id, hit.corner.id)
        lst = self.pending.setdefault(g, [])
        # one cue per corner per lap: keep the most important, drop the rest now, with the reason
        for p in list(lst):
            if p.hit.priority >= hit.priority:
                return Decision("dropped", "superseded", hit, phrase, st.t_s, st.lap, st.dist_m)
            lst.remove(p)
        lst.append(_Pending(hit, phrase, st.lap))
        return None

    # ---- per frame ----------------------------------------------------------------
    def tick(self, st: FrameState) -> list[Decision]:
        out: list[Decision] = []
        if not self.pending or st.next_corner is None:
            return out
        g = self.group_of.get(st.next_corner.id, st.next_corner.id)
        lst = self.pending.get(g)
        if not lst:
            return out
        v = max(st.speed_kmh, 1.0) / 3.6
        for p in list(lst):
            if p.created_lap >= st.lap and p.hit.source_lap == st.lap:
                continue  # observed on this lap: its next chance is next lap's approach
            need_m = v * (p.phrase.speak_s + SAFETY_MARGIN_S + self.cfg.headset_latency_s)
            lead = max(self.cfg.lead_m, need_m + v * 1.0)
            if st.dist_to_next_m > lead:
                continue
            if p.queued_at is None:
                p.queued_at = st.t_s
            reason = self._blocked(p, st, need_m, g)
            if reason in ("late", "expired", "pb_lap", "budget", "corner_done"):
                lst.remove(p)
                out.append(Decision("dropped", reason, p.hit, p.phrase, st.t_s, st.lap, st.dist_m))
                continue
            if reason is None:
                lst.remove(p)
                self.last_spoken_t = st.t_s
                self.spoken_groups.add((st.lap, g))
                self.lap_counts[st.lap] = self.lap_counts.get(st.lap, 0) + 1
                deadline = st.t_s + st.dist_to_next_m / v - p.phrase.speak_s - self.cfg.headset_latency_s
                out.append(Decision("spoken", None, p.hit, p.phrase, st.t_s, st.lap, st.dist_m, deadline))
                # the rest for this corner lose their slot on this lap
                for q in list(lst):
                    lst.remove(q)
                    out.append(Decision("dropped", "corner_done", q.hit, q.phrase, st.t_s, st.lap, st.dist_m))
        return out

    def _blocked(self, p: _Pending, st: FrameState, need_m: float, group: str) -> str | None:
        if st.dist_to_next_m < need_m:
            return "late"
        if p.queued_at is not None and st.t_s - p.queued_at > self.cfg.queue_ttl_s:
            return "expired"
        if p.hit.time_lost and st.on_pb_pace:
            return "pb_lap"
        if (st.lap, group) in self.spoken_groups:
            return "corner_done"
        if self.lap_counts.get(st.lap, 0) >= self.cfg.lap_budget:
            return "budget"
        if st.brake_bar > BUSY_BRAKE_BAR or abs(st.g_lat) >= BUSY_G_LAT:
            return "busy"
        if st.t_s - self.last_spoken_t < self.cfg.min_gap_s:
            return "gap"
        return None
