"""How smooth the driver's inputs were ("was I smooth on the throttle?", "am I sawing at the wheel?"): the
steering's corrections per km, how much the throttle's rate varied, how fast the brake came off, and the
verdict (``tools.aim.get_input_smoothness``), over the session."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.model import Answer, Question
from services.paddock.tools.registry import run_tool

MEASURE = "smoothness"


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """The session's input smoothness in driver words; what the file lacks said as not recorded."""
    args = {"session_id": s["session_id"]}
    got = run_tool("get_input_smoothness", args)
    if "error" in got:
        return None
    missing = f" {got['not_recorded']}" if got.get("not_recorded") else ""
    if got.get("score") is None:
        return Answer(f"No input smoothness for this session.{missing}", "get_input_smoothness", args, got)
    bits = []
    if got.get("steering_reversals_per_km") is not None:
        bits.append(f"steering {got['steering_reversals_per_km']:g} corrections a km")
    if got.get("throttle_modulation_pct_per_s") is not None:
        bits.append(f"throttle moving at {got['throttle_modulation_pct_per_s']:g} % a second (its spread)")
    if got.get("brake_release_bar_per_s") is not None:
        bits.append(f"brake released at {got['brake_release_bar_per_s']:g} bar a second (median)")
    text = f"Your inputs this session read as {got['verdict']}: " + "; ".join(bits) + "." + missing
    return Answer(text, "get_input_smoothness", args, got)
