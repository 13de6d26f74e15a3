"""The cue stream times each cue from ``publish`` to its response having written it (``send_ms``: the
service's part of a cue's way after the decision, in ``/health`` and ``/metrics``)."""

from __future__ import annotations

import asyncio
import time

from services.hotpath.cue_stream import CueHub
from services.hotpath.metrics import Histogram


async def test_each_written_cue_is_timed_from_its_publish() -> None:
    hub = CueHub(maxlen=2)
    gen = hub.stream("s", keepalive_s=60)
    await gen.__anext__()  # hello: not a cue, not timed
    t0 = time.perf_counter()
    for i in range(3):  # the queue holds two: the oldest is dropped, never written, never timed
        hub.publish("cue", {"session_id": "s", "n": i})
    first = await gen.__anext__()
    assert '"n": 1' in first and hub.send_ms.n == 0  # yielded, not yet written
    time.sleep(0.004)  # the response takes 4 ms to write it
    second = await gen.__anext__()
    t1 = time.perf_counter()
    assert '"n": 2' in second and hub.send_ms.n == 1
    assert 4.0 <= hub.send_ms.max <= (t1 - t0) * 1000
    nxt = asyncio.ensure_future(gen.__anext__())
    await asyncio.sleep(0)  # the response asked for more: the second was written
    assert hub.send_ms.n == 2 and hub.send_ms.total >= 8.0
    nxt.cancel()
    hub.publish("cue", {"session_id": "other", "n": 9})  # another session's: not this stream's
    assert hub.send_ms.n == 2


def test_the_summary_says_count_max_and_the_bucket_of_the_99th_percentile() -> None:
    h = Histogram()
    assert h.summary() == {"count": 0, "max": 0.0, "p99_within": None}
    for _ in range(99):
        h.observe(0.3)
    h.observe(7.0)
    assert h.summary() == {"count": 100, "max": 7.0, "p99_within": 0.5}
    h.observe(7.0)  # 2 of 101 over 0.5 ms: the 99th percentile is in the 10 ms bucket
    assert h.summary() == {"count": 101, "max": 7.0, "p99_within": 10.0}
    h.observe(0.3)
    h.observe(0.3)  # 2 of 103 above 0.5 ms (1.9 %): still the 10 ms bucket
    assert h.summary()["p99_within"] == 10.0
    big = Histogram()
    big.observe(300.0)
    assert big.summary() == {"count": 1, "max": 300.0, "p99_within": None}  # beyond the last bucket
