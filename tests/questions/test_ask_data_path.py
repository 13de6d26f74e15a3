"""Questions in words through a real paddock process's ``POST /coach/ask`` with no model server (the data
path: parse, plan, the family's sentences), the lap-against-lap phrasings issue #32 found wrong and the
follow-ups that lost the thread, each figure checked against the simulator's own trace (its lap times,
its speed, its GPS crossing the sector lines), never against the tools."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.procs import start_paddock
from tests.support.truth_corners import _track
from tests.support.truth_corners import corners as zones

NO_MODEL = "http://127.0.0.1:9/v1"  # nothing listens there: every answer is the data's


@pytest.fixture(scope="module")
def pad(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    d = tmp_path_factory.mktemp("ask")
    settings = settings_for(d / "data")
    sim = cached_sim(laps=10, seed=7)
    sid = import_sim(sim, settings, driver_id="ana").session_id
    later = import_sim(cached_sim(laps=3, seed=9), settings, driver_id="ana").session_id
    proc = start_paddock(d / "data", d, NO_MODEL)
    yield {"url": proc.url, "sid": sid, "later": later, "sim": sim}
    proc.stop()


def ask_done(pad: dict[str, Any], question: str, driver: str = "ana", session: str = "sid") -> dict[str, Any]:
    r = httpx.post(
        f"{pad['url']}/coach/ask",
        json={"driver_id": driver, "session_id": pad[session], "question": question},
        timeout=120,
    )
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["type"] == "done" and done["narrator"] == "data", done
    return dict(done)


def ask(pad: dict[str, Any], question: str, driver: str = "ana", session: str = "sid") -> str:
    return str(ask_done(pad, question, driver, session)["text"])


def _lap(sim: Any, n: int) -> dict[str, Any]:
    return next(x for x in sim.truth.laps if x["lap"] == n)


def _mask(sim: Any, n: int) -> np.ndarray:
    x = _lap(sim, n)
    return (sim.wide["t_s"] >= x["t_start_s"]) & (sim.wide["t_s"] <= x["t_end_s"])


def _times(text: str) -> list[float]:
    return [int(m) * 60 + float(s) for m, s in re.findall(r"\b(\d+):(\d{2}\.\d{3})\b", text)]


def _gap(text: str, a: int, b: int, there: str = "") -> float:
    """lap a's time minus lap b's, as the answer states it (whichever it names as the slower)."""
    m = re.search(rf"[Ll]ap (\d+) was ([\d.]+) s slower than lap (\d+){there}", text)
    assert m and {int(m.group(1)), int(m.group(3))} == {a, b}, text
    return float(m.group(2)) * (1 if int(m.group(1)) == a else -1)


def test_top_speed_lap_3_vs_lap_5(pad) -> None:
    sim = pad["sim"]
    a, b = (float(np.nanmax(sim.wide["speed_kmh"][_mask(sim, n)])) for n in (3, 5))
    text = ask(pad, "top speed lap 3 vs lap 5")
    assert text.startswith(f"Top speed: lap 3 {a:.1f} km/h ({a / 1.609344:.1f} mph), lap 5 {b:.1f} km/h"), (
        text
    )


def test_lap_4_vs_lap_6_in_sector_2(pad) -> None:
    """Sector 2 runs from T1's entry to T2's entry: the time between the two on the simulator's own trace."""
    sim = pad["sim"]
    (t1, _), (t2, _) = zones()["t1"], zones()["t2"]
    text = ask(pad, "lap 4 vs lap 6 in sector 2")
    s4, s6 = (_at(sim, n, t2) - _at(sim, n, t1) for n in (4, 6))
    m = re.search(r"lap 4 took ([\d.]+) s and lap 6 ([\d.]+) s", text)
    assert m, text
    assert float(m.group(1)) == pytest.approx(s4, abs=0.02) and float(m.group(2)) == pytest.approx(
        s6, abs=0.02
    )


def test_where_did_lap_5_lose_time_against_lap_3(pad) -> None:
    sim = pad["sim"]
    text = ask(pad, "where did lap 5 lose time against lap 3?")
    want = _lap(sim, 5)["time_s"] - _lap(sim, 3)["time_s"]
    assert _gap(text, 5, 3) == pytest.approx(want, abs=0.05)
    want_times = sorted([_lap(sim, 3)["time_s"], _lap(sim, 5)["time_s"]])
    assert sorted(_times(text)) == pytest.approx(want_times, abs=0.05)
    assert "Most of it went at T" in text


def _at(sim: Any, n: int, dist_m: float) -> float:
    """When lap ``n`` reached ``dist_m``: distance by integrating the simulator's speed over the lap,
    scaled to the track's length."""
    m = _mask(sim, n)
    t, v = sim.wide["t_s"][m], sim.wide["speed_kmh"][m] / 3.6
    d = np.concatenate([[0.0], np.cumsum((v[1:] + v[:-1]) / 2 * np.diff(t))])
    d *= float(_track()["length_m"]) / d[-1]
    return float(np.interp(dist_m, d, t))


def _corner_time(sim: Any, n: int, corner: str) -> float:
    lo, hi = zones()[corner]
    return _at(sim, n, hi) - _at(sim, n, lo)


def test_why_was_lap_7_slower_than_lap_3_at_turn_2(pad) -> None:
    sim = pad["sim"]
    text = ask(pad, "why was lap 7 slower than lap 3 at turn 2?")
    assert text.startswith("At T2, lap 3 against lap 7: "), text  # lap 3, the one it is against, first
    want = _corner_time(sim, 7, "t2") - _corner_time(sim, 3, "t2")
    assert _gap(text, 7, 3, " there") == pytest.approx(want, abs=0.03)


def test_follow_ups_keep_the_thread(pad) -> None:
    sim = pad["sim"]
    full = [x for x in sim.truth.laps if x["kind"] == "full"]
    best, slow = min(full, key=lambda x: x["time_s"]), max(full, key=lambda x: x["time_s"])
    text = ask(pad, "what was my fastest lap?", driver="bea")
    assert f"lap {best['lap']}" in text and _times(text)[0] == pytest.approx(best["time_s"], abs=0.05)
    text = ask(pad, "and the slowest?", driver="bea")
    assert f"lap {slow['lap']}" in text and _times(text)[0] == pytest.approx(slow["time_s"], abs=0.05), text
    ask(pad, "compare lap 3 and lap 5", driver="cal")
    text = ask(pad, "what's the gap between them?", driver="cal")
    assert _gap(text, 5, 3) == pytest.approx(_lap(sim, 5)["time_s"] - _lap(sim, 3)["time_s"], abs=0.05), text


def test_another_session_starts_a_new_thread_and_the_trace_keeps_the_parsed_question(pad) -> None:
    done = ask_done(pad, "compare lap 3 and lap 5", driver="eve")
    assert done["question"]["intent"] == "compare"  # the reply carries it for ?debug=1
    text = ask(pad, "what's the gap between them?", driver="eve", session="later")
    assert "lap 5" not in text, text  # the other session's thread does not carry laps 3 and 5 over
    traces = httpx.get(f"{pad['url']}/coach/traces", params={"limit": 1000}).json()["traces"]
    kept = [json.loads(t["detail"])["question"] for t in traces if t["agent_name"] == "AskEvidence"]
    asked = [q for q in kept if q and q["text"] == "compare lap 3 and lap 5"]
    assert asked and asked[0]["intent"] == "compare"
    assert [(x["number"], x["session"]) for x in asked[0]["laps"]] == [(3, "this"), (5, "this")]


@pytest.mark.parametrize(
    "question",
    [
        "Lap 14 - hit the kerb for the first ever time at the esses and lost 3 tenths, where?",
        "where did I lose time on lap 14?",
        "what was my top speed on lap 14?",
    ],
)
def test_a_lap_the_session_does_not_have_is_said_so_whatever_is_asked(pad, question: str) -> None:
    """The simulated session has laps up to its truth's last one: a lap beyond it is said missing, with
    the laps there are, never another lap's or the session's figures."""
    last = max(x["lap"] for x in pad["sim"].truth.laps)
    first = min(x["lap"] for x in pad["sim"].truth.laps)
    assert last < 14
    assert ask(pad, question) == f"There is no lap 14 in this session: it has laps {first} to {last}."
