"""How the hot path's interpreter is set for its frame path, once at start-up and undone at shut-down.

The start-up heap leaves the garbage collector's reach (``gc.freeze``): a full collection during a session
walks only what the session made since (20-40 ms of one frame at 1 kHz before it). A GIL slice shorter
than CPython's 5 ms (``sys.setswitchinterval``) was tried and not shown to help under a loaded machine's
scheduler (``bench/frame_stall.py --gil-slices 5 1``, ``bench/gil_hold.py``); it is left at the default.

Under load the cue's time is the event loop thread waiting for a core, not its work
(``bench/cue_latency.py``): ``PITWALL_HOTPATH_NICE`` (e.g. -10, where the process may: root or
``CAP_SYS_NICE``) raises that thread's priority at start; the store writer, started before, keeps its own.

glibc's threshold for serving an allocation by its own mapping is fixed at 128 KiB (``mallopt``): left
dynamic, it rises once such a block is freed (a closed lap's arrays), and from then on a growing buffer of
the frame path (the lap's distance and elapsed arrays, 800 KB each at 1 kHz) is copied into fresh heap
pages at each resize: 100-400 page faults, 0.6-2.4 ms in one frame (``bench/frame_stall.py --causes``);
at the fixed threshold it grows by ``mremap``, with no copy.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging

from shared.serve import loop_priority

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 128 * 1024  # glibc's default start value, kept from start-up on


def fix_mmap_threshold() -> bool:
    """Blocks of 128 KiB and more get their own mapping for good (glibc); False where there is no glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):  # another C library (musl has no mallopt)
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def settle(nice: int = 0) -> None:
    """At start-up, on the event loop's thread, once the state is built."""
    gc.collect()
    gc.freeze()
    if not fix_mmap_threshold():
        log.info("no glibc mallopt: growing buffers may be copied at a resize")
    loop_priority(nice, "PITWALL_HOTPATH_NICE")


def unsettle() -> None:
    """At shut-down: the start-up objects are the collector's again, so the interpreter frees them."""
    gc.unfreeze()
