"""How the hot path's interpreter is set for its frame path, once at start-up and undone at shut-down.

The start-up heap leaves the garbage collector's reach (``gc.freeze``): a full collection during a session
walks only what the session made since (20-40 ms of one frame at 1 kHz before it). A GIL slice shorter
than CPython's 5 ms (``sys.setswitchinterval``) was tried and not shown to help under a loaded machine's
scheduler (``bench/frame_stall.py --gil-slices 5 1``); it is left at the default.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """At start-up, once the state is built."""
    gc.collect()
    gc.freeze()


def unsettle() -> None:
    """At shut-down: the start-up objects are the collector's again, so the interpreter frees them."""
    gc.unfreeze()
