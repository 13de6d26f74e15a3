"""The next session's laps from this one's opportunities: warm-up, one block of work laps per focus
corner (the opportunities' targets, at most three), cool-down. The paddock's plan tool and ``report.html``
both lay it out here."""

from __future__ import annotations

from typing import Any

WARM = "warm tyres and brakes, build to pace"
COOL = "cool-down"
PUSH = "no corner loses time against your good laps: push for a new best lap"


def plan_blocks(focus: list[str], n_laps: int, idle: str = PUSH) -> list[dict[str, Any]]:
    """``n_laps`` laps shared out: ``{"laps", "focus"}`` blocks; ``idle`` is the work laps' focus when no
    corner is named. Never more focus blocks than work laps."""
    warm = 0 if n_laps < 3 else 1 if n_laps < 5 else 2
    cool = 1 if n_laps >= 3 else 0
    work = n_laps - warm - cool
    focus = focus[: min(3, work)]
    blocks = [{"laps": warm, "focus": WARM}] if warm else []
    for i, text in enumerate(focus):  # the work laps shared out, the first focus taking any remainder
        share = work // len(focus) + (1 if i < work % len(focus) else 0)
        blocks.append({"laps": share, "focus": text})
    if not focus and work:
        blocks.append({"laps": work, "focus": idle})
    if cool:
        blocks.append({"laps": cool, "focus": COOL})
    return blocks
