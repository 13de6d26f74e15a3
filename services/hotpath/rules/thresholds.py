"""RuleCoach's thresholds: the one coaching threshold table lives in ``shared.thresholds``."""

from __future__ import annotations

from shared.thresholds import DEFAULT_THRESHOLDS, thresholds_for

__all__ = ["DEFAULT_THRESHOLDS", "thresholds_for"]
