"""The store away, the paddock up: a real SeaweedFS server killed under a real paddock process, a paddock
started while the store is down, and one whose S3 endpoint accepts connections and never answers (a
scripted socket: the only fake, at the network boundary).

A session is published to the bucket by the real import path (the local lake, the spool, the uploader).
Its lap times are checked against our own start/finish crossings of the simulated frames. While the store
is away: ``/health`` says since when, ``/sessions`` keeps listing, the session is never unknown, what this
paddock read before (the laps) is still served, what it did not (a lap's telemetry) is a 503 saying the
lake is unreachable; no request answers 500.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

from shared.ingest import import_sim
from shared.lake_url import s3_target
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from shared.store.lake_mirror import mirror_for, uploader_for
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import Service, free_port, start_paddock
from tests.support.seaweed import SeaweedS3
from tests.support.truth import gate_crossings

HHMM = re.compile(r"^\d\d:\d\d$")


def _wait(pred: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if got := pred():
            return got
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


class _Hang:
    """An S3 endpoint that accepts every connection and never answers a byte."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self._stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self._stop = True
        self.sock.close()
        for c in self.held:
            c.close()


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory, weed: SeaweedS3):
    d = tmp_path_factory.mktemp("away")
    w = weed  # the module's server (tests/store/conftest.py): its tests kill and restart it
    env = w.env()
    car = settings_for(
        d / "car",
        lake_url=env["PITWALL_LAKE_URL"],
        s3_endpoint=env["PITWALL_S3_ENDPOINT"],
        s3_access_key=env["PITWALL_S3_ACCESS_KEY"],
        s3_secret_key=env["PITWALL_S3_SECRET_KEY"],
    )
    sim = cached_sim(laps=3, seed=4, rate_hz=10)
    sid = import_sim(sim, car, driver_id="ana").session_id
    mirror = mirror_for(car)
    assert mirror is not None
    uploader_for(car, mirror).drain()
    yield {"w": w, "env": env, "d": d, "sid": sid, "wide": sim.wide, "car": car}


def _ours(wide: Any) -> list[float]:
    t = np.asarray(wide["t_s"], float)
    cross = [c for c, _ in gate_crossings(t, np.asarray(wide["lat"], float), np.asarray(wide["lon"], float))]
    return [float(x) for x in np.diff(cross)]


def _full_laps(pad: Service, sid: str) -> list[float]:
    r = httpx.get(f"{pad.url}/sessions/{sid}/laps", timeout=60)
    assert r.status_code == 200, r.text
    return [lp["time_s"] for lp in r.json() if lp["kind"] == "full"]


def _close_to(got: list[float], ours: list[float]) -> bool:
    return len(got) == len(ours) >= 2 and max(abs(a - b) for a, b in zip(got, ours, strict=True)) < 0.05


def _health_lake(pad: Service) -> dict[str, Any]:
    r = httpx.get(f"{pad.url}/health", timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json()["lake"])


def _listed(pad: Service) -> list[str]:
    r = httpx.get(f"{pad.url}/sessions", timeout=30)
    assert r.status_code == 200, r.text
    return [x["session_id"] for x in r.json()]


def _llm_url() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"  # no model server: nothing here needs one


@pytest.fixture
def store_down(lake: dict[str, Any], tmp_path: Path) -> Iterator[tuple[Service, dict[str, Any]]]:
    """A paddock started from its snapshot (made with the store up) while the store is down, once the lake
    is marked away: the paddock and its health's ``lake``. The store is started again afterwards, and the
    paddock's log holds no traceback."""
    w, d = lake["w"], lake["d"]
    pad_dir = tmp_path / "pad"
    start_paddock(pad_dir, d, _llm_url(), lake["env"]).stop()  # the snapshot, with the store up
    w.stop()
    try:
        pad = start_paddock(pad_dir, d, _llm_url(), lake["env"])
        try:
            h = _wait(
                lambda: (x := _health_lake(pad))["reachable"] is False and x, 60, "the lake marked away"
            )
            yield pad, h
        finally:
            pad.stop()
        assert "Traceback" not in pad.log.read_text()
    finally:
        w.start()


def test_a_killed_store_leaves_the_paddock_serving_what_it_knows(lake: dict[str, Any]) -> None:
    w, sid, d = lake["w"], lake["sid"], lake["d"]
    ours = _ours(lake["wide"])
    pad_dir = d / "pad"
    pad = start_paddock(pad_dir, d, _llm_url(), lake["env"])
    try:
        assert _listed(pad) == [sid]
        assert _close_to(_full_laps(pad, sid), ours)  # read once: cached in this paddock's memory
        up = _health_lake(pad)
        assert up["reachable"] is True and up["unreachable_since"] is None and up["message"] is None
        assert HHMM.match(up["sessions_as_of"])
        assert (pad_dir / "paddock" / "lake_snapshot.parquet").is_file()
        w.stop()  # the store goes away mid-session
        down = _wait(lambda: (h := _health_lake(pad))["reachable"] is False and h, 60, "the lake marked away")
        assert HHMM.match(down["unreachable_since"]) and "cannot reach" in down["problem"]
        assert down["message"].startswith(f"Lake unreachable since {down['unreachable_since']}")
        assert _listed(pad) == [sid]
        assert httpx.get(f"{pad.url}/sessions/{sid}", timeout=30).json()["driver_id"] == "ana"
        assert _close_to(_full_laps(pad, sid), ours)  # what it read before is still served
        trace = httpx.get(f"{pad.url}/sessions/{sid}/laps/1/trace", timeout=120)
        assert trace.status_code == 503, trace.text  # never read: the lake is needed, and says so
        err = trace.json()["error"]
        assert err["code"] == "lake_unreachable" and "Lake unreachable since" in err["message"]
        assert "unknown_session" not in trace.text
        deb = httpx.post(
            f"{pad.url}/coach/debrief",
            json={"session_id": sid, "driver_id": "ana", "mode": "quick"},
            timeout=600,
        )
        assert deb.status_code == 200 and "Lake unreachable since" in deb.text, deb.text[-2000:]
        assert "No data for this session yet" not in deb.text and "unknown_session" not in deb.text
        w.start()
        back = _wait(lambda: (h := _health_lake(pad))["reachable"] and h, 60, "the lake back")
        assert back["unreachable_since"] is None and back["message"] is None
        codes: list[int] = []  # the store just restarted may fail reads for a moment: a 503, never a 500
        _wait(
            lambda: (
                codes.append(httpx.get(f"{pad.url}/sessions/{sid}/laps/1/trace", timeout=60).status_code)
                or codes[-1] == 200
            ),
            120,
            "the lap's telemetry after the store came back",
        )
        assert set(codes) <= {200, 503}, codes
    finally:
        pad.stop()
    assert "Traceback" not in pad.log.read_text()


def test_a_paddock_starts_from_its_snapshot_while_the_store_is_down(
    lake: dict[str, Any], store_down: tuple[Service, dict[str, Any]]
) -> None:
    sid, d = lake["sid"], lake["d"]
    pad, h = store_down
    assert HHMM.match(h["unreachable_since"]) and HHMM.match(h["sessions_as_of"])
    assert _listed(pad) == [sid]
    assert httpx.get(f"{pad.url}/sessions/{sid}", timeout=30).status_code == 200
    laps = httpx.get(f"{pad.url}/sessions/{sid}/laps", timeout=120)
    assert laps.status_code == 503 and laps.json()["error"]["code"] == "lake_unreachable", laps.text
    assert httpx.get(f"{pad.url}/sessions/no-such-session", timeout=30).status_code == 404
    fresh = start_paddock(d / "pad3", d, _llm_url(), lake["env"])  # no snapshot: starts, lists nothing
    try:
        h = _wait(lambda: (x := _health_lake(fresh))["reachable"] is False and x, 60, "the lake marked away")
        assert h["sessions_as_of"] is None and "no sessions are listed" in h["message"]
        assert _listed(fresh) == []
    finally:
        fresh.stop()
    assert "Traceback" not in fresh.log.read_text()


def test_an_endpoint_that_never_answers_stalls_no_request(lake: dict[str, Any]) -> None:
    sid, d = lake["sid"], lake["d"]
    pad_dir = d / "pad4"
    start_paddock(pad_dir, d, _llm_url(), lake["env"]).stop()  # the snapshot, with the store up
    hang = _Hang()
    try:
        env = {
            **lake["env"],
            "PITWALL_S3_ENDPOINT": f"http://127.0.0.1:{hang.port}",
            "PITWALL_S3_TIMEOUT_S": "2",
        }
        pad = start_paddock(pad_dir, d, _llm_url(), env)
        try:
            h = _wait(
                lambda: (x := _health_lake(pad))["reachable"] is False and x, 90, "the lake marked away"
            )
            assert HHMM.match(h["unreachable_since"])
            for _ in range(20):  # the follower is stuck on the endpoint: requests are not
                assert _health_lake(pad)["reachable"] is False
                assert _listed(pad) == [sid]
            assert hang.held  # the paddock did connect to it
        finally:
            pad.stop()
        assert "Traceback" not in pad.log.read_text()
    finally:
        hang.close()


def test_the_snapshot_holds_the_catalog_as_the_bucket_has_it(lake: dict[str, Any]) -> None:
    """The snapshot file (read here with pyarrow alone) holds the bucket's catalog rows, byte for byte the
    same session rows, so a paddock started from it lists exactly what the bucket listed."""
    d = lake["d"]
    start_paddock(d / "pad_snap", d, _llm_url(), lake["env"]).stop()  # its snapshot, with the store up
    snap = d / "pad_snap" / "paddock" / "lake_snapshot.parquet"
    target = s3_target(lake["car"])
    # the bucket's catalog read with deltalake itself (the Delta table), not through Pitwall's reader
    table = DeltaTable(f"{target.url}/_delta/sessions", storage_options=dict(target.options))
    bucket = table.to_pyarrow_table().to_pylist()
    saved = pq.read_table(snap).to_pylist()
    assert sorted(r["session_id"] for r in bucket) == sorted(r["session_id"] for r in saved)
    key = lambda r: (r["session_id"], str(r["published_at"]))  # noqa: E731
    assert [r["object_keys"] for r in sorted(bucket, key=key)] == [
        r["object_keys"] for r in sorted(saved, key=key)
    ]


def test_the_tablet_shows_one_banner_while_the_lake_is_away(
    lake: dict[str, Any], store_down: tuple[Service, dict[str, Any]]
) -> None:
    """A real browser on a paddock started while the store is down: one banner in driver words, on every
    screen, and the session's page still opens (its laps are what this paddock cannot read: said once)."""
    needs_chromium()
    sid = lake["sid"]
    pad, h = store_down
    with chromium() as b:
        pg = b.new_page(viewport={"width": 1024, "height": 768})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"{pad.url}/")
        pg.wait_for_selector("#lake-banner:not([hidden])", timeout=60_000)
        assert pg.inner_text("#lake-banner") == h["message"]
        assert h["message"].startswith(f"Lake unreachable since {h['unreachable_since']}")
        for screen in ("#/", f"#/session/{sid}", "#/ask"):
            pg.goto(f"{pad.url}/{screen}")
            pg.wait_for_selector("#lake-banner:not([hidden])", timeout=60_000)
            assert pg.get_by_text("Lake unreachable since").count() == 1, screen
        assert not errors, errors
