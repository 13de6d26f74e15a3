"""The real MyChron kart file with 4.9 s of data cut out of one lap, as a logger that lost its GPS and
power writes it, and what that cut is by the file's own numbers (read here, not by Pitwall's importer)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"
CUT = (400.0, 404.9)  # seconds of the session clock: every row strictly between is dropped


@dataclass(frozen=True)
class KartGap:
    path: Path
    gap_s: float  # last row before the cut to the first after it
    start_s: float
    lap: int  # the lap the cut falls in, by the file's beacon markers
    lap_time_s: float  # that lap's time, by the file's segment markers


def kart_with_gap(shared_dir: Path, out: Path) -> KartGap:
    lines = (shared_dir / KART).read_text(encoding="utf-8").split("\n")
    kept, times, markers = [], [], []
    for ln in lines:
        head = ln.split(",", 1)[0]
        if head == "Beacon Markers":
            markers = [float(x) for x in ln.split(",")[1:] if x]
        try:
            t = float(head)
        except ValueError:
            kept.append(ln)
            continue
        if CUT[0] < t < CUT[1]:
            continue
        kept.append(ln)
        times.append(t)
    out.write_text("\n".join(kept), encoding="utf-8")
    before = max(t for t in times if t <= CUT[0])
    after = min(t for t in times if t >= CUT[1])
    lap = next(i for i, m in enumerate(markers) if m > before)  # lap i ends at markers[i]
    return KartGap(out, round(after - before, 3), before, lap, round(markers[lap] - markers[lap - 1], 3))
