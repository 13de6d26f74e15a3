"""AiM MXP CAN input: python-can (slcan at 1 Mbit/s, socketcan or virtual) decoded through the car's DBC.

A reader thread receives frames, decodes them with :class:`shared.can_codec.AimMxpCodec`, keeps the
latest value of every signal, and on each fast IMU frame (0x423, 50 Hz) hands one canonical frame to
the event loop. Wrong DLC and unknown ids are counted, never fatal.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

from shared.can_codec import AimMxpCodec, CanFrameError

log = logging.getLogger(__name__)
TICK_ID = 0x423
BITRATE = 1_000_000


def parse_can_spec(spec: str) -> tuple[str, str]:
    """'slcan:/dev/ttyACM0' -> ('slcan', '/dev/ttyACM0'); 'virtual' -> ('virtual', 'pitwall')."""
    kind, _, channel = spec.partition(":")
    if kind not in ("slcan", "socketcan", "virtual", "udp_multicast"):
        raise ValueError(
            f"unknown CAN interface {kind!r}; use slcan:/dev/ttyACM0, socketcan:can0 or virtual:NAME"
        )
    return kind, channel or ("pitwall" if kind == "virtual" else "")


def open_bus(spec: str, **extra: Any) -> Any:
    import can

    kind, channel = parse_can_spec(spec)
    kw: dict[str, Any] = {"interface": kind, "channel": channel, **extra}
    if kind == "slcan":
        kw.update(bitrate=BITRATE, tty_baudrate=115200)
    if kind == "virtual":
        kw["receive_own_messages"] = False
    return can.Bus(**kw)


class CanReader:
    def __init__(
        self, state: Any, spec: str, loop: asyncio.AbstractEventLoop, session_id: str | None = None
    ) -> None:
        self.state = state
        self.spec = spec
        self.loop = loop
        self.session_id = session_id
        self.bus: Any = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pitwall-can", daemon=True)
        self.frames = 0
        self.t0: float | None = None
        self.latest: dict[str, float] = {}
        self._pending: list[tuple[dict[str, float], float]] = []
        self._lock = threading.Lock()
        self._scheduled = False

    def start(self) -> None:
        self.bus = open_bus(self.spec)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        if self.bus is not None:
            self.bus.shutdown()

    def _codec(self) -> AimMxpCodec | None:
        try:
            sess = self.state.session(self.session_id)
        except KeyError:
            return None
        codec = getattr(sess, "_can_codec", None)
        if codec is None:
            codec = AimMxpCodec(sess.car)
            sess._can_codec = codec
        return codec

    def _run(self) -> None:
        while not self._stop.is_set():
            msg = self.bus.recv(timeout=0.2)
            if msg is None:
                continue
            arrived = time.perf_counter()
            codec = self._codec()
            if codec is None:
                self.loop.call_soon_threadsafe(self.state.reject, "no_session")
                continue
            try:
                vals = codec.decode(msg.arbitration_id, bytes(msg.data))
            except CanFrameError as exc:
                self.loop.call_soon_threadsafe(self.state.reject, f"can_{exc.reason}")
                continue
            self.latest.update(vals)
            if msg.arbitration_id == TICK_ID:
                if self.t0 is None:
                    self.t0 = msg.timestamp
                frame = {"t_s": round(msg.timestamp - self.t0, 6), **self.latest}
                self.frames += 1
                with self._lock:
                    self._pending.append((frame, arrived))
                    if not self._scheduled:
                        self._scheduled = True
                        self.loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        """On the event loop: process what arrived, at most 500 frames per turn so HTTP stays responsive."""
        with self._lock:
            batch, self._pending = self._pending[:500], self._pending[500:]
            more = bool(self._pending)
            if not more:
                self._scheduled = False
        for frame, arrived in batch:
            try:
                self.state.ingest(self.session_id, [frame], arrived)
            except KeyError:
                self.state.reject("no_session")
        if more:
            self.loop.call_soon(self._drain)
