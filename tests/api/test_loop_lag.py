"""The event-loop lag ``/health`` and ``/metrics`` report (``shared.asgi_guard.LoopLag``): quantiles sorted
by the lag timer once per ``summary_every`` ticks, never by a request."""

from __future__ import annotations

import asyncio
import random

from shared.asgi_guard import LoopLag


def test_quantiles_are_the_window_sorted_once_per_summary() -> None:
    lag = LoopLag(window=400)
    values = [i / 1000 for i in range(200)]  # 0 .. 199 ms
    random.Random(3).shuffle(values)
    lag.samples.extend(values)
    assert lag.as_dict()["p50_ms"] == 0.0 and lag.as_dict()["p99_ms"] == 0.0  # not summarised yet
    lag.summarise()
    # of 200 samples sorted: the 101st (index 100) is the p50, index 198 the p99
    assert lag.as_dict() == {"p50_ms": 100.0, "p99_ms": 198.0, "max_ms": 0.0}
    lag.samples.extend([5.0] * 200)  # a request between summaries sees the last summary, unsorted again
    assert lag.as_dict()["p99_ms"] == 198.0
    assert 'quantile="0.99"} 0.198000' in "\n".join(lag.render("x"))
    lag.summarise()
    assert lag.as_dict()["p50_ms"] == 5000.0  # the window holds the last 400: 200 old, 200 of 5 s


def test_the_timer_summarises_every_n_ticks() -> None:
    async def run() -> tuple[list[float], dict[str, float]]:
        lag = LoopLag(interval_s=0.0, summary_every=3)
        lag.start()
        while len(lag.samples) < 7:
            await asyncio.sleep(0)
        lag.stop()
        return list(lag.samples), lag.as_dict()

    samples, said = asyncio.run(run())
    first6 = sorted(samples[:6])  # summarised at ticks 3 and 6, not at 7
    assert said["p50_ms"] == round(first6[3] * 1000, 2)
    assert said["p99_ms"] == round(first6[5] * 1000, 2)
    assert said["max_ms"] == round(max(samples) * 1000, 2)
