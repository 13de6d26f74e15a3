"""candump logs (``(ts) can0 420#0102...``, ``-L`` and ``-ta`` variants) decoded through the car's DBC."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from shared.importers.base import Progress, RawChannel, RawLog, estimate_rate, file_sha256
from shared.importers.errors import ImportFormatError


def read_candump_log(
    path: Path, car_id: str = "bmw_e46_m3_aim_mxp", progress: Progress | None = None
) -> RawLog:
    from shared.can_codec import AimMxpCodec, CanFrameError, read_candump
    from shared.profiles.car import load_car

    codec = AimMxpCodec(load_car(car_id))
    series: dict[str, tuple[list[float], list[float], str]] = {}
    rejected: dict[str, int] = defaultdict(int)
    t0: float | None = None
    n = 0
    for t_abs, can_id, data in read_candump(path):
        if t0 is None:
            t0 = t_abs
        n += 1
        try:
            values = codec.decode(can_id, data)
        except CanFrameError as exc:
            rejected[exc.reason] += 1
            continue
        src = f"candump:0x{can_id:03x}"
        for name, v in values.items():
            ts, vs, _ = series.setdefault(name, ([], [], src))
            ts.append(t_abs - t0)
            vs.append(v)
    if n == 0:
        raise ImportFormatError(
            path, "line 1", "candump lines like '(1700000000.000000) can0 420#0102030405060708'"
        )
    if not series:
        raise ImportFormatError(
            path, "", f"frames with ids known to the {car_id} DBC", f"{n} frames, none decodable"
        )
    if progress:
        progress(1.0)
    channels = {}
    for name, (ts, vs, src) in series.items():
        t = np.asarray(ts)
        channels[name] = RawChannel(
            name, codec.unit(name), t, np.asarray(vs, dtype=np.float64), estimate_rate(t), src
        )
    meta = {"frames": n, "rejected_frames": dict(rejected), "car_id": car_id}
    return RawLog("candump", path, file_sha256(path), meta, channels)
