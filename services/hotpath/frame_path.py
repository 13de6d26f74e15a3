"""The frame path: validate -> lap tracker -> corner watcher -> RuleCoach -> CoachArbiter -> cues.

Everything here is in-memory and deterministic: no I/O, no network, no LLM. Store writes are only
enqueued (``StoreWriter.submit`` never blocks); cues are handed to ``on_cue`` callbacks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from services.hotpath import records
from services.hotpath.arbiter import ArbiterConfig, CoachArbiter, FrameState
from services.hotpath.corner_live import CornerObservation, CornerWatcher
from services.hotpath.cue import Cue
from services.hotpath.cue_outlet import CueOutlet
from services.hotpath.delta import PredictiveDelta
from services.hotpath.frame_buffer import FrameBuffer, Sink
from services.hotpath.lap_trace import LapTrace
from services.hotpath.phrases import render
from services.hotpath.rules.coach import RuleCoach, reference_from_trace
from services.hotpath.rules.thresholds import thresholds_for
from services.hotpath.track_live import LiveTrackFinder
from services.hotpath.validation import JumpGuard
from shared.events import LiveEvents
from shared.laps import Lap
from shared.laps_live import LiveLapTracker
from shared.profiles.car import CarProfile
from shared.profiles.track import TrackProfile

log = logging.getLogger(__name__)


class LiveSession(FrameBuffer, CueOutlet):
    """One driving session on the hot path."""

    def __init__(
        self,
        session_id: str,
        car: CarProfile,
        track: TrackProfile | None,
        sink: Sink,
        on_cue: Callable[[Cue], None] | None = None,
        buffer_s: float = 0.25,
        headset_latency_s: float = 0.15,
        audio_s: dict[str, float] | None = None,
    ) -> None:
        FrameBuffer.__init__(self, session_id, sink, buffer_s)
        CueOutlet.__init__(self, on_cue, audio_s)
        self.car = car
        self.track = track
        self.headset_latency_s = headset_latency_s
        self._use_track(track)
        # a session started without a track finds it from its GPS fixes (set by the caller)
        self.finder: LiveTrackFinder | None = None
        self.on_track_found: Callable[[TrackProfile], None] | None = None
        self.delta = PredictiveDelta(session_id)
        self.last_lap_reference = False  # the delta runs against the previous valid lap (reference=last_lap)
        self.on_delta: Callable[[dict[str, Any]], None] | None = None
        self.last_t: float | None = None
        self.jump = JumpGuard()  # a suspected clock jump, until its time line holds
        self.laps: list[Lap] = []
        self.best_lap_s: float | None = None
        self.best_lap: int | None = None  # the fastest valid full lap so far: the one best lap
        self.trace = LapTrace()  # the lap in progress (distance, elapsed) and the best lap's, for PB pace
        self._last_st: Any = None
        self._last_fs: FrameState | None = None
        self.on_lap_closed: Callable[[Lap], None] | None = None
        self._last_vals: dict[str, float] = {}
        self._finder_fix: tuple[float, float] | None = None

    def _use_track(self, track: TrackProfile | None) -> None:
        """Everything on the frame path that depends on the track."""
        self.track = track
        th = thresholds_for(self.car.thresholds)
        self.tracker = LiveLapTracker(track)
        self.watcher = CornerWatcher(track, th) if track is not None else None
        self.coach = RuleCoach(track, th)
        self.events = LiveEvents(track.corners if track is not None else [], self.car.thresholds)
        self.coach.share_events(self.events)  # one evaluation of the per-frame conditions for both
        self.arbiter = CoachArbiter(track, ArbiterConfig(headset_latency_s=self.headset_latency_s))

    def _look_for_track(self, vals: Mapping[str, float]) -> None:
        """A session without a track: this frame's GPS fix may settle which known track it is."""
        lat, lon = vals.get("lat"), vals.get("lon")
        if self.finder is None or self.finder.done or lat is None or lon is None:
            return
        if (lat, lon) == self._finder_fix:  # a fix held between frames is no new position
            return
        self._finder_fix = (lat, lon)
        track = self.finder.feed(lat, lon)
        if track is None:
            return
        ended = self.events.close()  # events open so far are stored, not lost with the old detector
        if ended:
            self.sink(*records.events(self.session_id, ended))
        self._use_track(track)
        log.info("session %s: track found from GPS: %s", self.session_id, track.id)
        if self.on_track_found is not None:
            self.on_track_found(track)

    def use_gold(self, trace: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> bool:
        """A saved gold lap (distance trace) becomes RuleCoach's reference; False if it has no corners."""
        if self.track is None:
            return False
        obs = reference_from_trace(trace, self.track, self.coach.th)
        detail = {k: meta.get(k) for k in ("session_id", "lap", "time_s", "driver_id", "car_id")}
        detail["origin"] = meta.get("source")  # "own lap" or "imported from <file>"
        self.coach.set_gold(obs, detail)
        return self.coach.ref_source == "gold"

    # ---- the frame path -----------------------------------------------------------
    def process(self, frame: dict[str, float], arrived: float | None = None) -> list[Cue]:
        """One validated frame (canonical names). Returns the cues decided on this frame."""
        arrived = arrived if arrived is not None else time.perf_counter()
        t = frame["t_s"]
        self.last_t = t
        wall = time.time()
        self.clock.observe(t, wall)
        vals = self._last_vals
        vals.update(frame)  # slow channels hold their last value between their frames
        if self.track is None:
            self._look_for_track(vals)
        st = self.tracker.feed(t, vals.get("lat"), vals.get("lon"), vals.get("speed_kmh"))
        cues: list[Cue] = []
        if st.crossed is not None:
            self._close_lap(st.crossed)
        trace = self.trace
        if trace.start_t is None or st.crossed is not None:
            trace.restart(st.crossed.t_end_s if st.crossed is not None else t, st.crossed is not None)
        vals["lap"] = st.lap
        vals["dist_m"] = st.dist_m
        row = vals.copy()  # this frame's snapshot: stored, and kept by the corner watcher (never mutated)
        trace.add(st.dist_m, t)
        fs = FrameState(
            t,
            st.lap,
            st.dist_m,
            vals.get("speed_kmh", 0.0),
            vals.get("brake_bar", 0.0),
            vals.get("g_lat", 0.0),
            st.next_corner,
            st.dist_to_next_corner_m,
            bool(self.arbiter.pending) and trace.on_pb_pace(st.dist_m, t),
        )
        ended = self.events.feed(row)  # stored whether or not a cue was spoken about them
        # safety first among the cues: same frame as the trigger condition, from the same verdicts
        for h in self.coach.on_frame(vals, t, self.events.conditions):
            cues.append(self._emit(self.arbiter.safety(h, render(h.template, None, h.wheel), fs), arrived))
        if ended:
            self.sink(*records.events(self.session_id, ended))
        if self.watcher is not None:
            obs = self.watcher.feed(st.lap, row)
            if obs is not None:
                cues.extend(self._corner_done(obs, fs, arrived))
        for d in self.arbiter.tick(fs):
            cues.append(self._emit(d, arrived))
        if self.on_delta is not None and trace.timed:
            pit = self.tracker.pit_at.get(st.lap)  # the lap left the track for the pit lane: an in-lap
            ev = self.delta.update(wall, st.lap, st.dist_m, trace.since_start(t), pit is not None)
            if ev is not None:
                self.on_delta(ev)
        if not self._nbuf:
            self._buf_since = arrived
        self._buf.append(row)  # columns are built in Arrow at flush
        self._nbuf += 1
        # to the writer in batches of 500, or sooner at live rates: a crash loses at most
        # buffer_s + the writer's flush interval of frames
        if self._nbuf >= 500 or arrived - self._buf_since >= self.buffer_s:
            self.flush_rows()
        self._last_st = st
        self._last_fs = fs
        return [c for c in cues if c.status == "spoken"] if cues else cues

    def time_break(self) -> None:
        """The logger's clock jumped and the new time line held: no distance is integrated over the gap."""
        self.tracker.last_t = None

    def _store_corner(self, obs: CornerObservation) -> None:
        self.sink(*records.corner(self.session_id, obs))

    def _corner_done(self, obs: CornerObservation, fs: FrameState, arrived: float) -> list[Cue]:
        """A corner's observation (its exit's frame, or two frames on: ``CornerWatcher``): stored, and
        what the coach says about it scheduled."""
        self._store_corner(obs)
        return [
            self._emit(d, arrived)
            for h in self.coach.on_corner(obs)
            for d in self.arbiter.schedule(h, render(h.template, h.corner, h.wheel), fs)
        ]

    def finish(self) -> None:
        """End of session: a corner summary under way is finished, the lap in progress is stored as the
        in-lap."""
        if self.watcher is not None and self._last_fs is not None:
            for obs in self.watcher.drain():
                self._corner_done(obs, self._last_fs, time.perf_counter())
        start = self.trace.start_t
        if self.last_t is not None and start is not None and self.last_t > start:
            lap = Lap(
                self.tracker.lap,
                start,
                self.last_t,
                round(self.last_t - start, 3),
                round(self.tracker.odo - self.tracker.lap_odo0, 1),
                "in",
                False,
                "in-lap",
            )
            self.laps.append(lap)
            self.sink(*records.lap(self.session_id, lap, False))
        ended = self.events.close()
        if ended:
            self.sink(*records.events(self.session_id, ended))
        if self._last_fs is not None:
            for d in self.arbiter.close(self._last_fs):
                self._emit(d, time.perf_counter())
        self.flush_rows()

    def _close_lap(self, lap: Lap) -> None:
        """A lap closed: O(1) on the frame path whatever the lap's length. Its (distance, elapsed) lists
        (arrays) are handed over, not copied; the telemetry batch, the lap's row and its publication go to the
        store writer's thread (``flush_rows``, ``sink``, ``on_lap_closed``)."""
        self.flush_rows()
        self.laps.append(lap)
        prev_best = self.best_lap_s
        # the line delta is against the reference this lap was driven against, before it may replace it
        edge = self.tracker.start_edge  # the crossing that closed this lap starts the next one
        self.delta.lap_closed(lap.lap, lap.time_s, lap.kind, lap.valid, edge is not None and edge.on_track)
        new_best = lap.kind == "full" and lap.valid and (prev_best is None or lap.time_s < prev_best)
        trace = (self.trace.dist, self.trace.elapsed)  # from the line (0 m, 0 s): a new lap starts new ones
        if new_best:
            self.best_lap_s, self.best_lap = lap.time_s, lap.lap
            if trace[0]:
                self.trace.keep_as_best()
                if self.delta.reference is None or self.delta.reference.source == "session_best":
                    self.delta.use_trace("session_best", lap.lap, lap.time_s, *trace)
        if self.last_lap_reference and lap.kind == "full" and lap.valid and len(trace[0]) >= 2:
            # the previous completed valid lap: replaced at every valid line crossing, after its delta
            self.delta.use_trace("last_lap", lap.lap, lap.time_s, *trace)
        self.coach.on_lap(lap, prev_best if prev_best is not None else lap.time_s)
        # best so far; the store keeps exactly one best lap a session (mark_best_lap, when published)
        self.sink(*records.lap(self.session_id, lap, new_best))
        if self.on_lap_closed is not None:
            self.on_lap_closed(lap)

    def set_gold_reference(
        self, lap: int | None, time_s: float, dist: Any, elapsed: Any, source: str = "gold"
    ) -> None:
        """The driver's saved gold lap for this track (or a ``chosen`` stored lap, or an ``achievable`` lap):
        the delta's reference for the whole session."""
        self.delta.set_reference(source, lap, time_s, list(dist), list(elapsed))

    @property
    def last_state(self) -> dict[str, Any]:
        st = self._last_st
        if st is None:
            return {}
        return {
            "t_s": self.last_t,
            "lap": st.lap,
            "dist_m": round(st.dist_m, 1),
            "corner": st.corner.id if st.corner else None,
            "speed_kmh": self._last_vals.get("speed_kmh"),
        }

    def live_view(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "track_name": getattr(self.track, "name", None),  # for the drive screen: a name, not an id
            "laps": [{**lp.as_dict(), "is_best": lp.lap == self.best_lap} for lp in self.laps],
            "best_lap_s": self.best_lap_s,
            "best_lap": self.best_lap,
            "current": self.last_state,
            "reference": {
                "source": self.coach.ref_source,
                "lap": self.coach.ref_lap,
                **self.coach.ref_detail,
            },
            "no_window": dict(self.arbiter.no_window),
            "cues": {"spoken": self.cues_spoken, "dropped": self.cues_dropped},
        }
