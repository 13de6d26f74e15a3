"""``CoachArbiter.idle_frames``: the frames the column path does not tick are frames ``tick`` passes over.

Two arbiters with the same cues waiting (armed or not, a quiet-stretch window or the fixed lead) drive
the same frames: one ticks every frame; the other only observes the quiet profile on the frames
``idle_frames`` counts and ticks the rest (asking again whenever a tick changed what waits), as
``process_many`` does. Every decision and the state left behind are the same.
"""

from __future__ import annotations

import copy

import numpy as np

from services.hotpath.arbiter import BUSY_BRAKE_BAR, ArbiterConfig, CoachArbiter, FrameState, _Pending
from services.hotpath.phrases import render
from services.hotpath.rules.registry import RuleHit
from shared.profiles.track import load_track


def _arbiter(rng: np.random.Generator) -> CoachArbiter:
    track = load_track("sonoma")
    cfg = ArbiterConfig(min_gap_s=float(rng.choice([0.0, 3.0])), lead_m=float(rng.choice([30.0, 150.0])))
    arb = CoachArbiter(track, cfg)
    d = 0.0
    while d < track.length_m:  # one lap of profile, busy in the corners
        busy = any(c.start_m - 60 <= d <= c.end_m for c in track.corners)
        arb.tick(FrameState(d / 40, 0, d, 144.0, 40.0 if busy else 0.0, 0.0, None, 0.0))
        d += 2.0
    for c in rng.choice(track.corners, size=int(rng.integers(1, 4)), replace=False):
        hit = RuleHit("coasting", 2, "no_coast", c, None, 1, bool(rng.random() < 0.5))
        window = None if rng.random() < 0.4 else (float(rng.uniform(60, 400)), float(rng.uniform(0, 50)))
        p = _Pending(hit, render(hit.template, c), c.start_m, window, armed=bool(rng.random() < 0.5))
        arb.pending[arb.group_of.get(c.id, c.id)] = p
    return arb


def _frames(rng: np.random.Generator, length: float) -> list[FrameState]:
    out = []
    d, t, lap = float(rng.uniform(0, length)), 100.0, 1
    for _ in range(1500):
        v = float(rng.uniform(20, 60))
        d += v * 0.05
        t += 0.05
        if d >= length:
            d -= length
            lap += 1
        brake = float(rng.choice([0.0, 30.0], p=[0.8, 0.2]))
        out.append(FrameState(t, lap, d, v * 3.6, brake, float(rng.uniform(-1, 1)), None, 0.0))
    return out


def _waiting(arb: CoachArbiter) -> list[tuple[int, bool, float | None, str | None]]:
    return [(id(p), p.armed, p.queued_at, p.blocked) for p in arb.pending.values()]


def test_idle_frames_are_frames_tick_passes_over() -> None:
    skipped = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        every = _arbiter(rng)
        some = copy.deepcopy(every)
        frames = _frames(rng, every.length_m)
        dist = np.array([f.dist_m for f in frames])
        speed = np.array([f.speed_kmh for f in frames])
        got_every = [d for f in frames for d in every.tick(f)]
        got_some = []
        idle_until, recheck = 0, True
        assert some.profile is not None
        for i, f in enumerate(frames):
            if some.pending and i >= idle_until and recheck:
                idle_until, recheck = i + some.idle_frames(dist[i:], speed[i:]), False
            if some.pending and i >= idle_until:
                before = _waiting(some)
                got_some += some.tick(f)
                recheck = _waiting(some) != before
            else:
                skipped += 1
                busy = f.brake_bar > BUSY_BRAKE_BAR or abs(f.g_lat) >= 0.6
                some.profile.observe(f.dist_m, busy, max(f.speed_kmh, 1.0) / 3.6)
        assert [repr(d) for d in got_some] == [repr(d) for d in got_every], seed
        assert repr(some.pending) == repr(every.pending), seed
        assert some.profile.busy == every.profile.busy and some.profile.speed == every.profile.speed
        assert (some.last_spoken_t, some.lap_counts) == (every.last_spoken_t, every.lap_counts)
    assert skipped > 10_000  # most frames were passed over
