"""CAN input: a simulated session encoded as AiM MXP frames on a python-can virtual bus, read by the hot
path's CAN reader inside a real uvicorn server.

python-can's ``virtual`` interface connects buses within one process only, so the server runs in a
thread of the test process (still a real uvicorn server on a real socket) instead of a subprocess.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import can
import httpx
import uvicorn

from services.hotpath.app import create_app
from services.hotpath.replay import replay_can
from shared.settings import settings_for
from shared.simulator import simulate
from tests.support.procs import free_port


def test_virtual_can_bus_replay_produces_cues(tmp_path: Path) -> None:
    channel = f"pw-{free_port()}"
    port = free_port()
    app = create_app(settings_for(tmp_path / "data"), can=f"virtual:{channel}")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        sid = httpx.post(
            f"{url}/session/start", json={"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
        ).json()["session_id"]
        sim = simulate(laps=5, seed=9, rate_hz=50)
        sent = replay_can(sim.wide, f"virtual:{channel}", speed=0)
        bus = can.Bus(interface="virtual", channel=channel)
        bus.send(can.Message(arbitration_id=0x420, data=b"\x01\x02", is_extended_id=False))  # wrong DLC
        bus.send(can.Message(arbitration_id=0x7FF, data=bytes(8), is_extended_id=False))  # unknown id
        bus.shutdown()
        assert sent > 50_000
        expected = int(len(sim.wide["t_s"]) * 0.99)
        deadline = time.monotonic() + 120
        h: dict = {}
        while time.monotonic() < deadline:
            h = httpx.get(f"{url}/health", timeout=30).json()
            if h["frames_total"] >= expected and h["rejected"]["can_unknown_id"] >= 1:
                break
            time.sleep(0.5)
        assert h["frames_total"] >= expected
        assert h["rejected"]["can_dlc"] == 1 and h["rejected"]["can_unknown_id"] == 1
        live = httpx.get(f"{url}/sessions/{sid}/live").json()
        assert sum(1 for lp in live["laps"] if lp["kind"] == "full") >= 4
        assert live["cues"]["spoken"] > 0
    finally:
        server.should_exit = True
        th.join(timeout=15)
