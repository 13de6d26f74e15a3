"""Frame lists shaped like a real logger's, for tests and benches."""

from __future__ import annotations


def gps_held(frames: list[dict[str, float]], every: int) -> list[dict[str, float]]:
    """The same frames with the GPS fix new only on every ``every``-th frame and held between (a real AiM
    logger's GPS updates at 10-25 Hz while the channels come faster; the simulator gives a new fix on
    every frame)."""
    out = []
    fix: tuple[float | None, float | None] = (None, None)
    for i, f in enumerate(frames):
        g = dict(f)
        if i % every == 0:
            fix = (f.get("lat"), f.get("lon"))
        g["lat"], g["lon"] = fix  # type: ignore[assignment]
        out.append(g)
    return out
