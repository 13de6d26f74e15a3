"""How the hot path's interpreter is set for its frame path, once at start-up and undone at shut-down.

The start-up heap leaves the garbage collector's reach (``gc.freeze``): a full collection during a session
walks only what the session made since (20-40 ms of one frame at 1 kHz before it). A GIL slice shorter
than CPython's 5 ms (``sys.setswitchinterval``) was tried and not shown to help under a loaded machine's
scheduler (``bench/frame_stall.py --gil-slices 5 1``, ``bench/gil_hold.py``); it is left at the default.

Under load the cue's time is the event loop thread waiting for a core, not its work
(``bench/cue_latency.py``): ``PITWALL_HOTPATH_NICE`` (e.g. -10, where the process may: root or
``CAP_SYS_NICE``) raises that thread's priority at start; the store writer, started before, keeps its own.
"""

from __future__ import annotations

import gc
import logging
import os

log = logging.getLogger(__name__)


def settle(nice: int = 0) -> None:
    """At start-up, on the event loop's thread, once the state is built."""
    gc.collect()
    gc.freeze()
    if nice:
        try:  # this thread only (Linux: a nice per thread); threads it starts later inherit it
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        except OSError as exc:
            log.warning(
                "PITWALL_HOTPATH_NICE=%d not applied (%s): the event loop keeps its priority", nice, exc
            )


def unsettle() -> None:
    """At shut-down: the start-up objects are the collector's again, so the interpreter frees them."""
    gc.unfreeze()
