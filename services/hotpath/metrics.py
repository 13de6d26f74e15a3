"""Prometheus text metrics: frame-arrival -> arbiter-decision latency histogram, counters, gauges."""

from __future__ import annotations

import bisect
import time
from collections import deque
from typing import Any

BUCKETS_MS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 250.0)


class Histogram:
    def __init__(self, buckets: tuple[float, ...] = BUCKETS_MS) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0.0
        self.n = 0
        self.max = 0.0

    def observe(self, v: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, v)] += 1
        self.total += v
        self.n += 1
        self.max = max(self.max, v)

    def summary(self) -> dict[str, Any]:
        """Count, max, and the bucket bound the 99th percentile is within (None above the last bucket)."""
        need, acc, p99 = 0.99 * self.n, 0, None
        for b, c in zip(self.buckets, self.counts, strict=False):
            acc += c
            if self.n and acc >= need:
                p99 = b
                break
        return {"count": self.n, "max": round(self.max, 3), "p99_within": p99}

    def render(self, name: str, help_: str) -> list[str]:
        out = [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
        acc = 0
        for b, c in zip(self.buckets, self.counts, strict=False):
            acc += c
            out.append(f'{name}_bucket{{le="{b}"}} {acc}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.n}')
        out += [f"{name}_sum {self.total:.6f}", f"{name}_count {self.n}"]
        return out


class RateMeter:
    """Frames per second over the last few seconds."""

    def __init__(self, window_s: float = 5.0) -> None:
        self.window_s = window_s
        self.events: deque[tuple[float, int]] = deque()

    def add(self, n: int) -> None:
        now = time.monotonic()
        self.events.append((now, n))
        while self.events and now - self.events[0][0] > self.window_s:
            self.events.popleft()

    @property
    def rate(self) -> float:
        if not self.events:
            return 0.0
        now = time.monotonic()
        while self.events and now - self.events[0][0] > self.window_s:
            self.events.popleft()
        span = max(now - self.events[0][0], 1.0) if self.events else self.window_s
        return sum(n for _, n in self.events) / span
