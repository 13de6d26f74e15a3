"""CoachArbiter: decides what may be said and when.

* Safety (priority 3) is spoken at once.
* A technique cue is about a corner and waits for that corner's next pass. It is spoken in the corner's
  *cue window*: the last quiet stretch (not braking, |g_lat| < 0.6, as driven on the last lap) before the
  corner's entry that is long enough to say the phrase (150 ms a word, plus a margin). For a corner that
  follows another one closely the window lies before the first of them. Without a full lap of
  observations the window is the fixed lead (150 m, more at speed) before the entry.
* The phrase must finish inside its window; a cue that cannot is dropped (late is worse than silence),
  with the reason that held it up (``busy``, ``gap``) or ``late``. A corner whose approach has no quiet
  stretch long enough drops its cues as ``no_window``; the reason is kept once in ``no_window``.
* At least 3 s between cues; a cue waiting in its window expires after 5 s; one technique cue per corner
  per lap and at most four per lap; no "time lost" cue on a personal-best lap; corners closer than 2 % of
  the lap share one cue.

Every rule hit ends in exactly one decision: spoken, dropped with its reason, or dropped as
``superseded`` naming the hit that took its place (``superseded_by``). ``close`` drops what is still
waiting when the session ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from services.hotpath.phrases import Phrase
from services.hotpath.quiet_profile import QuietProfile
from services.hotpath.rules.registry import RuleHit
from shared.profiles.track import Corner, TrackProfile

BUSY_BRAKE_BAR = 5.0
BUSY_G_LAT = 0.6  # cornering at more than this is busy; measured on the driven Sonoma line, 0.3 g left
# 1-9 of 13 corners per real VBOX lap with no quiet stretch before them (straights there curve), 0.6 g 0-2
SAFETY_MARGIN_S = 0.3  # speech must end this long before the window closes
TERMINAL = ("late", "expired", "pb_lap", "budget", "corner_done")


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
    superseded_by: str | None = None  # the hit that took this one's place (reason "superseded")
    deadline_t_s: float | None = None  # session time by which speech must start (None: safety, at once)


@dataclass
class _Pending:
    hit: RuleHit
    phrase: Phrase
    entry_m: float
    window: tuple[float, float] | None  # (start, end) as distances before the entry; None = fixed lead
    armed: bool = False  # the car is before the window on the approach it will be spoken on
    queued_at: float | None = None  # session time its window opened
    blocked: str | None = None  # what held it up inside its window


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
    pending: dict[str, _Pending] = field(default_factory=dict)  # corner group -> the one cue waiting
    spoken_groups: set[tuple[int, str]] = field(default_factory=set)
    lap_counts: dict[int, int] = field(default_factory=dict)
    no_window: dict[str, str] = field(default_factory=dict)  # corner group -> why it has no cue window

    def __post_init__(self) -> None:
        self.group_of: dict[str, str] = {}
        self.entry_of: dict[str, float] = {}
        self.profile = QuietProfile(self.track.length_m) if self.track is not None else None
        self.length_m = self.track.length_m if self.track is not None else 0.0
        if self.track is not None:
            prev: Corner | None = None
            for c in sorted(self.track.corners, key=lambda c: c.start_m):
                close = (
                    prev is not None and c.start_m - prev.start_m < self.cfg.group_frac * self.track.length_m
                )
                self.group_of[c.id] = self.group_of[prev.id] if close and prev is not None else c.id
                self.entry_of.setdefault(self.group_of[c.id], c.start_m)
                prev = c

    # ---- inputs -----------------------------------------------------------------
    def safety(self, hit: RuleHit, phrase: Phrase, st: FrameState) -> Decision:
        self.last_spoken_t = st.t_s
        return Decision("spoken", None, hit, phrase, st.t_s, st.lap, st.dist_m)

    def schedule(self, hit: RuleHit, phrase: Phrase, st: FrameState) -> list[Decision]:
        """A technique cue about ``hit.corner``, held for that corner's next pass. Returns the decisions
        taken now: this hit or the one it replaces, dropped with the reason."""
        if hit.corner is None or self.track is None:
            return [self._decide("dropped", "no_corner", hit, phrase, st)]
        g = self.group_of.get(hit.corner.id, hit.corner.id)
        entry = self.entry_of.get(g, hit.corner.start_m)
        window = self.profile.window(entry, self._need_s(phrase)) if self.profile else None
        if isinstance(window, str):
            self.no_window.setdefault(g, window)
            return [self._decide("dropped", "no_window", hit, phrase, st)]
        out: list[Decision] = []
        # one cue per corner per pass: keep the most important, drop the other naming the one kept
        waiting = self.pending.get(g)
        if waiting is not None:
            if waiting.hit.priority >= hit.priority:
                return [self._decide("dropped", "superseded", hit, phrase, st, superseded_by=waiting.hit.key)]
            out.append(
                self._decide("dropped", "superseded", waiting.hit, waiting.phrase, st, superseded_by=hit.key)
            )
        p = _Pending(hit, phrase, entry, window)
        ahead = self._ahead(p, st)
        w_start, w_end = self._window_of(p, st)
        v = max(st.speed_kmh, 1.0) / 3.6
        # before its window, or inside it with room to say it: this approach; else the next one
        p.armed = ahead > w_start or ahead - w_end >= v * self._need_s(phrase)
        self.pending[g] = p
        return out

    def close(self, st: FrameState) -> list[Decision]:
        """The session ended: whatever still waits is dropped, so every hit has its decision."""
        out = [self._decide("dropped", "session_end", p.hit, p.phrase, st) for p in self.pending.values()]
        self.pending.clear()
        return out

    # ---- per frame ----------------------------------------------------------------
    def tick(self, st: FrameState) -> list[Decision]:
        v = max(st.speed_kmh, 1.0) / 3.6
        busy = st.brake_bar > BUSY_BRAKE_BAR or abs(st.g_lat) >= BUSY_G_LAT
        if self.profile is not None:
            self.profile.observe(st.dist_m, busy, v)
        out: list[Decision] = []
        for g, p in list(self.pending.items()):
            ahead = self._ahead(p, st)
            w_start, w_end = self._window_of(p, st)
            if not p.armed:
                p.armed = ahead > w_start  # the entry was passed: the next approach counts
                continue
            if ahead > w_start:
                continue  # the window is still ahead
            need_m = v * self._need_s(p.phrase)
            room_m = ahead - w_end
            if p.queued_at is None:
                p.queued_at = st.t_s
            reason = self._blocked(p, st, need_m, room_m, busy, self._pass_lap(p, st), g)
            if reason in TERMINAL:
                del self.pending[g]
                why = p.blocked if reason == "late" and p.blocked else reason
                out.append(self._decide("dropped", why, p.hit, p.phrase, st))
            elif reason is not None:
                p.blocked = reason
            else:
                del self.pending[g]
                self.last_spoken_t = st.t_s
                self.spoken_groups.add((self._pass_lap(p, st), g))
                self.lap_counts[st.lap] = self.lap_counts.get(st.lap, 0) + 1
                deadline = st.t_s + (room_m - need_m) / v
                out.append(self._decide("spoken", None, p.hit, p.phrase, st, deadline_t_s=deadline))
        return out

    def idle_frames(self, dist_m: np.ndarray, speed_kmh: np.ndarray) -> int:
        """How many of the next frames (``dist_m``, ``speed_kmh`` in order; finite speeds) ``tick`` would
        pass over changing nothing but the quiet profile: each cue waiting either armed with its window
        still ahead, or not armed and not arming. The frame path ticks only from the first other one."""
        n = len(dist_m)
        if not n or not self.pending:
            return n
        v = np.maximum(speed_kmh, 1.0) / 3.6
        ok = np.ones(n, dtype=bool)
        for p in self.pending.values():
            d = p.entry_m - dist_m
            ahead = np.where(d >= 0, d, d + self.length_m)
            if p.window is not None:
                w_start: float | np.ndarray = p.window[0]
            else:  # _window_of with the speed of each frame
                need_m = v * self._need_s(p.phrase)
                w_start = np.maximum(self.cfg.lead_m, need_m + v * 1.0)
            past = ahead > w_start
            ok &= past if p.armed else ~past
        bad = np.flatnonzero(~ok)
        return int(bad[0]) if len(bad) else n

    # ---- helpers ------------------------------------------------------------------
    def _ahead(self, p: _Pending, st: FrameState) -> float:
        """Distance to the next pass of the corner group's entry."""
        d = p.entry_m - st.dist_m
        return d if d >= 0 else d + self.length_m

    def _need_s(self, phrase: Phrase) -> float:
        """Seconds a cue needs before the entry: the phrase, the headset's delay and the safety margin."""
        return phrase.speak_s + self.cfg.headset_latency_s + SAFETY_MARGIN_S

    def _pass_lap(self, p: _Pending, st: FrameState) -> int:
        return st.lap if st.dist_m <= p.entry_m else st.lap + 1

    def _window_of(self, p: _Pending, st: FrameState) -> tuple[float, float]:
        if p.window is not None:
            return p.window
        v = max(st.speed_kmh, 1.0) / 3.6
        need_m = v * self._need_s(p.phrase)
        return (max(self.cfg.lead_m, need_m + v * 1.0), 0.0)

    def _blocked(
        self, p: _Pending, st: FrameState, need_m: float, room_m: float, busy: bool, pass_lap: int, group: str
    ) -> str | None:
        if room_m < need_m:
            return "late"
        if p.queued_at is not None and st.t_s - p.queued_at > self.cfg.queue_ttl_s:
            return "expired"
        if p.hit.time_lost and st.on_pb_pace:
            return "pb_lap"
        if (pass_lap, group) in self.spoken_groups:
            return "corner_done"
        if self.lap_counts.get(st.lap, 0) >= self.cfg.lap_budget:
            return "budget"
        if busy:
            return "busy"
        if st.t_s - self.last_spoken_t < self.cfg.min_gap_s:
            return "gap"
        return None

    @staticmethod
    def _decide(
        status: str,
        reason: str | None,
        hit: RuleHit,
        phrase: Phrase,
        st: FrameState,
        superseded_by: str | None = None,
        deadline_t_s: float | None = None,
    ) -> Decision:
        return Decision(status, reason, hit, phrase, st.t_s, st.lap, st.dist_m, superseded_by, deadline_t_s)
