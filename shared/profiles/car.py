"""Car profiles: how a car's logger channels become Pitwall's canonical signals.

A profile gives the channel mapping, unit conversion, sign flips and calibration bias, the "no reading"
sentinels to drop, vehicle constants (for gear derivation and the bicycle model) and RuleCoach
threshold overrides. Profiles are YAML files in ``shared/profiles/cars/`` or the driver's own in
``<data>/profiles/cars/``, always named, never given as a path (a name is letters, digits, '_' and '-').
"""

from __future__ import annotations

import math
import re
import warnings
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from shared.channel_map import Decision, UserMap, resolve
from shared.channel_spec import live_rule_spec, profile_spec
from shared.channel_wide import build_wide
from shared.importers.base import RawLog
from shared.signals import CHANNEL_BY_NAME, WIDE_COLUMNS, MutableWide, Wide
from shared.units import source_unit

RegistryRow = dict[str, Any]

_CARS_DIR = "cars"
PROFILE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"  # no separators, no dots: a name, never a path
_PROFILE_NAME = re.compile(PROFILE_NAME)


#: signals Pitwall computes when no channel feeds them, and from what (shown as their source)
DERIVED_FROM: dict[str, str] = {
    "g_combo": "derived from g_lat and g_long",
    "gear": "derived from rpm over rear wheel (or GPS) speed and the gear ratios",
    "brake_pct": "derived from brake_bar as a share of the session's peak pressure",
}


class CarProfileError(ValueError):
    """A car profile file is missing or invalid; the message names the file and the field."""


class GearModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ratios: list[float] = Field(min_length=1)
    final_drive: float = Field(gt=0)
    tyre_circumference_m: float = Field(gt=0.5, lt=4.0)
    min_speed_kmh: float = 5.0


class VehicleConstants(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # what the vehicle is, when the profile says: a kart has no ABS, DSC, warning light, TPMS, oil or fuel
    # pressure, an electric car no engine oil, fuel or engine warning light, so "not recorded" never names
    # them (unset: the session's data decides, services/paddock/tools/vehicle.py)
    kind: Literal["car", "kart", "electric"] | None = None
    wheelbase_m: float = Field(2.6, gt=0.5, lt=6)
    steering_ratio: float = Field(15.0, gt=1, lt=40)
    mass_kg: float = Field(1400, gt=50, lt=5000)
    power_kw: float = Field(200, gt=1, lt=2000)
    max_g_lat: float = Field(1.1, gt=0.2, lt=5)
    max_g_brake: float = Field(1.1, gt=0.2, lt=5)
    max_g_accel: float = Field(0.5, gt=0.05, lt=3)
    redline_rpm: float = Field(7000, gt=1000, lt=25000)
    gears: GearModel | None = None


class ChannelMap(BaseModel):
    """One canonical signal and the source channel names that can feed it (first present wins)."""

    model_config = ConfigDict(extra="forbid")
    canonical: str
    sources: list[str] = Field(min_length=1)
    unit: str | None = None  # fallback source unit, used only when the file declares none it can convert
    scale: float = 1.0  # applied after unit conversion
    bias: float = 0.0  # calibration offset, canonical units, applied last
    sign_flip: bool = False
    sentinels: list[float] = Field(default_factory=list)  # raw "no reading" values, dropped to NULL
    valid_range: tuple[float, float] | None = None  # canonical values outside are dropped to NULL
    hold: bool = False  # flags / bitfields: hold the previous value instead of interpolating

    @field_validator("canonical")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in CHANNEL_BY_NAME:
            raise ValueError(f"unknown canonical signal {v!r}; see shared/signals.py")
        return v


class CarProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    name: str
    vehicle: VehicleConstants = Field(default_factory=VehicleConstants)
    channels: list[ChannelMap] = Field(default_factory=list)  # exact names; the rule table does the rest
    thresholds: dict[str, float] = Field(default_factory=dict)
    dbc: str | None = None
    source_path: str | None = None

    # ---- lookup ------------------------------------------------------------
    def _source_index(self) -> dict[str, ChannelMap]:
        idx: dict[str, ChannelMap] = {}
        for cm in self.channels:
            for s in cm.sources:
                idx.setdefault(s.lower(), cm)
        return idx

    def dbc_path(self) -> Path | None:
        if not self.dbc:
            return None
        return Path(str(resources.files("shared.profiles").joinpath(_CARS_DIR, self.dbc)))

    def plan(self, raw: RawLog, user: UserMap | None = None) -> list[Decision]:
        """What each channel of ``raw`` feeds and why: user mapping, then this profile, then the rules."""
        return resolve(raw.channels, raw.source_format, self.channels, user)

    # ---- transforms ----------------------------------------------------------
    def _apply(self, cm: ChannelMap, values: np.ndarray, unit: str) -> np.ndarray:
        target = CHANNEL_BY_NAME[cm.canonical].unit
        return profile_spec(cm, source_unit(unit, cm.unit, target)).apply(values)

    def to_wide(
        self, raw: RawLog, rate_hz: float | None = None, user: UserMap | None = None
    ) -> tuple[MutableWide, list[RegistryRow]]:
        """Every mapped channel on one time grid in canonical units (sentinels NaN), derived signals
        filled, and the registry: per channel what it feeds and why (:mod:`shared.channel_wide`)."""
        wide, registry = build_wide(raw, self.plan(raw, user), rate_hz)
        self.derive(wide)
        return wide, registry

    def derive(self, wide: MutableWide) -> None:
        """Fill derived signals: combined g, gear from RPM over rear wheel speed, brake %."""
        n = len(wide["t_s"])
        if "g_combo" not in wide and "g_lat" in wide and "g_long" in wide:
            wide["g_combo"] = np.hypot(wide["g_lat"], wide["g_long"])
        gears = self.vehicle.gears
        gear = wide.get("gear")
        if (
            gears
            and "rpm" in wide
            and (gear is None or np.all(np.isnan(gear)) or np.nanmax(np.abs(gear)) == 0)
        ):
            wide["gear"] = derive_gear(wide, gears)
        if "brake_pct" not in wide and "brake_bar" in wide:
            b = wide["brake_bar"]
            peak = np.nanpercentile(b, 99.5) if np.isfinite(b).any() else np.nan
            wide["brake_pct"] = np.clip(b / peak * 100.0, 0, 100) if peak and peak > 0 else np.full(n, np.nan)

    def map_sample(self, values: dict[str, float]) -> tuple[dict[str, float], list[str]]:
        """Live: source-name values -> canonical values, and the names dropped (sentinel or unknown).
        Names the profile does not list go through the rule table, their values taken in canonical units."""
        idx = self._source_index()
        out: dict[str, float] = {}
        dropped: list[str] = []
        for name, val in values.items():
            cm = idx.get(name.lower())
            if cm is None:
                if name in CHANNEL_BY_NAME:
                    out[name] = float(val)
                    continue
                spec = live_rule_spec(name)
                if spec is None:
                    dropped.append(name)
                    continue
                v = float(spec.apply(np.array([val], dtype=np.float64))[0])
                canonical = spec.canonical
            else:
                v = float(self._apply(cm, np.array([val], dtype=np.float64), cm.unit or "")[0])
                canonical = cm.canonical
            if math.isnan(v):
                dropped.append(name)
            else:
                out[canonical] = v
        return out, dropped

    def threshold(self, name: str, default: float) -> float:
        return float(self.thresholds.get(name, default))


def derive_gear(wide: Wide, gears: GearModel) -> np.ndarray:
    rear = [wide[k] for k in ("wheel_speed_rl_kmh", "wheel_speed_rr_kmh") if k in wide]
    with warnings.catch_warnings():  # rows where neither rear wheel has a reading stay NaN (no gear)
        warnings.simplefilter("ignore", RuntimeWarning)
        speed = np.nanmean(np.vstack(rear), axis=0) if rear else wide.get("speed_kmh")
    if speed is None:
        return np.full(len(wide["t_s"]), np.nan)
    rpm = wide["rpm"]
    with np.errstate(divide="ignore", invalid="ignore"):
        wheel_rpm = speed / 3.6 / gears.tyre_circumference_m * 60.0
        overall = rpm / wheel_rpm / gears.final_drive
    ratios = np.asarray(gears.ratios)
    idx = np.nanargmin(np.abs(np.nan_to_num(overall, nan=1e9)[:, None] - ratios[None, :]), axis=1)
    gear = (idx + 1).astype(np.float64)
    bad = ~np.isfinite(overall) | (speed < gears.min_speed_kmh) | (rpm < 500)
    gear[bad] = np.nan
    return gear


def user_cars_dir(data_dir: Path) -> Path:
    """Where a driver's own car profiles live: ``<data>/profiles/cars/<name>.yaml``."""
    return data_dir / "profiles" / _CARS_DIR


def load_car(car_id: str, data_dir: Path | None = None) -> CarProfile:
    """A car profile by name: shipped with Pitwall, else ``<data>/profiles/cars/<name>.yaml`` (``data_dir``
    defaults to the settings'). A path, or a name with a separator, is refused (KeyError naming the
    profiles there are); an invalid YAML file is a CarProfileError naming the file and the field."""
    if not isinstance(car_id, str) or not _PROFILE_NAME.match(car_id):
        raise KeyError(
            f"car profile {car_id!r} is not a profile name (letters, digits, '_' or '-'; no path); "
            f"available: {', '.join(list_cars())}"
        )
    if car_id in list_cars():
        return _shipped(car_id)
    if data_dir is None:
        from shared.settings import get_settings

        data_dir = get_settings().data_dir
    p = user_cars_dir(data_dir) / f"{car_id}.yaml"
    if not p.is_file():
        raise KeyError(
            f"unknown car profile {car_id!r}; available: {', '.join(list_cars())} "
            f"(or your own in {user_cars_dir(data_dir)})"
        )
    st = p.stat()
    return _user(str(p), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _shipped(car_id: str) -> CarProfile:
    res = resources.files("shared.profiles").joinpath(_CARS_DIR, f"{car_id}.yaml")
    return _parse(res.read_text(encoding="utf-8"), str(res), car_id)


@lru_cache(maxsize=32)
def _user(path: str, mtime_ns: int, size: int) -> CarProfile:  # keyed by mtime: an edit is picked up
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CarProfileError(f"{path}: cannot be read: {exc}") from exc
    return _parse(text, path, Path(path).stem)


def _parse(text: str, where: str, name: str) -> CarProfile:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CarProfileError(f"{where}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise CarProfileError(f"{where}: expected a mapping at the top level")
    try:
        prof = CarProfile.model_validate({**data, "source_path": where})
    except ValidationError as exc:
        fields = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise CarProfileError(f"{where}: invalid car profile: {fields}") from exc
    if prof.id != name:  # the id is stored with every session and looked up again by name
        raise CarProfileError(f"{where}: id: {prof.id!r} must be the file's name, {name!r}")
    return prof


def list_cars() -> list[str]:
    d = resources.files("shared.profiles").joinpath(_CARS_DIR)
    return sorted(p.name[:-5] for p in d.iterdir() if p.name.endswith(".yaml"))


def guess_car(raw: RawLog) -> str:
    """The E46 profile for CAN logs decoded with its DBC, else the generic profile."""
    return "bmw_e46_m3_aim_mxp" if raw.source_format == "candump" else "generic"


__all__ = [
    "PROFILE_NAME",
    "WIDE_COLUMNS",
    "CarProfile",
    "CarProfileError",
    "guess_car",
    "list_cars",
    "load_car",
    "user_cars_dir",
]
