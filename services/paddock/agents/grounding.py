"""The grounding check over every figure a reply states: laps, corners, lap times (``1:41.234``), seconds,
km/h, mph, rpm, %, bar, psi, metres, degrees and bare numbers, signed or not.

``Facts`` collects what the evidence says (from its text and from tools' JSON, each number with the unit
class its key or text gives it); ``grounding_check`` lists every item of a reply that no fact supports. A
cited value is supported when a fact of the same unit class (or a fact whose unit is unknown) rounds to it
at the precision it was cited; an unsigned figure may be the size of a signed fact ("0.4 s slower" for a
delta of -0.4); an explicitly signed one must carry the fact's sign.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MPH_KMH = 1.609344
PSI_BAR = 0.0689476

# unit words as a reply writes them -> unit class
_UNITS: list[tuple[str, str]] = [
    (r"km/h|kmh|kph|kilometres per hour|kilometers per hour", "kmh"),
    (r"mph|miles per hour", "mph"),
    (r"rpm", "rpm"),
    (r"%|percent|per cent", "pct"),
    (r"bar", "bar"),
    (r"psi", "psi"),
    (r"°\s?c|deg(?:rees)?\s?c?|c\b", "degc"),
    (r"ms|milliseconds?", "ms"),
    (r"s|secs?|seconds?", "s"),
    (r"m|metres?|meters?", "m"),
    (r"g\b", "g"),
    (r"times?", "count"),
]
_UNIT_RE = "|".join(f"(?:{p})" for p, _ in _UNITS)
_LAP_REF = re.compile(
    r"\blaps? (\d+)\b(?![:.]\d)((?:(?:,\s*|\s+and\s+|\s*&\s*|\s+or\s+|\s+vs\.?\s+)(?:lap\s+)?\d+\b(?![:.]\d))*)"
)
_CORNER_REF = re.compile(r"\b(?:(t|c)|turn |corner )(\d+[a-z]?)\b")
_FIGURE = re.compile(
    r"(?<![\w.])(?P<sign>[+\-−])?(?P<num>\d{1,2}:\d{2}(?:\.\d+)?|\d+(?:,\d{3})*(?:\.\d+)?)"
    rf"(?:\s*(?P<unit>{_UNIT_RE})(?![a-z]))?"
)
# a JSON key's unit class, from its suffix
_KEY_UNITS = [  # searched in "_<key>_", so a unit part anywhere counts ("coast_pct_b")
    (r"_kmh_|_kph_|speed", "kmh"),
    (r"_mph_", "mph"),
    (r"rpm", "rpm"),
    (r"_pct_|percent", "pct"),
    (r"_bar_|bar_$", "bar"),
    (r"_psi_", "psi"),
    (r"_c_|temp", "degc"),
    (r"_ms_", "ms"),
    (r"_s_|time|delta|gap|std", "s"),
    (r"_m_|distance|point", "m"),
    (r"_g_", "g"),
    (r"count|_n_|events|times|lockups|wheelspins|presses", "count"),
]


def _unit_class(word: str | None) -> str:
    if not word:
        return ""
    w = word.lower().strip()
    for pat, cls in _UNITS:
        if re.fullmatch(pat, w):
            return cls
    return ""


def _key_class(key: str) -> str:
    k = f"_{key.lower()}_"
    for pat, cls in _KEY_UNITS:
        if re.search(pat, k):
            return cls
    return ""


def _value(num: str) -> tuple[float, int]:
    """(value, decimals cited) of ``1:41.234``, ``98.12`` or ``1,200``."""
    num = num.replace(",", "")
    if ":" in num:
        mm, ss = num.split(":")
        return int(mm) * 60 + float(ss), len(ss.split(".")[1]) if "." in ss else 0
    return float(num), len(num.split(".")[1]) if "." in num else 0


@dataclass
class Facts:
    """What a reply may cite: lap numbers, corner ids (``t11``, ``c3``) and numbers by unit class."""

    laps: set[int] = field(default_factory=set)
    corners: set[str] = field(default_factory=set)
    numbers: list[tuple[float, str]] = field(default_factory=list)  # (value, unit class; "" unknown)

    def add_text(self, text: str) -> None:
        low = (text or "").lower()
        spans: list[tuple[int, int]] = []
        for m in _LAP_REF.finditer(low):
            found = [m.group(1), *re.findall(r"\d+", m.group(2) or "")]
            self.laps.update(int(x) for x in found)
            self.numbers += [(float(x), "") for x in found]
        for m in _CORNER_REF.finditer(low):
            self.corners.add(f"{m.group(1) or ('c' if 'corner' in m.group(0) else 't')}{m.group(2)}")
            spans.append(m.span())
        for m in _FIGURE.finditer(low):
            v, _ = _value(m.group("num"))
            sign = -1.0 if m.group("sign") in ("-", "−") else 1.0
            unit = _unit_class(m.group("unit"))
            if ":" in m.group("num"):
                unit = "s"
            self.numbers.append((sign * v, unit))

    def add_data(self, x: Any, key: str = "") -> None:
        """Facts from a tool's JSON output: a number takes its key's unit class, ``*lap*`` integers are laps."""
        if isinstance(x, dict):
            for k, v in x.items():
                self.add_data(v, str(k))
        elif isinstance(x, list):
            for v in x:
                self.add_data(v, key)
        elif isinstance(x, bool) or x is None:
            return
        elif isinstance(x, int | float):
            if "lap" in key.lower() and float(x).is_integer() and not key.endswith("_s"):
                self.laps.add(int(x))
            self.numbers.append((float(x), _key_class(key)))
        elif isinstance(x, str):
            if key in ("corner", "corner_id", "short") and re.fullmatch(r"[tc]\d+[a-z]?", x.lower()):
                self.corners.add(x.lower())
            self.add_text(x)


def facts_of(evidence: str | None = None, data: list[Any] | None = None) -> Facts:
    f = Facts()
    if evidence:
        f.add_text(evidence)
    for d in data or []:
        f.add_data(d)
    return f


def _supported(value: float, nd: int, signed: bool, unit: str, facts: Facts) -> bool:
    tol = 0.5 * 10**-nd + 1e-9
    cands: list[float] = []
    for x, cls in facts.numbers:
        if unit and not cls:  # "7 %" is not supported by a lap number 7: a cited unit needs a fact in it
            continue
        if unit and cls != unit:
            if unit == "mph" and cls == "kmh":
                x = x / MPH_KMH
            elif unit == "kmh" and cls == "mph":
                x = x * MPH_KMH
            elif unit == "psi" and cls == "bar":
                x = x / PSI_BAR
            elif unit == "ms" and cls == "s":
                x = x * 1000
            elif unit == "s" and cls == "ms":
                x = x / 1000
            else:
                continue
        cands.append(x)
    if signed:
        return any(abs(x - value) <= tol for x in cands)
    return any(abs(abs(x) - value) <= tol for x in cands)


def grounding_check(text: str, facts: Facts) -> list[str]:
    """Every lap, corner and figure (with its unit as cited) in ``text`` that the facts do not support."""
    bad: list[str] = []
    low = (text or "").lower()
    taken: list[tuple[int, int]] = []
    for m in _LAP_REF.finditer(low):
        taken.append(m.span())
        for n in [m.group(1), *re.findall(r"\d+", m.group(2) or "")]:
            if int(n) not in facts.laps:
                bad.append(f"lap {n}")
    for m in _CORNER_REF.finditer(low):
        taken.append(m.span())
        # "T6" and "C6" are ids and must match; "turn 6" and "corner 6" are words for either
        ids = [m.group(1) + m.group(2)] if m.group(1) else ["t" + m.group(2), "c" + m.group(2)]
        if not facts.corners.intersection(ids):
            bad.append(ids[0].upper() if m.group(1) or "turn" in m.group(0) else ids[1].upper())
    for m in _FIGURE.finditer(low):
        if any(a <= m.start() < b for a, b in taken):
            continue
        value, nd = _value(m.group("num"))
        unit = "s" if ":" in m.group("num") else _unit_class(m.group("unit"))
        sign = m.group("sign")
        signed = sign is not None
        if sign in ("-", "−"):
            value = -value
        if not _supported(value, nd, signed, unit, facts):
            bad.append(m.group(0).strip())
    return sorted(set(bad))
