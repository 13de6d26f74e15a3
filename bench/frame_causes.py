"""What a slow frame of ``bench/frame_stall.py`` is (its ``--causes`` mode): per frame the thread's user and
system CPU, minor and major page faults and voluntary / involuntary context switches
(``getrusage(RUSAGE_THREAD)`` before and after the frame), the garbage collector's passes inside it (by
generation, from ``gc.callbacks``) and the machine's steal time (``/proc/stat``, when it moved); the worst
frames in thread CPU are then classified by what was in them.
"""

from __future__ import annotations

import gc
import resource
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

FIELDS = ("utime", "stime", "minflt", "majflt", "nvcsw", "nivcsw")


def steal_ticks() -> int:
    """The machine's steal time so far (USER_HZ ticks): a hypervisor running another guest on our CPU."""
    line = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return int(line[8]) if len(line) > 8 else 0


class FrameCauses:
    """Per-frame counters into preallocated arrays (no allocation per frame but the two rusage structs)."""

    def __init__(self, n: int) -> None:
        self.d = {f: np.zeros(n, np.int64) for f in FIELDS}
        self.gc_gen = np.full(n, -1, np.int8)  # the oldest generation collected in the frame, -1 none
        self.gc_ns = np.zeros(n, np.int64)  # thread CPU of those passes
        self._main = threading.get_ident()
        self._k = 0
        self._gc0 = 0
        self._before: Any = None

    def start(self) -> FrameCauses:
        gc.callbacks.append(self._collector)
        return self

    def stop(self) -> None:
        gc.callbacks.remove(self._collector)

    def _collector(self, phase: str, info: dict[str, int]) -> None:
        if threading.get_ident() != self._main:
            return
        if phase == "start":
            self._gc0 = time.thread_time_ns()
            self.gc_gen[self._k] = max(int(self.gc_gen[self._k]), info["generation"])
            return
        self.gc_ns[self._k] += time.thread_time_ns() - self._gc0

    def before(self, k: int) -> None:
        self._k = k
        self._before = resource.getrusage(resource.RUSAGE_THREAD)

    def after(self) -> None:
        a, b, k = self._before, resource.getrusage(resource.RUSAGE_THREAD), self._k
        d = self.d
        d["utime"][k] = round((b.ru_utime - a.ru_utime) * 1e6)
        d["stime"][k] = round((b.ru_stime - a.ru_stime) * 1e6)
        d["minflt"][k] = b.ru_minflt - a.ru_minflt
        d["majflt"][k] = b.ru_majflt - a.ru_majflt
        d["nvcsw"][k] = b.ru_nvcsw - a.ru_nvcsw
        d["nivcsw"][k] = b.ru_nivcsw - a.ru_nivcsw

    def worst(self, cpu_ns: np.ndarray, steps: list[str], top: int = 20) -> dict[str, Any]:
        """The ``top`` frames by thread CPU, each with its counters and a cause, and the totals by cause."""
        order = np.argsort(cpu_ns)[::-1][:top]
        rows = []
        causes: dict[str, int] = {}
        for k in order:
            r = {f: int(self.d[f][k]) for f in FIELDS}
            r.update(frame=int(k), cpu_ms=float(cpu_ns[k]) / 1e6, step=steps[k], gc_gen=int(self.gc_gen[k]))
            r["gc_ms"] = float(self.gc_ns[k]) / 1e6
            r["cause"] = _cause(r)
            causes[r["cause"]] = causes.get(r["cause"], 0) + 1
            rows.append(r)
        every = {
            f"frames with {f}": int((self.d[f] > 0).sum()) for f in ("majflt", "nivcsw", "nvcsw", "minflt")
        }
        return {"worst": rows, "causes": causes, "counts": every}


def _cause(r: dict[str, Any]) -> str:
    """The first of: a collector pass that took half the frame, page faults, the kernel's time, a
    preemption, else the step the frame was in (its own Python work)."""
    cpu_us = r["cpu_ms"] * 1000
    if r["gc_ms"] * 1000 >= cpu_us / 2:
        return f"collector pass (gen {r['gc_gen']})"
    if r["majflt"]:
        return "major page faults"
    if r["minflt"] >= 50:
        return "minor page faults (memory grown)"
    if r["stime"] >= cpu_us / 2:
        return "kernel time"
    if r["nivcsw"]:
        return "preempted in the frame (CPU time of a descheduled vCPU or a cold cache)"
    return f"its own work ({r['step']})"


def describe(r: dict[str, Any]) -> str:
    """The ``--causes`` block of a run's report (empty without it)."""
    c = r.get("causes")
    if not isinstance(c, dict):
        return ""
    out = [f"    worst frames by cause: {c['causes']}; over the run: {c['counts']}"]
    for w in c["worst"]:
        out.append(
            f"      frame {w['frame']:>9,} {w['cpu_ms']:6.2f} ms CPU (user {w['utime'] / 1000:.2f}, "
            f"system {w['stime'] / 1000:.2f}) {w['step']}: faults {w['minflt']}/{w['majflt']}, "
            f"switches {w['nvcsw']}/{w['nivcsw']}, collector gen {w['gc_gen']} {w['gc_ms']:.2f} ms "
            f"-> {w['cause']}"
        )
    return "\n".join(out) + "\n"
