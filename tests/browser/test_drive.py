"""The in-car drive screen (``GET /drive``) in headless Chromium (Debian's package), on a real hot path.

A simulated session is replayed into the hot path at 10x while the page is open. Every call that starts
sound (``speechSynthesis.speak``, ``HTMLMediaElement.play``, Web Audio ``start``) is recorded with its
time by an init script, independently of the page's own bookkeeping, and paired with the ``cue`` events
the hot path streamed: one start per spoken cue, each before the cue's ``speak_by``, none after.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from typing import Any

import httpx
import pytest

from services.hotpath.replay import replay_ws
from shared.simulator.fixtures import cached_sim
from tests.support.browser import AUTOPLAY, chromium, needs_chromium
from tests.support.procs import start_hotpath


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    """Before any other module fixture: skip, or fail when PITWALL_REQUIRE_BROWSER=1."""
    needs_chromium()


# records every way the page could start sound, with the wall-clock time of the call
RECORDER = """
window.__sound = [];
(() => {
  const rec = (api, what) => window.__sound.push({api, at: Date.now(), what});
  if (window.speechSynthesis) {
    const speak = window.speechSynthesis.speak.bind(window.speechSynthesis);
    window.speechSynthesis.speak = (u) => { rec('speak', u && u.text); return speak(u); };
  }
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () { rec('play', this.currentSrc || this.src); return play.apply(this, arguments); };
  for (const proto of [AudioScheduledSourceNode.prototype, AudioBufferSourceNode.prototype, OscillatorNode.prototype]) {
    if (!Object.prototype.hasOwnProperty.call(proto, 'start')) continue;
    const start = proto.start;
    proto.start = function () { rec('start', this.buffer ? this.buffer.duration : null); return start.apply(this, arguments); };
  }
})();
"""
SOUND_APIS = ("speak", "play", "start")


def _collect_sse(url: str, out: list[dict[str, Any]], stop: threading.Event) -> None:
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(5, read=None)) as r:
            event = None
            for line in r.iter_lines():
                if stop.is_set():
                    return
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    out.append({"event": event, **json.loads(line[5:])})
    except (httpx.RemoteProtocolError, httpx.ReadError):
        if not stop.is_set():
            raise


@pytest.fixture(scope="module")
def hotpath(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d = tmp_path_factory.mktemp("drive")
    data = d / "data"
    if shutil.which("espeak-ng"):
        from services.hotpath.voices import build

        build(data, ["sonoma"])
    svc = start_hotpath(data, d)
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium(AUTOPLAY) as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Any:
    ctx = browser.new_context(viewport={"width": 900, "height": 500})
    ctx.add_init_script(RECORDER)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, errors


def _replay(port: int, laps: int, seed: int) -> dict[str, Any]:
    """Replays at 10x in its own thread (Playwright's sync API owns this thread's event loop): a cue the
    arbiter lets go at the last moment then has ~30 ms of wall time to reach the page, not ~15 ms."""
    sim = cached_sim(laps=laps, seed=seed)
    out: dict[str, Any] = {}

    def run() -> None:
        out.update(
            asyncio.run(
                replay_ws(
                    sim.wide,
                    f"ws://127.0.0.1:{port}/ingest/ws",
                    speed=10,
                    start={"driver_id": "ana", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"},
                )
            )
        )

    th = threading.Thread(target=run, daemon=True)
    th.start()
    while th.is_alive():
        th.join(0.05)
    assert out, "the replay failed"
    return out


def test_every_spoken_cue_starts_sound_before_its_deadline(hotpath, page) -> None:
    page.goto(f"{hotpath.url}/drive")
    page.wait_for_function("window.pitwallDrive && document.getElementById('conn').className === 'on'")
    if shutil.which("espeak-ng"):  # the rendered voices are decoded before the session starts
        page.wait_for_function("window.pitwallDrive.buffers.size > 200", timeout=60000)
    events: list[dict[str, Any]] = []
    stop = threading.Event()
    th = threading.Thread(target=_collect_sse, args=(f"{hotpath.url}/cues/stream", events, stop), daemon=True)
    th.start()
    res = _replay(hotpath.port, laps=6, seed=7)
    page.wait_for_timeout(1500)  # the last cue's sound has started (or it was dropped)
    stop.set()
    cues = [e for e in events if e["event"] == "cue" and e["session_id"] == res["session_id"]]
    assert len(cues) >= 3, "the simulated session produces spoken cues"
    assert all(isinstance(c["speak_by"], int) and c["speak_s"] > 0 for c in cues)
    sound = [s for s in page.evaluate("window.__sound") if s["api"] in SOUND_APIS]
    drive = page.evaluate("({late: window.pitwallDrive.late, log: window.pitwallDrive.log})")
    late = [e for e in drive["log"] if e["type"] == "late"]
    # each spoken cue produced exactly one sound start or was dropped as late on the client, never both
    assert len(sound) + len(late) == len(cues) and drive["late"] == len(late), (sound, drive, cues)
    # a cue is dropped only when it really arrived after its deadline (at 10x a cue the arbiter let go at
    # the last moment has ~30 ms of wall time; on a loaded machine it can miss it: silence, not late speech)
    assert all(e["at"] > e["speak_by"] for e in late), late
    assert len(sound) >= max(2, len(cues) // 2), (sound, late, cues)
    starts = iter(sound)
    late_ids = [e["phrase_id"] for e in late]
    for c in cues:
        if c["phrase_id"] in late_ids:
            late_ids.remove(c["phrase_id"])
            continue
        s = next(starts)
        assert s["at"] <= c["speak_by"], (s, c)
    if shutil.which("espeak-ng"):  # the pre-rendered file is preferred over speech synthesis
        assert all(s["api"] == "start" for s in sound), sound
    # the predictive delta was on screen and the last lap shown at the line; the replay has ended the session,
    # so the screen now says so with the session's best lap (signs and colours: tests/browser/test_drive_fit.py)
    page.wait_for_function("document.getElementById('delta').textContent === 'Session over'", timeout=10000)
    assert page.locator("#delta-label").inner_text().startswith("best lap 1:")
    assert page.locator("#last-lap").inner_text().startswith("1:")
    assert page.evaluate("window.pitwallDrive.deltas") > 20


def test_late_cue_is_dropped_and_safety_interrupts_technique(hotpath, page) -> None:
    page.goto(f"{hotpath.url}/drive")
    page.wait_for_function("!!window.pitwallDrive")
    base = {"session_id": "s", "lap": 3, "corner": "t7", "rule": "r", "speak_s": 0.6}
    # a cue whose deadline has passed is never started, and is counted
    page.evaluate(
        "(c) => window.pitwallDrive.handleCue({...c, speak_by: Date.now() - 1})",
        {**base, "phrase_id": "late.t7", "text": "Brake later, turn four", "priority": 2},
    )
    assert page.evaluate("window.__sound.length") == 0
    assert page.locator("#late-count").inner_text() == "late 1"
    # a technique cue is speaking; a safety cue stops it and starts at once; a second technique cue waits.
    # All in one task, so no speech engine event can run in between.
    got = page.evaluate(
        """(cs) => {
          const D = window.pitwallDrive;
          for (const c of cs) D.handleCue({...c, speak_by: Date.now() + 60000});
          return {log: D.log.slice(), sound: window.__sound.length, cls: document.getElementById('cue').className,
                  queued: D.queue.map((c) => c.phrase_id)};
        }""",
        [
            {**base, "phrase_id": "tech.t7", "text": "Carry more speed, Turn 7", "priority": 2},
            {**base, "phrase_id": "tech2.t9", "text": "Better exit, Turn 9", "priority": 2},
            {**base, "phrase_id": "oil_pressure", "text": "Oil pressure low. Lift and check", "priority": 3},
        ],
    )
    starts = [e["phrase_id"] for e in got["log"] if e["type"] == "start"]
    assert starts == ["tech.t7", "oil_pressure"]
    assert [e["phrase_id"] for e in got["log"] if e["type"] == "interrupted"] == ["tech.t7"]
    assert got["cls"] == "safety" and got["sound"] == 2 and got["queued"] == ["tech2.t9"]


def test_drive_screen_is_self_contained_and_serves_voices(hotpath) -> None:
    html = httpx.get(f"{hotpath.url}/drive")
    assert html.status_code == 200 and "text/html" in html.headers["content-type"]
    assert "http://" not in html.text and "https://" not in html.text  # works with no internet
    assert "/*DRIVE_JS*/" not in html.text and "EventSource" in html.text
    sw = httpx.get(f"{hotpath.url}/drive/sw.js")
    assert sw.status_code == 200 and "javascript" in sw.headers["content-type"] and "caches.open" in sw.text
    m = httpx.get(f"{hotpath.url}/voices/manifest.json").json()
    if not shutil.which("espeak-ng"):
        assert m["available"] is False and m["entries"] == {}
        return
    assert m["available"] is True and "Brake later, turn four" in m["entries"]
    url = m["entries"]["Brake later, turn four"]["url"]
    wav = httpx.get(f"{hotpath.url}{url}")
    assert wav.status_code == 200 and wav.content[:4] == b"RIFF" and len(wav.content) < 60_000
    for bad in ("..%2Fmanifest.json", "MANIFEST.JSON", "0123456789abcdef.wav", "x" * 300):
        assert httpx.get(f"{hotpath.url}/voices/{bad}").status_code == 404, bad


def test_drive_screen_reloads_offline_from_its_service_worker(hotpath, browser) -> None:
    ctx = browser.new_context(service_workers="allow")
    try:
        pg = ctx.new_page()
        pg.goto(f"{hotpath.url}/drive")
        pg.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30000)
        pg.reload()  # served by the worker now, which keeps a copy
        pg.wait_for_selector("#delta")
        ctx.set_offline(True)
        pg.reload()
        assert pg.locator("#delta").count() == 1 and pg.title() == "Pitwall drive"
    finally:
        ctx.close()
