"""Every rule, registered: importing the rule modules registers them in ``registry`` (which imports none
of them, so there is no import circle)."""

from __future__ import annotations

from services.hotpath.rules import safety, technique
from services.hotpath.rules.registry import SAFETY, TECHNIQUE, RuleSpec

__all__ = ["load_rules", "safety", "technique"]


def load_rules() -> tuple[dict[str, RuleSpec], dict[str, RuleSpec]]:
    """The technique and the safety rules, by name."""
    return TECHNIQUE, SAFETY
