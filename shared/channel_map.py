"""Which source channel of a log feeds each canonical signal, with unit conversion, and why.

Three layers, strongest first:

1. the user's mapping file (``<data>/channels.yaml``, then ``--map FILE`` on top), keyed by the
   channel's name as in the file;
2. the car profile's explicit channel list (exact names, e.g. the E46's DBC signals);
3. the rule table in :mod:`shared.channel_rules` (name patterns plus the channel's unit).

Every source channel gets a :class:`Decision`: the canonical signal it feeds (or ``None``) and a
sentence saying why, so ``pitwall channels FILE`` and the stored ``signal_registry`` can show it.
Channels that feed nothing are still stored by their original name (``telemetry_signals``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from shared.channel_rules import RULES, Rule, normalise_name
from shared.channel_user import NOT_MAPPABLE, ChannelMapError, UserEntry, UserMap
from shared.importers.base import RawChannel
from shared.signals import CHANNEL_BY_NAME
from shared.units import conversion, declared, normalise_unit, source_unit

_NOT_CANONICAL = NOT_MAPPABLE


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
        parts = [] if a == b or not a else [f"{self.unit} -> {target}"]
        if self.scale != 1.0:
            parts.append(f"x{self.scale:g}")
        if self.sign_flip:
            parts.append("sign flipped")
        if self.bias:
            parts.append(f"{self.bias:+g} {target}")
        return ", ".join(parts)


@dataclass
class Decision:
    name: str  # the source channel, as in the file
    unit: str  # as the file declares it
    canonical: str | None
    why: str
    spec: Spec | None = None
    candidate_for: list[str] = field(default_factory=list)  # canonicals it fit but lost


def _unit_fits(unit: str, target: str) -> bool:
    try:
        conversion(unit, target)
    except ValueError:
        return False
    return True


def _usable(spec: Spec, ch: RawChannel) -> tuple[bool, str]:
    """A candidate with no sample inside the signal's plausible range is passed over."""
    if not len(ch.values):
        return False, "it holds no samples"
    v = spec.apply(ch.values)
    if np.isfinite(v).any():
        return True, ""
    c = CHANNEL_BY_NAME[spec.canonical]
    fin = ch.values[np.isfinite(ch.values)]
    if not len(fin):
        return False, "it holds no values"
    return False, (
        f"none of its values ({fin.min():g}..{fin.max():g} {ch.unit or ''}".rstrip()
        + f") is a plausible {spec.canonical} ({c.lo:g}..{c.hi:g} {c.unit}) or all are 'no reading' markers"
    )


def _rule_spec(rule: Rule, ch: RawChannel) -> tuple[Spec | None, str]:
    target = CHANNEL_BY_NAME[rule.canonical].unit
    if declared(ch.unit):
        if not _unit_fits(ch.unit, target):
            return None, f"its unit {ch.unit!r} does not convert to {rule.canonical}'s {target or 'count'}"
        unit = ch.unit
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


def _user_spec(e: UserEntry, ch: RawChannel) -> Spec:
    assert e.canonical is not None
    target = CHANNEL_BY_NAME[e.canonical].unit
    unit = e.unit if e.unit is not None else (ch.unit if declared(ch.unit) else target)
    if not _unit_fits(unit, target):
        raise ChannelMapError(
            f"channel {ch.name!r} is in {unit!r}, which does not convert to {e.canonical}'s {target!r}; "
            "give its unit with 'unit:' in the mapping file"
        )
    return Spec(e.canonical, unit, e.scale, e.bias, e.sign_flip, tuple(e.sentinels), None, e.hold)


@dataclass
class _Cand:
    rank: tuple[int, int, int, int]
    rule: str  # rule id, or the layer's name
    name: str
    spec: Spec
    why: str


def resolve(
    channels: Mapping[str, RawChannel],
    source_format: str,
    profile_channels: list[Any] | None = None,
    user: UserMap | None = None,
) -> list[Decision]:
    """One decision per source channel, in file order."""
    user = user or UserMap()
    order = {n: i for i, n in enumerate(channels)}
    decided: dict[str, Decision] = {}
    cands: dict[str, list[_Cand]] = {}
    rejected: dict[str, list[str]] = {n: [] for n in channels}
    prof_idx: dict[str, tuple[int, Any]] = {}
    for cm in profile_channels or []:
        for k, s in enumerate(cm.sources):
            prof_idx.setdefault(s.lower(), (k, cm))

    def add(
        canon: str, layer: int, rule_no: int, derived: bool, name: str, spec: Spec, why: str, rule: str = ""
    ) -> None:
        rank = (layer, rule_no, int(derived), order[name])
        cands.setdefault(canon, []).append(_Cand(rank, rule, name, spec, why))

    for name, ch in channels.items():
        e = user.get(name)
        if e is not None:
            if e.canonical is None:
                decided[name] = Decision(name, ch.unit, None, f"ignored by the user's mapping ({_src(user)})")
                continue
            add(e.canonical, 0, 0, False, name, _user_spec(e, ch), f"user mapping ({_src(user)})")
            continue
        hit = prof_idx.get(name.lower())
        if hit is not None:
            k, cm = hit
            unit = source_unit(ch.unit, cm.unit, CHANNEL_BY_NAME[cm.canonical].unit)
            add(cm.canonical, 1, k, False, name, profile_spec(cm, unit), "car profile's channel list")
            continue
        if name in CHANNEL_BY_NAME and name not in _NOT_CANONICAL:
            target = CHANNEL_BY_NAME[name].unit
            unit = ch.unit if declared(ch.unit) and _unit_fits(ch.unit, target) else target
            add(name, 1, 0, False, name, Spec(name, unit), "already named as the canonical signal")
            continue
        norm, derived = normalise_name(name)
        for no, rule in enumerate(RULES):
            if not rule.matches(norm, source_format):
                continue
            spec, reason = _rule_spec(rule, ch)
            if spec is None:
                rejected[name].append(f"rule {rule.id!r} fits the name but {reason}")
                continue
            what = f"rule {rule.id!r}" + (f" ({rule.note})" if rule.note else "")
            if derived:
                what += " on a calculated or duplicate channel"
            add(rule.canonical, 2, no, derived, name, spec, what, rule.id)
            break  # the first rule that fits name and unit decides what the channel is

    for canon, cs in cands.items():
        cs.sort(key=lambda c: c.rank)
        winner: _Cand | None = None
        passed: list[str] = []
        for c in cs:
            ok, reason = _usable(c.spec, channels[c.name])
            if ok:
                winner = c
                break
            passed.append(c.name)
            rejected[c.name].append(f"fits {canon} by {c.why}, but {reason}")
        if winner is None:
            continue
        conv = winner.spec.conversion_text()
        why = winner.why + (f"; {conv}" if conv else "")
        if passed:
            why += f"; chosen over {', '.join(repr(p) for p in passed)} (no usable values)"
        decided[winner.name] = Decision(winner.name, channels[winner.name].unit, canon, why, winner.spec)
        for c in cs:
            if c is winner or c.name in passed:
                continue
            rejected[c.name].append(
                f"also fits {canon} ({c.why}), but {winner.name!r} ranks first: {_rank_reason(winner, c)}"
            )

    out: list[Decision] = []
    for name, ch in channels.items():
        if name in decided:
            out.append(decided[name])
            continue
        reasons = rejected[name]
        out.append(
            Decision(name, ch.unit, None, "; ".join(reasons) if reasons else "no rule matches the name")
        )
    return out


@lru_cache(maxsize=512)
def live_rule_spec(name: str, source_format: str = "live") -> Spec | None:
    """A live frame's source name through the rule table (values taken in the canonical unit)."""
    norm, _ = normalise_name(name)
    for rule in RULES:
        if rule.matches(norm, source_format):
            target = CHANNEL_BY_NAME[rule.canonical].unit
            return Spec(
                rule.canonical, target, sign_flip=rule.sign_flip, sentinels=rule.sentinels, hold=rule.hold
            )
    return None


def _rank_reason(a: _Cand, b: _Cand) -> str:
    la, ra, da, _ = a.rank
    lb, rb, db, _ = b.rank
    if la != lb:
        return "a user or car-profile entry outranks the rule table"
    if ra != rb:
        return f"rule {a.rule!r} comes before rule {b.rule!r} in the rule table"
    if da != db:
        return "a direct channel before a calculated or duplicate one"
    return "same rule, earlier in the file"


def _src(user: UserMap) -> str:
    return ", ".join(user.sources) or "user"
