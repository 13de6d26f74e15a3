"""AiM MXP CAN2 broadcast: decode frames to DBC signals, encode canonical rows back to frames.

Used by the candump importer, the hot path's CAN reader, the simulator and ``pitwall replay --to can:``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shared.importers.errors import ImportFormatError
from shared.profiles.car import CarProfile
from shared.units import conversion

#: broadcast rate of each frame id, Hz (AiM MXP CAN2 output)
FRAME_RATES_HZ: dict[int, float] = {
    0x420: 10,
    0x421: 50,
    0x422: 50,
    0x423: 50,
    0x424: 50,
    0x450: 10,
    0x451: 10,
    0x452: 20,
    0x453: 1,
    0x454: 1,
    0x455: 1,
    0x456: 2,
}


class CanFrameError(ValueError):
    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason  # "dlc" | "unknown_id"
        super().__init__(message)


class AimMxpCodec:
    def __init__(self, car: CarProfile) -> None:
        import cantools

        path = car.dbc_path()
        if path is None:
            raise ValueError(f"car profile {car.id!r} has no DBC; CAN needs one (e.g. bmw_e46_m3_aim_mxp)")
        self.car = car
        db = cantools.database.load_file(str(path))
        if not isinstance(db, cantools.database.can.Database):
            raise ValueError(f"{path} is not a CAN database")
        self.db = db
        self._by_id = {m.frame_id: m for m in self.db.messages}
        self._units = {s.name: (s.unit or "") for m in self.db.messages for s in m.signals}
        # canonical -> (dbc signal, message) for encoding, via the car profile's mapping
        self._enc: dict[str, tuple[str, Any]] = {}
        sig_to_msg = {s.name: m for m in self.db.messages for s in m.signals}
        for cm in car.channels:
            for src in cm.sources:
                if src in sig_to_msg and cm.canonical not in self._enc:
                    self._enc[cm.canonical] = (src, sig_to_msg[src])
        self._cm = {cm.canonical: cm for cm in car.channels}

    @property
    def frame_ids(self) -> list[int]:
        return sorted(self._by_id)

    def unit(self, signal: str) -> str:
        return self._units.get(signal, "")

    def decode(self, can_id: int, data: bytes) -> dict[str, float]:
        msg = self._by_id.get(can_id)
        if msg is None:
            raise CanFrameError("unknown_id", f"CAN id 0x{can_id:03x} is not in the {self.car.id} DBC")
        if len(data) != msg.length:
            raise CanFrameError("dlc", f"CAN id 0x{can_id:03x}: DLC {len(data)}, expected {msg.length}")
        vals = msg.decode(bytes(data), decode_choices=False, scaling=True)
        if not isinstance(vals, dict):
            raise CanFrameError("dlc", f"CAN id 0x{can_id:03x}: undecodable payload")
        return {k: float(v) for k, v in vals.items()}  # type: ignore[arg-type]

    def encode_wide_row(self, row: dict[str, float], ids: list[int] | None = None) -> list[tuple[int, bytes]]:
        """Canonical values -> frames. Missing values are sent as the signal's 'no reading' sentinel."""
        frames: list[tuple[int, bytes]] = []
        wanted = set(ids) if ids is not None else None
        per_msg: dict[int, dict[str, float]] = {}
        for canon, (sig, msg) in self._enc.items():
            if wanted is not None and msg.frame_id not in wanted:
                continue
            v = row.get(canon)
            cm = self._cm[canon]
            signal = msg.get_signal_by_name(sig)
            if v is None or v != v:  # NaN -> sentinel / zero
                raw_v = cm.sentinels[0] if cm.sentinels else 0.0
            else:
                raw_v = float(v) - cm.bias
                if cm.sign_flip:
                    raw_v = -raw_v
                s, o = conversion(cm.unit or "", _canon_unit(canon))
                raw_v = (raw_v - o) / s
            lo = signal.minimum if signal.minimum is not None else -1e18
            hi = signal.maximum if signal.maximum is not None else 1e18
            if raw_v not in cm.sentinels:
                raw_v = min(max(raw_v, lo), hi)
            per_msg.setdefault(msg.frame_id, {})[sig] = raw_v
        for fid, sigs in sorted(per_msg.items()):
            msg = self._by_id[fid]
            full = {s.name: sigs.get(s.name, 0.0) for s in msg.signals}
            frames.append((fid, msg.encode(full, scaling=True, strict=False)))
        return frames


def _canon_unit(canon: str) -> str:
    from shared.signals import CHANNEL_BY_NAME

    return CHANNEL_BY_NAME[canon].unit


_LINE_RES = (
    # (1700000000.123456) can0 420#0102030405060708
    re.compile(
        r"^\((?P<ts>\d+(?:\.\d+)?)\)\s+(?P<iface>\S+)\s+(?P<id>[0-9A-Fa-f]{1,8})#(?P<data>[0-9A-Fa-f]*)\s*$"
    ),
    # (000.000000)  can0  420   [8]  01 02 03 04 05 06 07 08     (candump -ta / -td)
    re.compile(
        r"^\s*\((?P<ts>\d+(?:\.\d+)?)\)\s+(?P<iface>\S+)\s+(?P<id>[0-9A-Fa-f]{1,8})\s+\[(?P<dlc>\d)\]\s*(?P<data>(?:[0-9A-Fa-f]{2}\s*)*)$"
    ),
)


def read_candump(path: Path) -> Iterator[tuple[float, int, bytes]]:
    """Yield (t_s, can_id, data) from a candump log; a malformed line raises ImportFormatError."""
    with Path(path).open("r", encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            for rx in _LINE_RES:
                m = rx.match(s)
                if m:
                    break
            else:
                raise ImportFormatError(
                    path, f"line {lineno}", "a candump frame like '(ts) can0 420#0011...'", s[:60]
                )
            data = bytes.fromhex(m.group("data").replace(" ", ""))
            yield float(m.group("ts")), int(m.group("id"), 16), data


def format_candump_line(t_s: float, can_id: int, data: bytes, iface: str = "can0") -> str:
    return f"({t_s:.6f}) {iface} {can_id:03X}#{data.hex().upper()}"
