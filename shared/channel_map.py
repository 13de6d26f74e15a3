"""Which source channel of a log feeds each canonical signal, with unit conversion, and why.

Layers, strongest first:

1. the user's mapping file (``<data>/channels.yaml``, then ``--map FILE`` on top), keyed by the
   channel's name as in the file;
2. the car profile's explicit channel list (exact names, e.g. the E46's DBC signals);
3. the rule table in :mod:`shared.channel_rules`, by the strength of the evidence: what the file says the
   channel is (an XRK/XRZ channel's function, e.g. "Engine RPM"), then its name (team schemes included),
   then its unit alone; within one kind of evidence the better source first (IMU before GPS-derived, the
   driver's pedal before a throttle channel of unknown kind);
4. the values: a candidate with no plausible value is passed over, and a throttle channel that never
   reads below ``PEDAL_FLOOR_PCT`` is the throttle body, not the pedal.

Every source channel gets a :class:`Decision`: the canonical signal it feeds (or ``None``) and a
sentence saying why, so ``pitwall channels FILE`` and the stored ``signal_registry`` can show it.
Alarm and warning channels feed no column; their reason says ``alarm: <what>``. Channels that feed
nothing are still stored by their original name (``telemetry_signals``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Any

import numpy as np

from shared.channel_names import Rule, alarm_subject, normalise_name
from shared.channel_rules import RULES
from shared.channel_spec import Spec, profile_spec, rule_spec, unit_fits, user_spec
from shared.channel_user import NOT_MAPPABLE, UserMap
from shared.channel_valid import no_marker
from shared.importers.base import RawChannel
from shared.signals import CHANNEL_BY_NAME
from shared.units import declared, normalise_unit, source_unit

NO_RULE = "no rule matches the name, the file's function or the unit"
PEDAL_FLOOR_PCT = 10.0
STILL_IS_NO_READING = ("throttle_pct",)  # a pedal that never moves in a session is not being read
FLAGS = ("abs_active", "dsc_active", "mil", "brake_switch")  # 0/1 signals: any other value is no flag
FLAG_SHARE = 0.99  # share of a flag's readings that must be 0 or 1  # a throttle channel whose 1st percentile is above this is not the driver's pedal
_NOT_CANONICAL = NOT_MAPPABLE
_FUNCTION, _NAME, _UNIT = 0, 1, 2  # evidence, strongest first


@dataclass
class Decision:
    name: str  # the source channel, as in the file
    unit: str  # as the file declares it
    canonical: str | None
    why: str
    spec: Spec | None = None
    candidate_for: list[str] = field(default_factory=list)  # canonicals it fit but lost
    alt: Spec | None = None  # for a channel that lost: how it would feed the first of candidate_for
    pinned: bool = False  # fed by the user's mapping or the car profile: no value check moves it


def _usable(spec: Spec, ch: RawChannel) -> tuple[bool, str]:
    """A candidate with no sample inside the signal's plausible range is passed over."""
    if not len(ch.values):
        return False, "it holds no samples"
    v = spec.apply(ch.values)
    if spec.canonical in FLAGS:
        raw = ch.values[np.isfinite(ch.values) & no_marker(ch.values) & ~np.isin(ch.values, spec.sentinels)]
        other = raw[(raw != 0.0) & (raw != 1.0)]
        if len(raw) and len(other) > (1 - FLAG_SHARE) * len(raw):
            return False, (
                f"it holds values other than 0 and 1 ({other.min():g}..{other.max():g}): "
                "a setting or a count, not an on/off flag"
            )
    if spec.canonical in STILL_IS_NO_READING:
        fin = v[np.isfinite(v)]
        if len(fin) > 1 and fin.min() == fin.max():
            return False, f"it reads {fin[0]:g} throughout: no pedal was read"
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


@dataclass
class _Cand:
    rank: tuple[int, int, int, int, int]
    rule: str  # rule id, or the layer's name
    name: str
    spec: Spec
    why: str


@lru_cache(maxsize=4096)
def _rule_hits(
    norm: str, function: str, unit: str, source_format: str
) -> tuple[tuple[int, int, Rule, str], ...]:
    """(evidence, rule number, rule, how) for every rule a channel fits, strongest evidence first. When
    the file's function and the name point at the same kind of signal (same unit), the name says which.
    Cached: a team's channel names come back with every session."""
    func = normalise_name(function)[0] if function else ""
    unit = normalise_unit(unit).lower()
    fn_rules, name_rules, unit_rules, any_name = _tables()
    by_fn = [(no, r) for no, r in fn_rules if func and r.matches_function(func, norm, source_format)]
    by_name: list[tuple[int, Rule]] = []
    if any_name.fullmatch(norm):  # one test first: most channels of a big file match no name rule
        by_name = [(no, r) for no, r, rx in name_rules if r.for_format(source_format) and rx.fullmatch(norm)]
    by_unit = [(no, r) for no, r in unit_rules if r.matches_unit(norm, unit, source_format)]
    out: list[tuple[int, int, Rule, str]] = []
    said = f"the file says it is {function.strip()!r}"
    for no, r in by_fn:
        kin = [(n2, r2) for n2, r2 in by_name if _kind(r2) == _kind(r)]
        if kin:
            out.append((_FUNCTION, kin[0][0], kin[0][1], f"{said} and rule {kin[0][1].id!r} names which"))
        out.append((_FUNCTION, no, r, f"{said} (rule {r.id!r})"))
    out += [(_NAME, no, r, f"rule {r.id!r}") for no, r in by_name]
    out += [(_UNIT, no, r, f"rule {r.id!r}") for no, r in by_unit]
    return tuple(out)


@cache
def _tables() -> tuple[
    list[tuple[int, Rule]], list[tuple[int, Rule, re.Pattern[str]]], list[tuple[int, Rule]], re.Pattern[str]
]:
    """The rule table split by what each rule can match on, name patterns compiled once (on first use),
    and one pattern that some rule's name pattern matches whenever it does."""
    rules = list(enumerate(RULES))
    names = [(no, r, re.compile(r.pattern)) for no, r in rules if not r.units]
    return (
        [(no, r) for no, r in rules if r.function],
        names,
        [(no, r) for no, r in rules if r.units],
        re.compile("|".join(f"(?:{r.pattern})" for _, r, _ in names)),
    )


def _kind(rule: Rule) -> str:
    return CHANNEL_BY_NAME[rule.canonical].unit


def _throttle_floor(spec: Spec, ch: RawChannel) -> float | None:
    v = spec.apply(ch.values)
    v = v[np.isfinite(v)]
    return float(np.percentile(v, 1)) if len(v) >= 20 else None


def _throttle_body(cands: dict[str, list[_Cand]], channels: Mapping[str, RawChannel]) -> None:
    """Move throttle candidates that are the throttle body, not the driver's pedal: one that never reads
    below ``PEDAL_FLOOR_PCT`` (whatever its name), and a throttle channel beside a channel named a pedal."""
    pedal = any(c.rule == "throttle-pedal" for c in cands.get("throttle_pct", []))
    for c in list(cands.get("throttle_pct", [])):
        if c.rank[0] < 2:  # the user's mapping or the car profile says what it is
            continue
        floor = _throttle_floor(c.spec, channels[c.name])
        if floor is not None and floor > PEDAL_FLOOR_PCT:
            c.why += f"; it never reads below {floor:.0f} %: the throttle body, not the driver's pedal"
        elif pedal and c.rule == "throttle":
            c.why += "; beside a channel named the pedal, a throttle channel is the throttle body"
        else:
            continue
        cands["throttle_pct"].remove(c)
        c.spec = replace(c.spec, canonical="throttle_body_pct")
        cands.setdefault("throttle_body_pct", []).append(c)


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
    alts: dict[str, tuple[str, Spec]] = {}
    prof_idx: dict[str, tuple[int, Any]] = {}
    for cm in profile_channels or []:
        for k, s in enumerate(cm.sources):
            prof_idx.setdefault(s.lower(), (k, cm))

    def add(layer: int, ev: int, no: int, derived: bool, name: str, spec: Spec, why: str, rule: str) -> None:
        rank = (layer, ev, no, int(derived), order[name])
        cands.setdefault(spec.canonical, []).append(_Cand(rank, rule, name, spec, why))

    for name, ch in channels.items():
        e = user.get(name)
        if e is not None:
            if e.canonical is None:
                decided[name] = Decision(name, ch.unit, None, f"ignored by the user's mapping ({_src(user)})")
                continue
            add(0, 0, 0, False, name, user_spec(e, ch), f"user mapping ({_src(user)})", "user")
            continue
        hit = prof_idx.get(name.lower())
        if hit is not None:
            k, cm = hit
            unit = source_unit(ch.unit, cm.unit, CHANNEL_BY_NAME[cm.canonical].unit)
            add(1, 0, k, False, name, profile_spec(cm, unit), "car profile's channel list", "profile")
            continue
        if name in CHANNEL_BY_NAME and name not in _NOT_CANONICAL:
            target = CHANNEL_BY_NAME[name].unit
            unit = ch.unit if declared(ch.unit) and unit_fits(ch.unit, target) else target
            add(1, 0, 0, False, name, Spec(name, unit), "already named as the canonical signal", "canonical")
            continue
        norm, derived = normalise_name(name)
        hits = _rule_hits(norm, ch.function, ch.unit, source_format)
        alarm = alarm_subject(norm)
        if alarm is not None and not any(ev == _NAME for ev, *_ in hits):
            decided[name] = Decision(
                name, ch.unit, None, f"alarm: {alarm} (kept by its name, no signal column)"
            )
            continue
        for ev, no, rule, how in hits:
            spec, reason = rule_spec(rule, ch)
            if spec is None:
                rejected[name].append(f"{how} fits, but {reason}")
                continue
            what = how + (f" ({rule.note})" if rule.note else "")
            if derived:
                what += " on a calculated or duplicate channel"
            add(2, ev, no, derived, name, spec, what, rule.id)
            break  # the strongest evidence whose unit fits decides what the channel is

    _throttle_body(cands, channels)

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
        decided[winner.name] = Decision(
            winner.name, channels[winner.name].unit, canon, why, winner.spec, pinned=winner.rank[0] < 2
        )
        for c in cs:
            if c is winner or c.name in passed:
                continue
            alts.setdefault(c.name, (canon, c.spec))
            rejected[c.name].append(
                f"also fits {canon} ({c.why}), but {winner.name!r} ranks first: {_rank_reason(winner, c)}"
            )

    out: list[Decision] = []
    for name, ch in channels.items():
        if name in decided:
            out.append(decided[name])
            continue
        reasons = rejected[name]
        canon_alt, spec_alt = alts.get(name, (None, None))
        out.append(
            Decision(
                name,
                ch.unit,
                None,
                "; ".join(reasons) if reasons else NO_RULE,
                candidate_for=[canon_alt] if canon_alt else [],
                alt=spec_alt,
            )
        )
    return out


def _rank_reason(a: _Cand, b: _Cand) -> str:
    la, ea, ra, da, _ = a.rank
    lb, eb, rb, db, _ = b.rank
    if la != lb:
        return "a user or car-profile entry outranks the rule table"
    if ea != eb:
        return (
            "what the file says a channel is outranks its name"
            if ea == _FUNCTION
            else "a name outranks a unit"
        )
    if ra != rb and "GPS-derived" in b.why and "GPS-derived" not in a.why:
        return "the car's own sensor ranks before a GPS-derived channel"
    if ra != rb:
        return f"rule {a.rule!r} comes before rule {b.rule!r} in the rule table"
    if da != db:
        return "a direct channel before a calculated or duplicate one"
    return "same rule, earlier in the file"


def _src(user: UserMap) -> str:
    return ", ".join(user.sources) or "user"
