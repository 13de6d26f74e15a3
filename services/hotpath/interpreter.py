"""How the hot path's interpreter is set for its frame path, once at start-up and undone at shut-down.

- The start-up heap leaves the garbage collector's reach (``gc.freeze``): a full collection during a
  session walks only what the session made since (20-40 ms of one frame at 1 kHz before it).
- The GIL is handed between threads every ``GIL_SLICE_S`` instead of CPython's 5 ms: a frame that needs
  the GIL while the store writer's thread runs Python code waits at most one slice for it.
"""

from __future__ import annotations

import gc
import sys

GIL_SLICE_S = 0.001
_DEFAULT_SLICE_S = sys.getswitchinterval()


def settle() -> None:
    """At start-up, once the state is built."""
    gc.collect()
    gc.freeze()
    sys.setswitchinterval(GIL_SLICE_S)


def unsettle() -> None:
    """At shut-down: the start-up objects are the collector's again (the interpreter frees them), and
    the GIL slice is CPython's default."""
    gc.unfreeze()
    sys.setswitchinterval(_DEFAULT_SLICE_S)
