"""What a scenario injected, as the demo prints it."""

from __future__ import annotations

from shared.simulator import Event, injected_lines


def test_one_line_per_episode_with_its_laps() -> None:
    ev = [
        Event("late_brake", 3, "t4", offset_m=40.6),
        Event("coasting", 3, "t3", duration_s=2.45),
        Event("late_brake", 4, "t4", offset_m=40.6),
        Event("lockup", 5, "t11", wheel="fl"),
        Event("oil_pressure_drop", 3),
    ]
    assert injected_lines(ev) == [
        "late brake T4, laps 3-4",
        "coasting T3, lap 3",
        "lockup T11 (FL), lap 5",
        "oil pressure drop, lap 3",
    ]
    assert injected_lines([]) == []
