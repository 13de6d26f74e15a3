"""A logger's own alarm channels: a 0/1 or bitfield channel whose name or unit says alarm, warning, warn
or ALM (a kart's ``Water Temp Alarm``, a dash's ``OilPressWarn``). They are not wide columns: they stay in
``telemetry_signals`` by their own name, and the one event detector (``shared.event_detect``) makes each time
one is set an ``alarm`` event. Channels mapped to a wide flag or TPMS alarm column are the detector's
already and are left out here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from shared.channel_names import alarm_subject, normalise_name
from shared.channel_wide import resample
from shared.importers import RawLog

# wide columns the detector reads as flags or alarms itself: a channel mapped to one is not counted twice
_DETECTOR_COLUMNS = ("abs_active", "dsc_active", "mil", "tpms_alarm_")


def detector_column(canonical: object) -> bool:
    """A channel mapped to this wide column is a flag or TPMS alarm the detector reads itself."""
    return str(canonical or "").startswith(_DETECTOR_COLUMNS)


def named_alarm(name: str, unit: str = "") -> bool:
    """The channel's name or unit says alarm, warning, warn or ALM (any case, camel case split)."""
    return any(alarm_subject(normalise_name(x)[0]) is not None for x in (name, unit or ""))


def is_alarm_channel(name: str, unit: str, values: np.ndarray) -> bool:
    """Named (or unit-labelled) as an alarm or warning, and every reading a whole number >= 0 (off, on
    or a bitfield): a channel named "alarm" holding temperatures is a threshold setting, not an alarm."""
    if not named_alarm(name, unit):
        return False
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return bool(len(v)) and bool(np.all(v >= 0) and np.all(v == np.round(v)) and v.max() <= 65535)


def alarm_name(name: str) -> str:
    """An alarm channel as a driver reads it: ``Water_Temp_Alarm`` -> ``water temp alarm``."""
    return normalise_name(name)[0]


def alarm_signals(
    raw: RawLog, grid: np.ndarray, registry: Iterable[Mapping[str, object]] = ()
) -> dict[str, np.ndarray]:
    """Each alarm channel of ``raw`` held onto the session's time ``grid`` (NaN where it has no
    reading), by its name in the file; ``registry`` (the car profile's mapping rows) names the channels
    already mapped to a flag or TPMS alarm column."""
    mapped = {str(r.get("name")) for r in registry if detector_column(r.get("canonical"))}
    out: dict[str, np.ndarray] = {}
    for name, ch in raw.channels.items():
        if name in mapped or not is_alarm_channel(name, ch.unit, ch.values):
            continue
        out[name] = resample(ch.t_s, np.asarray(ch.values, dtype=np.float64), grid, hold=True)
    return out
