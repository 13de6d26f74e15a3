"""The frame path evaluates the per-frame conditions once (``LiveEvents``) and the safety rules run only
on frames where one of theirs holds: every cue and every stored event is the same as with the safety
rules run on every frame. A simulated session with oil-pressure, TPMS and flag faults, plus hand-made
coolant, MIL, ABS/DSC edges and a slow TPMS leak."""

from __future__ import annotations

from typing import Any

from services.hotpath.frame_path import LiveSession
from services.hotpath.replay import frames_of
from shared.profiles.car import load_car
from shared.profiles.track import load_track
from shared.simulator import ALL_KINDS, simulate


def _frames() -> list[dict[str, float]]:
    frames = list(frames_of(simulate(laps=8, seed=21, rate_hz=20.0, kinds=ALL_KINDS).wide))
    for i, f in enumerate(frames):
        # alone at first (nothing else for the safety rules): two ABS edges 45 s apart, two MIL edges
        # 150 s apart, while the front-right tyre warms from 2.0 to 2.4 bar; then it leaks (0.3 bar
        # below the warm baseline at frame 5950), and only then coolant and DSC
        f["abs_active"] = 1.0 if i in (100, 101, 1000) else 0.0
        f["mil"] = 1.0 if 1500 <= i < 1505 or 4500 <= i < 4505 else 0.0
        leak = min(0.6, 0.0004 * max(0, i - 5200))
        f["tpms_press_fr_bar"] = 2.0 + 0.4 * min(i, 5000) / 5000 - leak
        f["water_temp_c"] = 115.0 if 7400 <= i < 7460 else 90.0  # coolant over the limit
        f["dsc_active"] = 1.0 if 7600 <= i < 7640 else 0.0
    return frames


def _run(share: bool) -> tuple[list[Any], list[Any]]:
    stored: list[Any] = []
    sess = LiveSession(
        "s",
        load_car("bmw_e46_m3_aim_mxp"),
        load_track("sonoma"),
        lambda table, rows: stored.append((table, rows)) if table == "driver_events" else None,
    )
    if not share:  # the safety rules on every frame, with their own TPMS baseline, as before
        sess.coach.safety_ctx.tpms_baseline = {}  # type: ignore[union-attr]
        on_frame = sess.coach.on_frame
        sess.coach.on_frame = lambda row, now, conditions=None: on_frame(row, now)  # type: ignore[method-assign]
    cues = []
    for f in _frames():
        cues += [
            (c.t_s if hasattr(c, "t_s") else None, c.rule, c.text, c.status) for c in sess.process(f, 0.0)
        ]
    sess.finish()
    decisions = [(d.t_s, d.hit.rule, d.hit.wheel, d.status, d.reason) for d in sess.decisions]
    return decisions, stored


def test_shared_conditions_give_the_same_cues_and_events() -> None:
    shared, shared_events = _run(True)
    alone, alone_events = _run(False)
    rules = {d[1] for d in alone}
    assert {"oil_pressure_low", "coolant_hot", "tyre_warning", "mil_on", "abs_event", "dsc_event"} <= rules
    assert (
        sum(1 for d in alone if d[1] == "abs_event") == 2 and sum(1 for d in alone if d[1] == "mil_on") == 2
    )
    assert any(d[1] == "tyre_warning" and d[2] == "fr" for d in alone)  # the leak, against a warm baseline
    assert shared == alone
    assert shared_events == alone_events
