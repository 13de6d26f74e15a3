"""The outside answer eval's items (``tests/eval/``): driver phrasings taken from public forums and coaching
material, each ``{text, kind, session, slots, source}``, and what a correct answer to each holds, computed
from the raw files (``tests/support/truth.py``, ``truth_corners.py``), never by Pitwall.

An item file is YAML: ``source`` (the page the phrasings come from: ``title`` and ``url``), ``batch`` (the
gathering it came from, 1 when absent: each batch is split on its own) and ``items``; an item's own ``source``
overrides the file's. ``before``: the earlier turns of a follow-up, asked first in the same conversation
(the item's ``text`` is the turn scored). ``slots``: ``laps`` (numbers, or ``best``, ``slowest``, ``last``,
``second_best``, ``before_best``), ``corner`` (``t6``), ``channel``/``how``/``unit`` (a raw channel's
max or min), ``about`` (what was not recorded, a regex). Kinds and their truth: see ``_BUILD``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tests.support.answer_eval import Expect, Fig
from tests.support.answer_expect import (
    at_corners,
    channel,
    consistency,
    lap_time,
    lose_time,
    mean_lap,
    oil_drop,
    restraint,
    rpm,
    theo,
    times,
    top,
    vs,
)
from tests.support.answer_questions import Question
from tests.support.truth import SessionTruth
from tests.support.truth_corners import corners, sector_table, slowest_point

EVAL_DIR = Path(__file__).resolve().parents[1] / "eval"
SESSIONS = ("sim", "vbox", "kart", "agx")
SONOMA = ("sim", "vbox")  # the sessions on the track whose corners truth_corners knows
SECTOR_TOL_S = 0.15  # our own sector lines come from our own odometer: a metre or two from Pitwall's
CORNER_SPEED_TOL_KMH = 3.0  # our own corner zones come from our own odometer: a sample or two from Pitwall's
_DENY_ALARM = r"\bno (?:warnings?|alarms?)\b|(?:were|was|had) no .{0,20}(?:warning|alarm)"


@dataclass(frozen=True)
class Item:
    text: str
    kind: str
    session: str
    slots: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # the page's title and address
    file: str = ""  # the item file it came from (its stem)
    batch: int = 1  # the gathering it came from (qeval_split splits each on its own)
    before: tuple[str, ...] = ()  # a follow-up's earlier turns, asked first in the same conversation


def _source(s: Any) -> str:
    if isinstance(s, dict):
        return " — ".join(str(s[k]) for k in ("title", "url") if s.get(k))
    return str(s or "")


def load(folder: Path) -> list[Item]:
    """Every item of every ``*.yaml`` file under ``folder``, in file then item order."""
    out: list[Item] = []
    for path in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for raw in doc["items"]:
            src = _source(raw.get("source")) or _source(doc["source"])
            it = Item(raw["text"], raw["kind"], raw["session"], raw.get("slots") or {}, src, path.stem)
            out.append(replace(it, batch=doc.get("batch", 1), before=tuple(raw.get("before") or ())))
    return out


def lap_of(st: SessionTruth, ref: int | str) -> int:
    """A lap as a driver names it: a number, or the session's best, slowest, last, second best racing lap,
    or the racing lap just before the best."""
    if isinstance(ref, int):
        return ref
    racing = st.racing
    by_time = sorted(racing, key=lambda lp: lp.time_s)
    named: dict[str, Callable[[], int]] = {
        "best": lambda: by_time[0].lap,
        "second_best": lambda: by_time[1].lap,
        "slowest": lambda: by_time[-1].lap,
        "last": lambda: racing[-1].lap,
        "before_best": lambda: max(lp.lap for lp in racing if lp.lap < by_time[0].lap),
    }
    return named[ref]()


def _laps(st: SessionTruth, slots: dict[str, Any]) -> list[int]:
    return [lap_of(st, x) for x in slots.get("laps", [])]


def _one(st: SessionTruth, slots: dict[str, Any]) -> int | None:
    laps = _laps(st, slots)
    return laps[0] if laps else None


def _vs(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    laps = _laps(st, slots)
    a, b = laps if len(laps) == 2 else (laps[0], st.best.lap)  # "why was lap 5 slower?": against the best
    return vs(st, a, b)


def _within(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """How many racing laps were within ``within`` seconds of the best (the best itself counted or not)."""
    n = sum(lp.time_s - st.best.time_s <= float(slots["within"]) for lp in st.racing)
    return Expect(words=[rf"\b(?:{n}|{n - 1})\b"], check={"time": times(st)})


def _median_gap(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    r = [lp.time_s for lp in st.racing]
    gap = float(np.median(r)) - st.best.time_s
    return Expect(need=[[Fig("gap", gap), Fig("time", float(np.median(r)))]], check={"time": times(st)})


def _top_speed(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """A lap's (or the session's) highest speed. A true corner minimum of that lap or of the best lap, named
    beside it (a follow-up read as a lap comparison), is off the point, not wrong (so a wrong top speed that
    happens to equal one of them scores evasive, never correct)."""
    lap = _one(st, slots)
    e = top(st, lap)
    if st.name in SONOMA:
        laps = {n for n in (lap, st.best.lap) if n is not None}
        e.check["kmh"] += [slowest_point(st, n, c)[0] for n in laps for c in corners()]
    return e


def _corner_speed(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    lap = _one(st, slots)
    assert lap is not None, "a corner speed item names its lap"
    vmin, _ = slowest_point(st, lap, slots["corner"])
    return Expect(need=[[Fig("kmh", vmin)]], tol={"kmh": CORNER_SPEED_TOL_KMH})


def _sector_vs_best(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """A lap's sector against the session's best of that sector (sector 1 runs from the line to the first
    corner's entry): the difference, or the lap's own sector time."""
    laps, tab = sector_table(st)
    col = tab[:, int(slots["sector"]) - 1]
    mine = float(col[laps.index(_one(st, slots) or 0)])
    return Expect(need=[[Fig("gap", mine - float(col.min())), Fig("gap", mine)]], tol={"gap": SECTOR_TOL_S})


def _braking(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """A brake point the simulator moved at ``corner``: where the driver braked, or how far from the clean
    point, on the lap asked (every such lap when none is named)."""
    corner, lap = slots["corner"], _one(st, slots)
    moved = [
        e
        for e in st.events
        if e["corner_id"] == corner and e["kind"] in ("late_brake", "early_brake") and "brake_shift_m" in e
    ]
    asked = [e for e in moved if lap is None or e["lap"] == lap]
    figs = [Fig("m", e[k]) for e in asked for k in ("brake_point_m", "brake_shift_m")]
    points = [e[k] for e in moved for k in ("brake_point_m", "brake_shift_m", "clean_brake_point_m")]
    points += [abs(a["brake_point_m"] - b["brake_point_m"]) for a in moved for b in moved]  # lap against lap
    # the same brake points said in driver terms: metres before the corner's apex, or from its brake marker
    # (the track's reference positions, read from its file, never computed by Pitwall)
    apex, marker = _reference_points(corner)
    onsets = [e[k] for e in moved for k in ("brake_point_m", "clean_brake_point_m")]
    points += [abs(ref - bp) for ref in (apex, marker) if ref is not None for bp in onsets]
    return Expect(need=[figs], check={"m": points})


def _reference_points(corner: str) -> tuple[float | None, float | None]:
    """The simulated track's (Sonoma's) apex and brake-marker positions of ``corner``, from its track file."""
    track = yaml.safe_load((Path(__file__).parents[2] / "shared/profiles/tracks/sonoma.yaml").read_text())
    for c in track["corners"]:
        if c["id"] == corner:
            marker = c.get("brake_marker") or {}
            return c.get("apex_m"), marker.get("dist_m")
    return None, None


def _gear(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """The raw gear at the corner's slowest point: on the lap asked, else the most common one over the
    racing laps."""
    lap = _one(st, slots)
    laps = [lap] if lap is not None else [lp.lap for lp in st.racing]
    gears = [int(round(slowest_point(st, n, slots["corner"], "Gear")[1] or 0)) for n in laps]
    g = max(set(gears), key=gears.count)
    return Expect(words=[rf"\b{g}(?:st|nd|rd|th)? gear\b|\bgear {g}\b"])


_PSI_BAR = 0.0689476  # 1 psi in bar


def _kin(st: SessionTruth, unit: str) -> list[float]:
    """Every lap's and the session's highest and lowest of each of the file's temperatures (``c``) or
    pressures (``bar``), read from the raw channels (a channel only in °F or psi converted): an answer
    about the coolant when asked about the oil, or about every reading at once, says true figures."""
    kin = {"c": "Temp", "bar": "Press"}.get(unit)
    out: list[float] = []
    for name in st.channels:
        if not kin or kin not in name:
            continue
        vals = [f(name, lp) for lp in (*st.laps, None) for f in (st.channel_max, st.channel_min)]
        out += [_metric(name, v) for v in vals]
    return out


def _metric(name: str, v: float) -> float:
    """A raw reading in °C or bar: a channel the file gives only in °F or psi, converted."""
    return (v - 32.0) / 1.8 if "(F)" in name else v * _PSI_BAR if "psi" in name else v


def _channel(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """A raw channel's highest or lowest. Any true reading of the file's other temperatures (pressures) is
    true too: an answer about the coolant when asked about the oil is off the point, not wrong."""
    e = channel(st, slots["channel"], slots["how"], _one(st, slots), slots["unit"], slots.get("conv", 1.0))
    if slots["unit"] in ("c", "bar"):
        e.check[slots["unit"]] += _kin(st, slots["unit"])
    return e


def _health(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """Engine health ("oil and water look fine?"): the coolant's highest or the oil pressure's lowest; the
    file's other temperatures and pressures, said beside them ("at a glance": every vital), are true too."""
    cool = channel(st, slots["coolant"], "max", None, "c")
    oil = channel(st, slots["oil"], "min", None, "bar")
    check = {"c": cool.check["c"] + _kin(st, "c"), "bar": oil.check["bar"] + _kin(st, "bar")}
    return Expect(need=[cool.need[0] + oil.need[0]], check=check)


def _oil_drop(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    e = oil_drop(st, r"\bno (?:oil )?(?:pressure )?(?:drop|problem|issue)")
    assert e is not None, "the eval's seed draws an oil pressure drop"
    return e


def _alarms(st: SessionTruth, slots: dict[str, Any]) -> Expect:
    """The file's own TPMS alarm channels: a tyre warning was raised (the simulator's only alarm)."""
    raised = [c for c in st.channels if c.startswith("TPMS Alarm") and np.nanmax(st.channels[c]) > 0.5]
    assert raised, "the eval's seed raises a TPMS alarm"
    return Expect(words=[r"tyre|tire|tpms"], forbid=_DENY_ALARM)


def _at(kind: str, deny: str) -> Callable[[SessionTruth, dict[str, Any]], Expect]:
    def build(st: SessionTruth, slots: dict[str, Any]) -> Expect:
        e = at_corners(st, kind, deny)
        assert e is not None, f"the eval's seed draws {kind}"
        return e

    return build


def _restraint(kind: str) -> Callable[[SessionTruth, dict[str, Any], str], Expect]:
    def build(st: SessionTruth, slots: dict[str, Any], text: str) -> Expect:
        if kind == "no_lap":
            n = _laps(st, slots)[0]
            return restraint(kind, text, st, rf"\blaps? (?:[\d, and]+ )?{n}\b")
        about = slots.get("about", r"\b(?:best|fastest|fasted)\b" if kind == "no_such" else None)
        return restraint(kind, text, st, about)

    return build


_BUILD: dict[str, Callable[[SessionTruth, dict[str, Any]], Expect]] = {
    "lap_time": lambda st, sl: lap_time(st, _one(st, sl) or 0),
    "best_lap": lambda st, sl: lap_time(st, st.best.lap, r"best|fastest|quickest"),
    "slowest_lap": lambda st, sl: lap_time(st, st.slowest.lap, r"slow|worst"),
    "average_lap": lambda st, sl: mean_lap(st),
    "lap_vs_lap": _vs,
    "top_speed": _top_speed,
    "rpm": lambda st, sl: rpm(st, _one(st, sl)),
    "consistency": lambda st, sl: consistency(st),
    "laps_within": _within,
    "median_gap": _median_gap,
    "theoretical_best": lambda st, sl: theo(st),
    "lose_time": lambda st, sl: lose_time(st),
    "corner_speed": _corner_speed,
    "sector_vs_best": _sector_vs_best,
    "braking": _braking,
    "gear": _gear,
    "channel": _channel,
    "health": _health,
    "oil_drop": _oil_drop,
    "alarms": _alarms,
    "lockup": _at("lockup", r"\bno lock ?ups?\b|(?:didn't|did not) lock"),
    "coasting": _at("coasting", r"\bno coast"),
}
_RESTRAINT = {
    "no_such_lap": _restraint("no_lap"),
    "no_valid_lap": _restraint("no_such"),  # a session with no complete lap (the XRK's one out lap)
    "not_recorded": _restraint("not_recorded"),
}
KINDS = frozenset(_BUILD) | frozenset(_RESTRAINT) | {"other_session"}


def other_session(t: dict[str, SessionTruth], sess: str) -> Expect:
    """The same driver's other session at the track (the VBOX and the simulated one): its best, or the gap."""
    mine, other = t[sess], t["vbox" if sess == "sim" else "sim"]
    gap = abs(mine.best.time_s - other.best.time_s)
    return Expect(
        need=[[Fig("time", other.best.time_s), Fig("gap", gap)]], check={"time": times(mine, other)}
    )


def expect(item: Item, t: dict[str, SessionTruth]) -> Expect:
    st = t[item.session]
    if item.kind == "other_session":
        return other_session(t, item.session)
    if item.kind in _RESTRAINT:
        return _RESTRAINT[item.kind](st, item.slots, item.text)
    e = _BUILD[item.kind](st, item.slots)
    if item.session in ("sim", "vbox") and "time" in e.check:  # the same driver's other session: true too
        e.check["time"] = [*e.check["time"], *times(t["vbox" if item.session == "sim" else "sim"])]
    return e


def questions(items: list[Item], t: dict[str, SessionTruth], half: str) -> list[Question]:
    """The items as the answer eval's questions (``answer_run.run`` asks and scores them)."""
    return [
        Question(f"{half}-{it.file}-{i:03d}", it.kind, it.session, it.text, expect(it, t), it.before)
        for i, it in enumerate(items)
    ]
