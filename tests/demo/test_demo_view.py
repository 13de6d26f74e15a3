"""The demo's live panel: the lap it names is the lap the simulator drove (the out-lap, "lap k of 5", the
in-lap, never "lap 6" of a 5-lap demo), and its status line stays inside the panel's border at any width."""

from __future__ import annotations

import pytest
from rich.console import Console

from services.demo_view import lap_words, view
from shared.simulator.fixtures import cached_sim


def test_the_lap_words_follow_the_simulators_laps() -> None:
    truth = cached_sim(laps=5, seed=7).truth.laps
    assert [lp["kind"] for lp in truth] == ["out", "full", "full", "full", "full", "full", "in"]
    words = {"out": "out-lap", "in": "in-lap"}
    for lp in truth:
        assert lap_words(lp["lap"], 5) == words.get(lp["kind"], f"lap {lp['lap']} of 5")
    assert lap_words(6, None) == "lap 6"  # a file's laps are not known ahead: no "of"


@pytest.mark.parametrize("width", [40, 60, 80])
def test_the_status_line_stays_inside_the_border(width: int) -> None:
    state = {
        "current": {"lap": 6, "corner": "t3a", "speed_kmh": 187.2},
        "names": {"t3a": "Turn 3A"},
        "best": 95.3,
        "planned": 5,
        "cues": [
            {"lap": 3, "corner": "t6", "status": "dropped", "text": "Brake later", "reason": "too late"}
        ],
        "spoken": 3,
        "dropped": 1,
    }
    console = Console(width=width, record=True, force_terminal=False)
    console.print(view(state))
    lines = console.export_text().splitlines()
    assert all(len(line) <= width for line in lines)
    inside = " ".join(line.strip("│ ") for line in lines[1:3])
    assert inside.startswith("in-lap · Turn 3A · 187 km/h · best lap 1:35.300"), lines[:3]
    assert all(line.startswith("│") and line.rstrip().endswith("│") for line in lines[1:-1])


@pytest.mark.parametrize(
    ("track", "said"),
    [
        (
            {"id": "auto-c327d407", "name": "SSKC", "corners": 11},
            "SSKC (its corners found from your laps, 11 corners)",
        ),
        ({"id": "sonoma", "name": "Sonoma Raceway", "corners": 12}, "Sonoma Raceway (12 corners)"),
        (None, "none found"),
    ],
)
def test_the_summary_names_the_track_without_its_id(track: dict[str, object] | None, said: str) -> None:
    from services.demo_view import print_summary

    con = Console(width=200, record=True)
    s = {
        "track": track,
        "laps": 11,
        "best_lap_s": 58.524,
        "cues_spoken": 1,
        "cues_dropped": 0,
        "focus_items": [],
        "seconds": 1.0,
        "debrief": {"narrator": "template", "reason": ""},
    }
    print_summary(con, s)
    text = con.export_text()
    assert said in text
    assert "auto-" not in text and "(sonoma" not in text
    assert "0:58.524" in text
