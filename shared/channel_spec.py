"""How one source channel's values become a canonical signal: unit conversion, scale, sign, "no reading"
markers and the plausible range, built from a user entry, a car profile entry or a rule."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from shared.channel_names import Rule, normalise_name
from shared.channel_rules import RULES
from shared.channel_user import ChannelMapError, UserEntry
from shared.channel_valid import no_marker
from shared.importers.base import RawChannel
from shared.signals import CHANNEL_BY_NAME
from shared.units import conversion, declared, normalise_unit


@dataclass(frozen=True)
class Spec:
    """How one source channel's values become a canonical signal."""

    canonical: str
    unit: str  # the unit the source values are in
    scale: float = 1.0
    bias: float = 0.0
    sign_flip: bool = False
    sentinels: tuple[float, ...] = ()
    valid_range: tuple[float, float] | None = None
    hold: bool = False

    def apply(self, values: np.ndarray) -> np.ndarray:
        v = np.asarray(values, dtype=np.float64).copy()
        v[~no_marker(v)] = np.nan  # -1024, 65535, -32768: never a reading
        if self.sentinels:
            v[np.isin(v, self.sentinels)] = np.nan
        ch = CHANNEL_BY_NAME[self.canonical]
        s, o = conversion(self.unit, ch.unit)
        v = v * (s * self.scale) + o * self.scale
        if self.sign_flip:
            v = -v
        v = v + self.bias
        lo, hi = self.valid_range if self.valid_range else (ch.lo, ch.hi)
        with np.errstate(invalid="ignore"):
            if lo is not None:
                v[v < lo] = np.nan
            if hi is not None:
                v[v > hi] = np.nan
        return v

    def conversion_text(self) -> str:
        target = CHANNEL_BY_NAME[self.canonical].unit
        a, b = normalise_unit(self.unit), normalise_unit(target)
        parts = [] if a == b or not a or not b else [f"{self.unit} -> {target}"]
        if self.scale != 1.0:
            parts.append(f"x{self.scale:g}")
        if self.sign_flip:
            parts.append("sign flipped")
        if self.bias:
            parts.append(f"{self.bias:+g} {target}")
        return ", ".join(parts)


def unit_fits(unit: str, target: str) -> bool:
    try:
        conversion(unit, target)
    except ValueError:
        return False
    return True


def rule_spec(rule: Rule, ch: RawChannel) -> tuple[Spec | None, str]:
    """The rule's spec for this channel, or None and why its unit rules it out."""
    target = CHANNEL_BY_NAME[rule.canonical].unit
    if declared(ch.unit) and not rule.units:
        if not unit_fits(ch.unit, target):
            return None, f"its unit {ch.unit!r} does not convert to {rule.canonical}'s {target or 'count'}"
        unit = ch.unit
    elif rule.units:  # the unit named the channel: its values are in the canonical unit
        unit = target
    elif rule.assume_unit is not None:
        unit = rule.assume_unit or target
    else:
        return None, f"the file declares no unit, and {rule.canonical} needs one ({target})"
    return Spec(rule.canonical, unit, sign_flip=rule.sign_flip, sentinels=rule.sentinels, hold=rule.hold), ""


def profile_spec(cm: Any, unit: str) -> Spec:
    """A car profile's ``ChannelMap`` as a :class:`Spec` for values in ``unit``."""
    return Spec(
        cm.canonical,
        unit,
        cm.scale,
        cm.bias,
        cm.sign_flip,
        tuple(cm.sentinels),
        tuple(cm.valid_range) if cm.valid_range else None,
        cm.hold,
    )


def user_spec(e: UserEntry, ch: RawChannel) -> Spec:
    assert e.canonical is not None
    target = CHANNEL_BY_NAME[e.canonical].unit
    unit = e.unit if e.unit is not None else (ch.unit if declared(ch.unit) else target)
    if not unit_fits(unit, target):
        raise ChannelMapError(
            f"channel {ch.name!r} is in {unit!r}, which does not convert to {e.canonical}'s {target!r}; "
            "give its unit with 'unit:' in the mapping file"
        )
    return Spec(e.canonical, unit, e.scale, e.bias, e.sign_flip, tuple(e.sentinels), None, e.hold)


@lru_cache(maxsize=512)
def live_rule_spec(name: str, source_format: str = "live") -> Spec | None:
    """A live frame's source name through the rule table (values taken in the canonical unit)."""
    norm, _ = normalise_name(name)
    for rule in RULES:
        if not rule.units and rule.matches(norm, source_format):
            target = CHANNEL_BY_NAME[rule.canonical].unit
            return Spec(
                rule.canonical, target, sign_flip=rule.sign_flip, sentinels=rule.sentinels, hold=rule.hold
            )
    return None
