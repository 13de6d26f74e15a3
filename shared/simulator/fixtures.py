"""Cached simulator sessions for test suites and benchmarks (simulate once per process).

``cached_sim`` injects every kind of event the session has laps and corners for (each driving mistake and each
car-health event; ten laps fit all of them at Sonoma), at corners,
on laps and of sizes drawn from the seed: the suites that check each kind is found need each kind;
``simulate`` alone draws the kinds too.
"""

from __future__ import annotations

from functools import lru_cache

from shared.simulator.scenario import ALL_KINDS
from shared.simulator.session import SimSession, simulate


@lru_cache(maxsize=8)
def cached_sim(laps: int = 10, seed: int = 7, rate_hz: float = 50.0, track_id: str = "sonoma") -> SimSession:
    return simulate(track_id=track_id, laps=laps, seed=seed, rate_hz=rate_hz, kinds=ALL_KINDS)
