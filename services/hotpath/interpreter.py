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

from shared.serve import loop_priority


def settle(nice: int = 0) -> None:
    """At start-up, on the event loop's thread, once the state is built."""
    gc.collect()
    gc.freeze()
    loop_priority(nice, "PITWALL_HOTPATH_NICE")


def unsettle() -> None:
    """At shut-down: the start-up objects are the collector's again, so the interpreter frees them."""
    gc.unfreeze()
