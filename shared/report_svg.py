"""The drawings of ``report.html`` as inline SVG (no script): the track map with corner names placed so
that no two overlap, and traces against distance with labelled axes. Text from files is escaped by the
caller's ``esc`` before it reaches a drawing."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

W = 600.0
CHAR_W, LINE_H = 7.2, 14.0  # a 12 px label's box, a little wider than system-ui draws it
# where a label may sit around its corner's apex, nearest first: (dx, dy, text-anchor)
SPOTS = [(6, -6, "start"), (-6, -6, "end"), (6, 16, "start"), (-6, 16, "end"), (0, -14, "middle"),
         (0, 26, "middle"), (14, 5, "start"), (-14, 5, "end"), (6, -22, "start"), (-6, -22, "end"),
         (6, 32, "start"), (-6, 32, "end")]  # fmt: skip


def clean(v: float) -> str:
    """A whole number without a minus sign before zero: ``-0.3`` -> ``0``."""
    return f"{int(round(v))}"


def _scale(
    x: np.ndarray, y: np.ndarray, box: tuple[float, float, float, float]
) -> Callable[..., tuple[float, float]]:
    left, top, right, bottom = box
    x0, y0 = float(np.nanmin(x)), float(np.nanmin(y))
    sx = (right - left) / max(float(np.nanmax(x)) - x0, 1e-9)
    sy = (bottom - top) / max(float(np.nanmax(y)) - y0, 1e-9)
    return lambda a, b: (left + (a - x0) * sx, bottom - (b - y0) * sy)


def _points(x: np.ndarray, y: np.ndarray, at: Callable[..., tuple[float, float]]) -> str:
    ok = np.isfinite(x) & np.isfinite(y)
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in (at(a, b) for a, b in zip(x[ok], y[ok], strict=True)))


def _box(x: float, y: float, anchor: str, text: str) -> tuple[float, float, float, float]:
    w = CHAR_W * len(text)
    left = x if anchor == "start" else x - w if anchor == "end" else x - w / 2
    return left, y - LINE_H + 3, left + w, y + 3


def _free(
    b: tuple[float, float, float, float],
    taken: Sequence[tuple[float, float, float, float]],
    w: float,
    h: float,
) -> bool:
    inside = b[0] >= 0 and b[1] >= 0 and b[2] <= w and b[3] <= h
    return inside and all(b[2] <= o[0] or o[2] <= b[0] or b[3] <= o[1] or o[3] <= b[1] for o in taken)


def place_labels(
    apexes: list[tuple[float, float, str]], w: float, h: float
) -> list[tuple[float, float, str, str]]:
    """(x, y, anchor, text) for each (x, y, text) apex: the first spot around it whose box overlaps no label
    placed before and stays on the drawing; a name with no free spot is left out (the corner table has it)."""
    out: list[tuple[float, float, str, str]] = []
    taken: list[tuple[float, float, float, float]] = []
    for ax, ay, text in apexes:
        for dx, dy, anchor in SPOTS:
            b = _box(ax + dx, ay + dy, anchor, text)
            if _free(b, taken, w, h):
                taken.append(b)
                out.append((ax + dx, ay + dy, anchor, text))
                break
    return out


def map_svg(
    lat: np.ndarray, lon: np.ndarray, dist: np.ndarray | None, corners: list[tuple[float, str]]
) -> str:
    """The lap's driven line and each corner's name (``corners``: apex metres, escaped name) at its apex."""
    k = math.cos(math.radians(float(np.nanmedian(lat))))
    x, y = lon * k, lat
    span = max(float(np.nanmax(x) - np.nanmin(x)), 1e-9), max(float(np.nanmax(y) - np.nanmin(y)), 1e-9)
    h = max(200.0, min(600.0, W * span[1] / span[0]))
    pad = 40.0  # room for names beside the outermost corners
    at = _scale(x, y, (pad, pad * 0.6, W - pad, h - pad * 0.6))
    apexes = []
    for apex_m, name in corners:
        if dist is None:
            break
        i = int(np.clip(np.searchsorted(dist, apex_m), 0, len(dist) - 1))
        if np.isfinite(x[i]) and np.isfinite(y[i]):
            apexes.append((*at(float(x[i]), float(y[i])), name))
    dots = "".join(f'<circle cx="{px:.0f}" cy="{py:.0f}" r="2.5" fill="#111"/>' for px, py, _ in apexes)
    labels = "".join(
        f'<text x="{px:.0f}" y="{py:.0f}" font-size="12" text-anchor="{anchor}">{text}</text>'
        for px, py, anchor, text in place_labels(apexes, W, h)
    )
    return (
        f'<svg viewBox="0 0 {W:.0f} {h:.0f}" role="img" aria-label="track map">'
        f'<polyline points="{_points(x, y, at)}" fill="none" stroke="#1565c0" stroke-width="2"/>{dots}{labels}</svg>'
    )


def _step(length: float) -> float:
    """Distance between ticks: 4-8 ticks across the lap."""
    for s in (100.0, 200.0, 250.0, 500.0, 1000.0, 2000.0, 5000.0):
        if length / s <= 8:
            return s
    return 10_000.0


def trace_svg(dist: np.ndarray, v: np.ndarray, label: str, unit: str, colour: str = "#c62828") -> str:
    """One channel against distance from the line: a labelled distance axis (metres), the channel's range
    on the left (``label`` and ``unit`` escaped by the caller)."""
    ok = np.isfinite(dist) & np.isfinite(v)
    d, y = dist[ok], v[ok]
    left, top, right, bottom, h = 46.0, 8.0, W - 12.0, 112.0, 150.0
    lo, hi = float(y.min()), float(y.max())
    at = _scale(
        np.array([0.0, float(d.max())]), np.array([lo, hi if hi > lo else lo + 1]), (left, top, right, bottom)
    )
    ticks = []
    step = _step(float(d.max()))
    m = 0.0
    while m <= float(d.max()) + 1e-6:
        px = at(m, lo)[0]
        ticks.append(
            f'<line x1="{px:.1f}" y1="{bottom:.0f}" x2="{px:.1f}" y2="{bottom + 4:.0f}" stroke="#555"/>'
            f'<text x="{px:.1f}" y="{bottom + 16:.0f}" font-size="11" text-anchor="middle">{clean(m)}</text>'
        )
        m += step
    return (
        f'<svg viewBox="0 0 {W:.0f} {h:.0f}" role="img" aria-label="{label} against distance">'
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#555"/>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#555"/>{"".join(ticks)}'
        f'<text x="{left - 4}" y="{top + 10}" font-size="11" text-anchor="end">{clean(hi)}</text>'
        f'<text x="{left - 4}" y="{bottom}" font-size="11" text-anchor="end">{clean(lo)}</text>'
        f'<text x="{(left + right) / 2:.0f}" y="{h - 4:.0f}" font-size="11" text-anchor="middle">'
        f"distance from the line (m)</text>"
        f'<text x="12" y="{(top + bottom) / 2:.0f}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 12 {(top + bottom) / 2:.0f})">{unit}</text>'
        f'<polyline points="{_points(d, y, at)}" fill="none" stroke="{colour}" stroke-width="1.5"/></svg>'
    )
