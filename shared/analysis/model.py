"""The session analysis' data: one ``CornerLap`` per corner and valid full lap, and its Arrow table
(``corner_analysis`` in the hot store, ``analysis.parquet`` beside the session in the lake)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import pyarrow as pa

NAN = float("nan")

#: the reference every loss is measured against, in the driver's words
TYPICAL = "your good laps"
BEST = "your best at this corner"
#: how a corner's segment is cut from the next one
SPLIT_RULE = "the top speed between the two corners on your typical lap"

#: every cause the rules name (``shared.analysis.causes``), in the driver's words
OFF = "off"  # a stop, a spin or an off: reported, never ranked as time to find
CAUSE_WORDS = {
    OFF: "a spin, an off or a stop",
    "lockup": "a lockup under braking",
    "wheelspin": "wheelspin on the exit",
    "coasting": "coasting between throttle and brake",
    "early_brake": "braking early",
    "late_brake": "braking late and running in deep",
    "slow_minimum": "a slow minimum speed",
    "weak_exit": "a weak exit",
    "unexplained": "time lost with no single input to blame",
}


@dataclass
class CornerLap:
    """One corner on one valid full lap. Distances are lap distances of the corner's lap (``from_m`` < 0:
    on the lap before, ``to_m`` > the lap's length: on the lap after)."""

    lap: int
    corner_id: str
    corner: str  # "T3": the one name a driver reads
    seq: int  # driving order
    from_m: float
    to_m: float
    time_s: float  # this lap's time over [from_m, to_m]
    typical_s: float  # your typical lap's time over the same stretch
    best_s: float  # your best time at this corner (over its usual segment, any valid lap)
    good_s: float  # your good laps' time at this corner (over its usual segment)
    inherited_s: float  # lost here to the previous corner's exit: moved to that corner
    loss_s: float  # time to find at this corner on this lap (the one definition)
    entry_kmh: float = NAN
    brake_m: float = NAN
    lift_m: float = NAN
    coast_s: float = NAN
    min_kmh: float = NAN
    pickup_m: float = NAN
    exit_kmh: float = NAN
    lockup_s: float = NAN  # NaN: no wheel speeds recorded
    wheelspin_s: float = NAN
    slip_kmh: float = NAN
    turn_in_bar: float = NAN  # brake pressure at the corner's entry (NaN: no pressure channel or no braking)
    release_m: float = NAN  # where the brake came off after the brake point (lap distance)
    typ_brake_m: float = NAN
    typ_coast_s: float = NAN
    typ_min_kmh: float = NAN
    typ_pickup_m: float = NAN
    typ_exit_kmh: float = NAN
    cause: str = ""  # a key of CAUSE_WORDS when the lap lost time here, else ""
    evidence: str = ""  # the cause in driver words, with both numbers

    @property
    def off(self) -> bool:
        """A stop, a spin or an off here: said, never ranked as time to find."""
        return self.cause == OFF


COLUMNS = [f.name for f in fields(CornerLap)]
_STR = {"corner_id", "corner", "cause", "evidence"}
_INT = {"lap", "seq"}


def arrow_schema() -> pa.Schema:
    return pa.schema(
        [pa.field("session_id", pa.string())]
        + [
            pa.field(c, pa.string() if c in _STR else pa.int32() if c in _INT else pa.float64())
            for c in COLUMNS
        ]
    )


def ddl() -> str:
    """The ``corner_analysis`` table (hot store; ``analysis.parquet`` in the lake)."""
    sql = {pa.string(): "VARCHAR", pa.int32(): "INTEGER", pa.float64(): "DOUBLE"}
    cols = ",\n".join(f"    {f.name} {sql[f.type]}" for f in arrow_schema())
    return f"CREATE TABLE IF NOT EXISTS corner_analysis (\n{cols}\n)"


def to_table(session_id: str, rows: Iterable[CornerLap]) -> pa.Table:
    """The rows as Arrow (NaN stored as NULL)."""
    data: dict[str, list[Any]] = {"session_id": []} | {c: [] for c in COLUMNS}
    for r in rows:
        data["session_id"].append(session_id)
        for c, v in asdict(r).items():
            data[c].append(None if isinstance(v, float) and not math.isfinite(v) else v)
    return pa.Table.from_pydict(data, schema=arrow_schema())


def from_records(records: Iterable[Mapping[str, Any]]) -> list[CornerLap]:
    """Rows read back from the lake (NULL -> NaN), in lap and driving order."""
    out = []
    for rec in records:
        kw: dict[str, Any] = {}
        for c in COLUMNS:
            v = rec.get(c)
            if c in _STR:
                kw[c] = v or ""
            elif c in _INT:
                kw[c] = int(v or 0)
            else:
                kw[c] = NAN if v is None else float(v)
        out.append(CornerLap(**kw))
    return sorted(out, key=lambda r: (r.lap, r.seq))


def finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)
