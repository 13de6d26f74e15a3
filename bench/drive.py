"""The drive screen in headless Chromium: SSE cue -> sound start, cues dropped late on the client, and
the predictive delta's update rate, while a simulated session is replayed into a real hot path.

    python bench/drive.py            (about 2 minutes; needs Debian's chromium, espeak-ng for voices)
    python bench/drive.py --phone    (the hot path on one core with a CPU quota: bench/cpu_limits.py)
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bench.cpu_limits import describe, limit_cpu  # noqa: E402
from services.hotpath.replay import replay_ws  # noqa: E402
from shared.simulator.fixtures import cached_sim  # noqa: E402
from tests.support.procs import start_hotpath  # noqa: E402

CMD = "python bench/drive.py"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--autoplay-policy=no-user-gesture-required",
]
# the moment each SSE cue / delta reaches the page's handler, and each call that starts sound
PROBE = """
window.__t = [];
(() => {
  const rec = (kind, extra) => window.__t.push({kind, at: performance.now(), wall: Date.now(), ...extra});
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, fn, opts) {
    if (type === 'cue' || type === 'delta') {
      const inner = fn;
      fn = function (e) {
        if (type === 'cue') { const c = JSON.parse(e.data); rec('cue', {speak_by: c.speak_by, phrase_id: c.phrase_id}); }
        else rec('delta', {});
        return inner.call(this, e);
      };
    }
    return add.call(this, type, fn, opts);
  };
  const speak = speechSynthesis.speak.bind(speechSynthesis);
  speechSynthesis.speak = (u) => { rec('sound', {api: 'speak'}); return speak(u); };
  const start = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function () { rec('sound', {api: 'start'}); return start.apply(this, arguments); };
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () { rec('sound', {api: 'play'}); return play.apply(this, arguments); };
})();
"""


def pct(a: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(a), q)) if a else float("nan")


def run(speed: float, laps: int, voices: bool, phone: bool = False) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as d:
        data = Path(d) / "data"
        if voices:
            from services.hotpath.voices import build

            build(data, ["sonoma"])
        svc = start_hotpath(data, Path(d))
        try:
            with limit_cpu(svc.proc.pid, enabled=phone), sync_playwright() as p:
                b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
                ctx = b.new_context()
                ctx.add_init_script(PROBE)
                page = ctx.new_page()
                page.goto(f"{svc.url}/drive")
                page.wait_for_function("document.getElementById('conn').className === 'on'")
                if voices:
                    page.wait_for_function("window.pitwallDrive.buffers.size > 200", timeout=120000)
                sim = cached_sim(laps=laps, seed=7)
                done: dict[str, Any] = {}

                def replay() -> None:
                    start = {"driver_id": "ana", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
                    url = f"ws://127.0.0.1:{svc.port}/ingest/ws"
                    done.update(asyncio.run(replay_ws(sim.wide, url, speed=speed, start=start)))

                th = threading.Thread(target=replay, daemon=True)
                th.start()
                while th.is_alive():
                    page.wait_for_timeout(250)
                page.wait_for_timeout(1500)
                t = page.evaluate("window.__t")
                drive = page.evaluate("({late: window.pitwallDrive.late, log: window.pitwallDrive.log})")
                b.close()
        finally:
            svc.stop()
    cues = [e for e in t if e["kind"] == "cue"]
    sounds = [e for e in t if e["kind"] == "sound"]
    # the page starts sound in the order of its own 'start' entries; each names its cue's phrase
    starts = [e for e in drive["log"] if e["type"] == "start"]
    lat: list[float] = []
    queued: list[float] = []
    after = 0
    unmatched = list(cues)
    for snd, st in zip(sounds, starts, strict=False):
        c = next((c for c in unmatched if c["phrase_id"] == st["phrase_id"]), None)
        if c is None:
            continue
        unmatched.remove(c)
        lat.append(snd["at"] - c["at"])
        if snd["at"] - c["at"] > 50:
            queued.append(snd["at"] - c["at"])
        after += snd["wall"] > c["speak_by"]
    deltas = [e["at"] for e in t if e["kind"] == "delta"]
    gaps = np.diff(deltas) if len(deltas) > 2 else np.asarray([])
    rate = (len(deltas) - 1) / ((deltas[-1] - deltas[0]) / 1000) if len(deltas) > 2 else 0.0
    return {
        "cues": len(cues),
        "sounds": len(sounds),
        "apis": sorted({s["api"] for s in sounds}),
        "late": drive["late"],
        "after_deadline": after,
        "lat": lat,
        "queued": len(queued),
        "delta_rate": rate,
        "delta_gap_p99": pct(list(gaps), 99),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--phone", action="store_true", help="the hot path on one core with a CPU quota")
    a = ap.parse_args()
    voices = shutil.which("espeak-ng") is not None
    rows = []
    for speed, laps in ((20.0, 8), (5.0, 6)):
        r = run(speed, laps, voices, a.phone)
        rows.append(
            (
                f"drive screen, replay at {speed:g}x, {laps} laps: SSE cue -> sound start in Chromium "
                f"({'/'.join(r['apis']) or 'none'})",
                f"p50 {pct(r['lat'], 50):.2f} ms, p99 {pct(r['lat'], 99):.2f} ms, max {max(r['lat'] or [0]):.2f} ms; "
                f"{r['sounds']} of {r['cues']} cues started ({r['queued']} waited for the cue before to end), "
                f"{r['late']} dropped late on the client, {r['after_deadline']} started after speak_by"
                + (f" ({describe()})" if a.phone else ""),
                CMD,
            )
        )
        rows.append(
            (
                f"predictive delta updates on the drive screen, replay at {speed:g}x",
                f"{r['delta_rate']:.1f} per s (gap p99 {r['delta_gap_p99']:.0f} ms)",
                CMD,
            )
        )
    table = Table("measure", "result", "reproduce")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main()
