"""``pitwall replay``: play a logger file or a simulator session as live frames at N x real time,
over the hot path's WebSocket, or as encoded AiM MXP CAN frames on a python-can bus."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from services.hotpath.columns import pack_columns
from shared.profiles.track import TrackProfile
from shared.signals import WIDE_COLUMNS

Frame = dict[str, float]


def wide_from_file(path: Path, car_id: str | None = None) -> dict[str, np.ndarray]:
    return load_for_replay(path, car_id)[0]


def load_for_replay(
    path: Path, car_id: str | None = None, data_dir: Path | None = None, track_id: str | None = None
) -> tuple[dict[str, np.ndarray], str, TrackProfile | None]:
    """(wide frames, car id, track) of a logger file. With ``data_dir`` the track is found the way
    ``pitwall import`` finds it (``track_id`` if given, else a shipped or stored track the GPS trace
    follows, else one built from the driven line and stored under ``<data_dir>/tracks/``); without,
    no track. Raises ``KeyError`` for an unknown ``track_id``."""
    from shared.importers import read_log
    from shared.profiles.car import guess_car, load_car
    from shared.track_find import find_track

    raw = read_log(path, car_id=car_id)
    car = load_car(car_id or guess_car(raw))
    wide, _ = car.to_wide(raw)
    track = find_track(raw, wide, data_dir, track_id) if data_dir is not None else None
    return wide, car.id, track


def session_start(
    driver_id: str, car_id: str, track: TrackProfile | None, note: str | None = None
) -> dict[str, Any]:
    """``POST /session/start`` for a replay: the track by id, with its profile when it is not a shipped
    one (the hot path stores it, so a hot path with any data directory knows the track)."""
    from shared.profiles.track import list_tracks

    body: dict[str, Any] = {"driver_id": driver_id, "car": car_id, "track": track.id if track else None}
    if note:
        body["note"] = note
    if track is not None and track.id not in list_tracks():
        body["track_profile"] = track.model_dump(mode="json")
    return body


def frames_of(wide: dict[str, np.ndarray]) -> Iterator[Frame]:
    cols = [c for c in WIDE_COLUMNS if c in wide and c not in ("dist_m", "odo_m")]
    arrays = [wide[c] for c in cols]
    for i in range(len(wide["t_s"])):
        f: Frame = {}
        for c, a in zip(cols, arrays, strict=True):
            v = float(a[i])
            if not math.isnan(v):
                f[c] = v
        yield f


def paced(frames: Iterator[Frame], speed: float, batch_s: float = 0.1) -> Iterator[list[Frame]]:
    """Batches of frames released at ``speed`` x real time (``speed <= 0``: as fast as possible)."""
    start_wall = time.perf_counter()
    t0: float | None = None
    batch: list[Frame] = []
    batch_end: float | None = None
    for f in frames:
        t = f["t_s"]
        if t0 is None:
            t0 = t
        if batch_end is None:
            batch_end = t + batch_s
        if t >= batch_end and batch:
            if speed > 0:
                due = start_wall + (batch[-1]["t_s"] - t0) / speed
                delay = due - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            yield batch
            batch = []
            batch_end = t + batch_s
        batch.append(f)
    if batch:
        yield batch


async def replay_ws(
    wide: dict[str, np.ndarray],
    url: str,
    speed: float,
    session_id: str | None = None,
    start: dict[str, Any] | None = None,
    on_batch: Callable[[dict[str, Any]], None] | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """Start a session on the hot path (unless given), stream all frames, end it. Returns the summary.

    ``token`` is sent as ``Authorization: Bearer`` on every HTTP request and on the WebSocket upgrade,
    as a hot path beyond loopback (compose, a phone on Wi-Fi) requires."""
    import httpx
    import websockets

    http = url.replace("ws://", "http://").replace("wss://", "https://").split("/ingest")[0]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=http, timeout=30, headers=headers) as client:
        if session_id is None:
            r = await client.post("/session/start", json=start or {})
            r.raise_for_status()
            session_id = r.json()["session_id"]
        totals: dict[str, Any] = {"accepted": 0, "rejected": {}}
        async with websockets.connect(
            f"{url}?session_id={session_id}", max_size=None, compression=None, additional_headers=headers
        ) as ws:
            loop = asyncio.get_running_loop()
            t_start = loop.time()
            t0 = float(wide["t_s"][0])
            for batch in paced(frames_of(wide), 0.0):
                if speed > 0:
                    delay = t_start + (batch[-1]["t_s"] - t0) / speed - loop.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                # as columns: a float64 bin per channel (NaN where a frame has no value), no object per frame
                await ws.send(msgpack.packb({"session_id": session_id, "columns": pack_columns(batch)}))
                ack = json.loads(await ws.recv())
                totals["accepted"] += ack.get("accepted", 0)
                for k, v in ack.get("rejected", {}).items():
                    totals["rejected"][k] = totals["rejected"].get(k, 0) + v
                if on_batch is not None:
                    on_batch({"last": batch[-1], "ack": ack})
        r = await client.post(f"/session/{session_id}/end")
        r.raise_for_status()
        return {"session_id": session_id, **totals, "live": r.json()}


def replay_can(
    wide: dict[str, np.ndarray], spec: str, speed: float, car_id: str = "bmw_e46_m3_aim_mxp"
) -> int:
    """Encode frames as AiM MXP CAN at the broadcast rates and send them on a python-can bus."""
    import can

    from services.hotpath.can_reader import open_bus
    from shared.can_codec import FRAME_RATES_HZ, AimMxpCodec
    from shared.profiles.car import load_car

    codec = AimMxpCodec(load_car(car_id))
    # on a virtual bus the frames carry the session's own clock, so replays faster than real time keep
    # true lap times; a real bus stamps frames on arrival
    virtual = spec.startswith("virtual")
    bus = open_bus(spec, preserve_timestamps=True) if virtual else open_bus(spec)
    sent = 0
    next_due = {fid: 0.0 for fid in codec.frame_ids}
    start = time.perf_counter()
    t0 = float(wide["t_s"][0])
    try:
        for f in frames_of(wide):
            t = f["t_s"] - t0
            due = [fid for fid, at in next_due.items() if t + 1e-9 >= at]
            if not due:
                continue
            if speed > 0:
                delay = start + t / speed - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            # the tick frame goes last so the reader emits a frame with every slow value updated
            for fid, data in sorted(codec.encode_wide_row(f, ids=due), key=lambda x: x[0] == 0x423):
                stamp = 1_700_000_000.0 + t if virtual else 0.0
                bus.send(can.Message(arbitration_id=fid, data=data, is_extended_id=False, timestamp=stamp))
                sent += 1
            for fid in due:
                rate = FRAME_RATES_HZ.get(fid, 10.0)
                next_due[fid] = max(next_due[fid] + 1.0 / rate, t)
    finally:
        bus.shutdown()
    return sent
