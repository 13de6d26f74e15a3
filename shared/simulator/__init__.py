"""The simulator: realistic multi-lap sessions with injected mistakes and their ground truth."""

from shared.simulator.scenario import (
    ALL_KINDS,
    DRIVING_MISTAKES,
    Event,
    GroundTruth,
    Scenario,
    injected_lines,
)
from shared.simulator.session import SimSession, simulate
from shared.simulator.writers import write_aim_csv, write_candump, write_ground_truth

__all__ = [
    "ALL_KINDS",
    "DRIVING_MISTAKES",
    "Event",
    "GroundTruth",
    "Scenario",
    "SimSession",
    "injected_lines",
    "simulate",
    "write_aim_csv",
    "write_candump",
    "write_ground_truth",
]
