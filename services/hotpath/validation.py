"""Frame validation: every problem has a named reason, counted, and never crashes the loop."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from shared.signals import CHANNEL_BY_NAME

REASONS = ("malformed", "out_of_order", "duplicate_ts", "non_finite", "unknown_channel", "sentinel", "absurd",
           "can_dlc", "can_unknown_id", "no_session")  # fmt: skip
# physically absurd limits for a car on a track, tighter than the storage ranges
ABSURD = {"speed_kmh": (0.0, 450.0), "g_lat": (-6.0, 6.0), "g_long": (-6.0, 6.0), "g_vert": (-6.0, 8.0),
          "rpm": (0.0, 20_000.0), "brake_bar": (-5.0, 250.0), "throttle_pct": (-5.0, 105.0)}  # fmt: skip
SENTINELS = {"oil_press_bar": (4000.0,), "alt_m": (65535.0,), "lon": (214.7483647,), "lat": (214.7483647,)}


class FrameRejected(ValueError):
    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class Counters:
    def __init__(self) -> None:
        self.rejected: Counter[str] = Counter()
        self.dropped_values: Counter[str] = Counter()
        self.frames_total = 0

    def as_dict(self) -> dict[str, Any]:
        return {"frames_total": self.frames_total, "rejected": {r: self.rejected.get(r, 0) for r in REASONS},
                "dropped_values": dict(self.dropped_values)}  # fmt: skip


def clean_frame(raw: Any, last_t: float | None, counters: Counters) -> dict[str, float]:
    """Validate one frame; drop bad values (counted) or reject the frame (raises FrameRejected)."""
    if not isinstance(raw, dict):
        raise FrameRejected(
            "malformed", f"a frame must be an object of channel values, got {type(raw).__name__}"
        )
    t = raw.get("t_s")
    if isinstance(t, bool) or not isinstance(t, int | float):
        raise FrameRejected("malformed", "a frame needs a numeric t_s")
    if not math.isfinite(t):
        raise FrameRejected("non_finite", "t_s is NaN or infinite")
    if last_t is not None:
        if t == last_t:
            raise FrameRejected("duplicate_ts", f"t_s {t} repeats the previous frame")
        if t < last_t:
            raise FrameRejected("out_of_order", f"t_s {t} is before the previous frame's {last_t}")
    out: dict[str, float] = {"t_s": float(t)}
    for k, v in raw.items():
        if k in ("t_s", "session_id"):
            continue
        if k not in CHANNEL_BY_NAME:
            counters.dropped_values["unknown_channel"] += 1
            counters.rejected["unknown_channel"] += 1
            continue
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise FrameRejected("malformed", f"{k} must be a number, got {type(v).__name__}")
        fv = float(v)
        if not math.isfinite(fv):
            counters.rejected["non_finite"] += 1
            continue
        if fv in SENTINELS.get(k, ()) or (k == "oil_press_bar" and fv > 100):
            counters.rejected["sentinel"] += 1
            continue
        lim = ABSURD.get(k)
        if lim is not None and not (lim[0] <= fv <= lim[1]):
            raise FrameRejected("absurd", f"{k}={fv} is not physically possible")
        out[k] = fv
    return out
