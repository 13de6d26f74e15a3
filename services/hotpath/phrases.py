"""Short, speakable cue phrases with stable ids, so audio can be pre-rendered per (phrase, corner).

A phrase id is ``<template>`` and the spoken text fills in the corner's spoken name and brake marker.
The arbiter budgets ~150 ms per word of speaking time.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.profiles.track import Corner

SECONDS_PER_WORD = 0.15

TEMPLATES: dict[str, str] = {
    "brake_later": "Brake later, {corner}",
    "brake_at_marker": "Brake at {marker}, {corner}",
    "brake_earlier": "Brake earlier, {corner}",
    "brake_consistent": "Same brake marker every lap, {corner}",
    "brake_harder": "Brake harder, {corner}",
    "trail_brake": "Trail the brake in, {corner}",
    "brake_squeeze": "Squeeze the brake faster, {corner}",
    "no_coast": "No coasting, {corner}",
    "carry_speed": "Carry more speed, {corner}",
    "power_earlier": "Earlier to power, {corner}",
    "better_exit": "Better exit, {corner}",
    "slow_in_fast_out": "Slow in, fast out, {corner}",
    "commit_throttle": "Commit to the throttle, {corner}",
    "pedal_overlap": "Off the throttle before the brake, {corner}",
    "lockup_repeat": "{wheel} locking, ease the brake, {corner}",
    "wheelspin_repeat": "Wheelspin, squeeze the throttle, {corner}",
    "smooth_hands": "Smooth hands on exit, {corner}",
    "oil_pressure": "Oil pressure low. Lift and check",
    "coolant_hot": "Coolant hot. Cool-down lap",
    "tyre_alarm": "Tyre warning, {wheel}. Slow down",
    "abs_event": "ABS working. Brake earlier",
    "dsc_event": "Traction control working. Smooth throttle",
    "mil_on": "Engine light on. Pit in",
}

WHEEL_WORDS = {"fl": "front left", "fr": "front right", "rl": "rear left", "rr": "rear right"}


@dataclass(frozen=True)
class Phrase:
    id: str
    text: str

    @property
    def words(self) -> int:
        return len(self.text.replace(",", " ").replace(".", " ").split())

    @property
    def speak_s(self) -> float:
        return self.words * SECONDS_PER_WORD


def render(template_id: str, corner: Corner | None = None, wheel: str | None = None) -> Phrase:
    tpl = TEMPLATES[template_id]
    marker = corner.brake_marker.name if corner and corner.brake_marker else "your marker"
    text = tpl.format(
        corner=corner.spoken if corner else "", marker=marker, wheel=WHEEL_WORDS.get(wheel or "", "tyre")
    )
    text = text.strip().rstrip(",").strip()
    text = text[0].upper() + text[1:]
    pid = template_id if corner is None else f"{template_id}.{corner.id}"
    if wheel:
        pid = f"{pid}.{wheel}"
    return Phrase(pid, text)
