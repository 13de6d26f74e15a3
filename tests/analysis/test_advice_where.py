"""Where a brake point is said: at (or so far from) the corner's marker, else metres before the corner; a
marker named as a place ("where the left wall steps up") is not prefixed with "at"."""

from __future__ import annotations

import pytest

from shared.analysis.advice import where
from shared.profiles.track import BrakeMarker, Corner


def _corner(marker: str | None) -> Corner:
    bm = BrakeMarker(name=marker, dist_m=900.0) if marker else None
    return Corner(
        id="t4", name="Turn 4", short="T4", seq=5, start_m=946.0, apex_m=990.0, end_m=1030.0, brake_marker=bm
    )


@pytest.mark.parametrize(
    "marker,dist,said",
    [
        ("the bridge", 903.0, "at the bridge"),
        ("the bridge", 918.0, "18 m after the bridge"),
        ("the bridge", 880.0, "20 m before the bridge"),
        ("where the left wall steps up", 903.0, "where the left wall steps up"),
        ("Where the left wall steps up", 896.0, "Where the left wall steps up"),
        ("where the left wall steps up", 918.0, "18 m after where the left wall steps up"),
        (None, 900.0, "46 m before T4"),
        (None, 956.0, "10 m into T4"),
    ],
)
def test_a_brake_point_is_said_by_the_marker_or_the_corner(
    marker: str | None, dist: float, said: str
) -> None:
    assert where(_corner(marker), dist) == said
