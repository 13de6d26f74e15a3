"""Sources ranked by quality, checked against physics, after mapping and before the sign check.

The rule table already puts the car's IMU (accelerometer, gyro) before GPS-derived g and yaw rate. Here
each of them is checked against the car's own GPS track (:func:`shared.channel_orient.gps_references`):
an IMU channel that does not follow the track (|r| < ``AGREE_R``: a raw axis mounted another way, a dead
sensor) gives way to the best candidate that does, and the reason goes into the signal registry. The
gyro and the accelerometer are also checked against each other: speed x yaw rate ~ lateral acceleration.
"""

from __future__ import annotations

import numpy as np

from shared.channel_orient import CHECKS, correlation
from shared.units import G

AGREE_R = 0.5  # |r| a source needs with the GPS track to be trusted over another that has it
CHECKED = ("g_lat", "g_long", "yaw_rate_dps")  # the signals whose source may give way
Candidates = dict[str, list[tuple[str, np.ndarray]]]  # canonical -> (channel name, values on the grid)


def cross_check(
    wide: dict[str, np.ndarray],
    source: dict[str, str],
    alternates: Candidates,
    refs: dict[str, np.ndarray] | None,
) -> tuple[dict[str, str], dict[str, str]]:
    """Swap, in place, a g or yaw source that disagrees with the GPS track for one that agrees.

    ``source``: canonical -> the channel feeding it. Returns (canonical -> the channel now feeding it,
    for the swaps) and (channel name -> a note for its registry reason). ``refs``: the GPS track's
    references (:func:`shared.channel_orient.gps_references`), None without a usable track."""
    swaps: dict[str, str] = {}
    notes: dict[str, str] = {}
    if refs is None:
        return swaps, notes
    moving = refs["moving"]
    for canon, ref, what in CHECKS:
        name = source.get(canon)
        if name is None or canon not in CHECKED:
            continue
        r = correlation(wide[canon], refs[ref], moving)
        if r is None:
            continue
        if abs(r) >= AGREE_R:
            notes[name] = f"follows {what} (|r| = {abs(r):.2f})"
            continue
        scored = [(abs(correlation(v, refs[ref], moving) or 0.0), n, v) for n, v in alternates.get(canon, [])]
        best = max(scored, key=lambda x: x[0], default=None)
        if best is None or best[0] < AGREE_R:
            notes[name] = f"only weakly follows {what} (|r| = {abs(r):.2f}); no other source does better"
            continue
        wide[canon] = best[2]
        swaps[canon] = best[1]
        notes[name] = f"does not follow {what} (|r| = {abs(r):.2f}): {best[1]!r} feeds {canon} instead"
        notes[best[1]] = (
            f"chosen over {name!r}, which does not follow {what}; this one does (|r| = {best[0]:.2f})"
        )
    yaw, glat, v = wide.get("yaw_rate_dps"), wide.get("g_lat"), wide.get("speed_kmh")
    yaw_src = swaps.get("yaw_rate_dps", source.get("yaw_rate_dps"))
    if yaw is not None and glat is not None and v is not None and yaw_src is not None:
        r = correlation(v / 3.6 * np.radians(yaw) / G, glat, moving)
        if r is not None:
            verdict = "agrees with" if abs(r) >= AGREE_R else "does not agree with"
            text = f"speed x yaw rate {verdict} the lateral acceleration (|r| = {abs(r):.2f})"
            notes[yaw_src] = f"{notes[yaw_src]}; {text}" if yaw_src in notes else text
    return swaps, notes
