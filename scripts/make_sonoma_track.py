#!/usr/bin/env python3
"""Developer script: build shared/profiles/tracks/sonoma.yaml and its centreline from ../shared (the
real VBOX session's driven line; the OSM reference only for the corner table's distances).

The product never reads ../shared; it ships what this script writes. Re-run it only to rebuild them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from shared.geo import LocalProjection, Polyline  # noqa: E402

SRC = REPO.parent / "shared" / "reference" / "sonoma_centerline_osm.json"
OUT = REPO / "shared" / "profiles" / "tracks"
SF = (38.16152, -122.45472)  # start/finish, from the original Pitwall documentation
VBOX = REPO.parent / "shared" / "data" / "vbox" / "sonoma_vbox0240.csv"
# Corner extents (distance from the start/finish line along the map's line *before* its spur is
# removed, m; converted to the driven line's distances below) read off two sources that agree:
# the centreline's curvature (heading change > 15 deg, radius < 250 m) and the braking zones and
# speed minima of the real 10 Hz VBOX session. Names follow the circuit's published turn numbers.
# (id, name, short, start_m, apex_m, end_m, direction, brake marker name)
CORNERS = [
    ("t1", "Turn 1", "T1", 50.0, 100.0, 140.0, "left", None),
    ("t2", "Turn 2", "T2", 370.0, 430.0, 500.0, "right", "the bridge"),
    ("t3", "Turn 3", "T3", 660.0, 705.0, 750.0, "left", None),
    ("t3a", "Turn 3a", "T3a", 765.0, 800.0, 850.0, "right", None),
    ("t4", "Turn 4", "T4", 960.0, 1005.0, 1050.0, "right", "where the left wall steps up"),
    ("t5", "Turn 5", "T5", 1130.0, 1170.0, 1280.0, "right", None),
    ("t6", "Turn 6", "T6", 1425.0, 1560.0, 1730.0, "left", "the tyre stacks on the left"),
    ("t7", "Turn 7", "T7", 2140.0, 2210.0, 2480.0, "right", "the 300 board"),
    ("t8", "Turn 8", "T8", 2600.0, 2680.0, 2720.0, "left", None),
    ("t8a", "Turn 8a", "T8a", 2750.0, 2830.0, 2925.0, "right", None),
    ("t9", "Turn 9", "T9", 3190.0, 3250.0, 3310.0, "left", None),
    ("t10", "Turn 10", "T10", 3380.0, 3405.0, 3515.0, "right", None),
    ("t11", "Turn 11", "T11", 3810.0, 3860.0, 3930.0, "right", "the bump where the road widens"),
]
LEVERAGE = {
    "t1": 0.06,
    "t2": 0.08,
    "t3": 0.07,
    "t3a": 0.0,
    "t4": 0.09,
    "t5": 0.04,
    "t6": 0.13,
    "t7": 0.09,
    "t8": 0.06,
    "t8a": 0.0,
    "t9": 0.07,
    "t10": 0.16,
    "t11": 0.15,
}
LANDMARK = {"t6": "the Carousel", "t7": "the hairpin", "t8": "the esses"}
ALIASES = {
    "t3a": ["turn 3a", "3a"],
    "t6": ["carousel", "the carousel", "turn 6", "turn six"],
    "t7": ["hairpin", "t7 hairpin", "turn 7", "turn seven"],
    "t8": ["esses", "the esses", "turn 8", "turn eight"],
    "t8a": ["turn 8a", "8a"],
    "t11": ["turn 11", "turn eleven", "calamity corner"],
}
TIPS = {
    "t3": "give T3 away to win T3a and T4",
    "t5": "throwaway corner: set up the Carousel entry",
    "t6": "patience: early throttle pushes you wide on the off-camber exit",
    "t10": "fastest corner: a lift is usually enough, not the brake",
    "t11": "let the bump settle, trail to the apex, use all the road on exit",
}


def remove_spurs(x: np.ndarray, y: np.ndarray, s: np.ndarray, near_m: float = 12.0, min_gap: int = 12):
    """Drop out-and-back excursions: where the line returns within ``near_m`` of a point it passed
    ``min_gap`` or more samples earlier, the samples in between are a spur."""
    keep = np.ones(len(x), dtype=bool)
    i = 0
    n = len(x)
    while i < n:
        d = np.hypot(x[i + min_gap : min(n, i + 200)] - x[i], y[i + min_gap : min(n, i + 200)] - y[i])
        hit = np.where(d < near_m)[0]
        if len(hit):
            j = i + min_gap + int(hit[-1])
            keep[i + 1 : j] = False
            i = j
        else:
            i += 1
    return x[keep], y[keep], s[keep]


def brake_onsets(line: Polyline, proj: LocalProjection, length: float, table: list) -> dict[str, float]:
    """Median lap distance where braking (> 8 bar) starts before each corner in the VBOX session."""
    import csv

    if not VBOX.is_file():
        return {}
    lat, lon, brake = [], [], []
    with VBOX.open(encoding="utf-8-sig") as fh:
        rows = csv.reader(fh)
        head = next(rows)
        ila, ilo, ib = head.index("Latitude"), head.index("Longitude"), head.index("Brake Pressure (bar)")

        def dm(v: str) -> float:
            d, rest = v.split("°")
            val = float(d) + float(rest[:-2]) / 60
            return -val if rest.strip().endswith(("S", "W")) else val

        for r in rows:
            lat.append(dm(r[ila]))
            lon.append(dm(r[ilo]))
            brake.append(float(r[ib]))
    x, y = proj.xy(np.array(lat), np.array(lon))
    s, _ = line.project(x, y)
    b = np.array(brake)
    on = b > 8
    starts = s[1:][on[1:] & ~on[:-1]]
    out: dict[str, float] = {}
    for cid, _n, _s, start, _a, _e, _d, marker in table:
        if not marker:
            continue
        near = starts[(starts > start - 250) & (starts < start + 20)]
        if len(near):
            out[cid] = round(float(np.median(near)), 1)
    return out


def osm_line() -> tuple[LocalProjection, np.ndarray, np.ndarray, np.ndarray]:
    """The OSM centreline every 5 m from the start/finish line, spur removed: (proj, x, y, old_s) where
    ``old_s`` is each point's distance before the spur was cut (the ``CORNERS`` table's distances)."""
    src = json.loads(SRC.read_text())
    pts = src["real_centerline"]
    lat = np.array([p["lat"] for p in pts])
    lon = np.array([p["lon"] for p in pts])
    proj = LocalProjection(float(lat.mean()), float(lon.mean()))
    x, y = proj.xy(lat, lon)
    line = Polyline(x, y, closed=True)
    sx, sy = proj.xy1(*SF)
    s0 = float(line.project(np.array([sx]), np.array([sy]))[0][0])
    grid = (s0 + np.arange(0, line.length, 5.0)) % line.length
    gx, gy = line.point_at(grid)
    # the map's line has an out-and-back spur (a link road) that no car drives: cut it out
    gx, gy, old_s = remove_spurs(gx, gy, np.arange(len(gx)) * 5.0)
    return proj, gx, gy, old_s


def driven_laps(proj: LocalProjection, heading_deg: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """(x, y) of each full lap of the VBOX session, from crossing to crossing (interpolated ends)."""
    from shared.importers import read_log
    from shared.laps_recorded import detect_laps
    from shared.profiles.car import load_car
    from shared.profiles.track import StartFinish, TrackProfile

    wide, _ = load_car("generic").to_wide(read_log(VBOX))
    gate_only = TrackProfile(
        id="gate",
        name="gate",
        length_m=4000.0,
        start_finish=StartFinish(lat=SF[0], lon=SF[1], heading_deg=heading_deg),
    )
    t = wide["t_s"]
    x, y = proj.xy(wide["lat"], wide["lon"])
    out = []
    for lp in detect_laps(wide, gate_only):
        if lp.kind != "full":
            continue
        m = (t > lp.t_start_s) & (t < lp.t_end_s) & np.isfinite(x) & np.isfinite(y)
        tt = np.concatenate([[lp.t_start_s], t[m], [lp.t_end_s]])
        out.append((np.interp(tt, t[m], x[m]), np.interp(tt, t[m], y[m])))
    return out


def mean_driven_line(
    laps: list[tuple[np.ndarray, np.ndarray]], step_m: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """The median of the driven laps, aligned by distance: first by each lap's share of its own length,
    then (three times) by projecting every lap onto the previous estimate, so a lap driven wider or
    tighter in one place does not shift the rest of its points along the track."""

    def arc(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))])

    u = np.linspace(0.0, 1.0, 2000, endpoint=False)
    xs = [np.interp(u * arc(x, y)[-1], arc(x, y), x) for x, y in laps]
    ys = [np.interp(u * arc(x, y)[-1], arc(x, y), y) for x, y in laps]
    mx, my = np.median(xs, axis=0), np.median(ys, axis=0)
    for _ in range(3):
        ref = Polyline(mx, my, closed=True)
        grid = np.arange(0.0, ref.length, step_m)
        xs, ys = [], []
        for x, y in laps:
            s, _ = ref.project(x, y)
            half = ref.length / 2
            s[: len(s) // 4][s[: len(s) // 4] > half] -= ref.length  # just after the line
            s[-len(s) // 4 :][s[-len(s) // 4 :] < half] += ref.length  # just before the next crossing
            s = np.maximum.accumulate(s)
            k = np.concatenate([[True], np.diff(s) > 1e-6])
            xs.append(np.interp(grid, s[k], x[k]))
            ys.append(np.interp(grid, s[k], y[k]))
        mx, my = np.median(xs, axis=0), np.median(ys, axis=0)
    return mx, my


def off_line_m(line: Polyline, laps: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    return np.concatenate([line.project(x, y)[1] for x, y in laps])


def main() -> None:
    proj, ox, oy, old_s = osm_line()
    osm = Polyline(ox, oy, closed=True)
    laps = driven_laps(proj, osm.heading_at(0.0))
    before = off_line_m(osm, laps)
    mx, my = mean_driven_line(laps)
    # start the line exactly at the start/finish point's place on it, every 5 m
    mean = Polyline(mx, my, closed=True)
    sx, sy = proj.xy1(*SF)
    s0 = float(mean.project(np.array([sx]), np.array([sy]))[0][0])
    gx, gy = mean.point_at((s0 + np.arange(0.0, mean.length, 5.0)) % mean.length)
    glat, glon = proj.latlon(gx, gy)
    points = [[round(float(a), 7), round(float(b), 7)] for a, b in zip(glat, glon, strict=True)]
    (OUT / "sonoma_centreline.json").write_text(
        json.dumps(
            {
                "source": (
                    "median driven line of the full laps of a real 10 Hz VBOX session, aligned by distance, "
                    "resampled every 5 m from the start/finish line"
                ),
                "points": points,
            }
        )
    )
    rebased = Polyline(*proj.xy(glat, glon), closed=True)
    after = off_line_m(rebased, laps)
    length = round(rebased.length, 1)

    def remap(d_old: float) -> float:
        """A distance of the ``CORNERS`` table (the OSM line's) as a distance along the driven line:
        the OSM point there, projected onto the driven line."""
        px, py = np.interp(d_old, old_s, ox), np.interp(d_old, old_s, oy)
        return round(float(rebased.project(np.array([px]), np.array([py]))[0][0]), 1)

    table = [(c[0], c[1], c[2], remap(c[3]), remap(c[4]), remap(c[5]), c[6], c[7]) for c in CORNERS]
    corners = []
    onsets = brake_onsets(rebased, proj, length, table)
    for cid, name, short, start, apex, end, direction, marker in table:
        bm = None
        if marker and cid in onsets:
            bm = {"name": marker, "dist_m": onsets[cid]}
        n = int("".join(ch for ch in short if ch.isdigit()))
        corners.append(
            {
                "id": cid,
                "name": name,
                "short": short,
                "seq": 0,
                "start_m": start,
                "apex_m": apex,
                "end_m": end,
                "direction": direction,
                "leverage": LEVERAGE.get(cid, 0.0),
                "brake_marker": bm,
                "landmark": LANDMARK.get(cid),
                "aliases": ALIASES.get(cid, [f"turn {n}"]),
                "tip": TIPS.get(cid),
            }
        )
    corners.sort(key=lambda c: c["start_m"])
    for i, c in enumerate(corners, start=1):
        c["seq"] = i
    doc = {
        "id": "sonoma",
        "name": "Sonoma Raceway",
        "length_m": length,
        "centreline_file": "sonoma_centreline.json",
        "start_finish": {
            "lat": round(float(glat[0]), 7),
            "lon": round(float(glon[0]), 7),
            "heading_deg": round(rebased.heading_at(0.0), 1),
            "half_width_m": 25.0,
        },
        "source": (
            "Centreline: the median driven line of a real 10 Hz VBOX session's full laps, aligned by distance "
            "(the OpenStreetMap line was up to 52 m off around Turn 9). Corner extents: the OpenStreetMap "
            "line's curvature checked against braking zones and speed minima of the same session, carried "
            "onto the driven line; brake markers at that session's median brake onset. Leverage weights: "
            "the original Pitwall documentation."
        ),
        "corners": corners,
    }
    header = "# Generated by scripts/make_sonoma_track.py; edit that script, not this file.\n"
    (OUT / "sonoma.yaml").write_text(header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    pct = [50, 95, 100]
    print(f"length {length} m, {len(corners)} corners, {len(laps)} driven laps")
    b50, b95, bmax = np.percentile(before, pct)
    a50, a95, amax = np.percentile(after, pct)
    print(
        f"centreline off the driven line, p50/p95/max m: OSM {b50:.1f}/{b95:.1f}/{bmax:.1f}, "
        f"now {a50:.1f}/{a95:.1f}/{amax:.1f}"
    )


if __name__ == "__main__":
    main()
