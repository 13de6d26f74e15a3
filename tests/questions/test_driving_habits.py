"""How drivers ask about habits and the car at a glance, read and answered: coasting ("off both pedals",
"flat lines"), braking too deep or too early against the other laps, a pressure drop with the engine speed
as its condition, a gear said as "2nd", a channel no car file has (EGT, boost), the engine's health at a
glance, where the time goes and where the laps differ. Each figure is checked against the simulator's
ground truth or our own reading of the raw VBOX file, never against the tools."""

from __future__ import annotations

from typing import Any

import pytest

from services.paddock.agents.evidence import plan_for
from services.paddock.questions.families.corners import corner_ids
from services.paddock.questions.parse import parse
from services.paddock.tools.base import rows, session_row
from tests.support.asking import answer_of, ask_planned
from tests.support.truth import vbox_truth

SONOMA = ("t1", "t2", "t3", "t3a", "t4", "t5", "t6", "t7", "t8", "t8a", "t9", "t10", "t11")
NAMES = {c: () for c in SONOMA} | {"t6": ("the Carousel", "carousel"), "t7": ("the hairpin", "hairpin")}
PSI_BAR = 0.0689476

# our own phrasings -> (intent, corner, measure, aggregation)
READ: list[tuple[str, tuple[str, str | None, str | None, str | None]]] = [
    ("am I off both pedals before the corners?", ("channel", None, "coasting", None)),
    ("any flat lines before braking?", ("channel", None, "coasting", None)),
    ("how long was I between throttle and brake into turn 10?", ("corner", "t10", "coasting", None)),
    ("does oil pressure fall off above 5000 rpm?", ("judge", None, "oil_pressure", None)),
    ("any pressure dips in the long corners?", ("judge", None, "oil_pressure", None)),
    ("what was my peak rpm and top speed?", ("channel", None, "rpm", "max")),  # no vital: rpm stays
    ("how much boost did the turbo make?", ("channel", None, "boost", None)),
    ("EGTs at full revs?", ("channel", None, "egt", None)),
    ("how hot were the exhaust gases?", ("channel", None, "egt", "max")),
    ("was the cylinder head temp ok?", ("judge", None, "head_temp", None)),
    ("any knock or detonation?", ("channel", None, "knock", None)),
    ("what was the track temperature?", ("channel", None, "conditions", None)),
    ("am I giving away time in the esses?", ("where_time", None, None, None)),
    ("where's the time hiding?", ("where_time", None, None, None)),
    ("Give me my time for lap 5.", ("lap_time", None, "lap_time", None)),  # giving time is no loss
    ("is there dead time between the pedals?", ("channel", None, "coasting", None)),
    ("oil surge in the long corners?", ("judge", None, "oil_pressure", None)),
    ("was the motor running hot?", ("judge", None, "coolant_temp", None)),
    ("when did the water temp peak?", ("channel", None, "coolant_temp", "max")),
    ("give me a quick check of the car's vitals", ("judge", None, None, None)),
    ("engine health please", ("judge", None, None, None)),
    ("should I be in 3rd or 4th through turn 6?", ("corner", "t6", "gear", None)),
    ("is 2nd too short for the hairpin?", ("corner", "t7", "gear", None)),
    ("what was my 3rd lap?", ("lap_time", None, "lap_time", None)),  # an ordinal before "lap": a lap
    ("did I overcook turn 3?", ("corner", "t3", "brake_point", None)),
    ("am I running in too deep at the carousel?", ("corner", "t6", "brake_point", None)),
    ("where can I pick up a few tenths?", ("where_time", None, None, None)),
    ("show me where I keep bleeding time", ("where_time", None, None, None)),
    ("where did my oil pressure drop?", ("judge", None, "oil_pressure", None)),  # a vital: not where_time
    ("what's causing my slow laps?", ("why_slower", None, None, None)),
    ("which parts of the lap am I least consistent in?", ("consistency", None, None, None)),
]


@pytest.mark.parametrize(("text", "want"), READ, ids=[t for t, _ in READ])
def test_a_habit_or_a_vital_is_read(text: str, want: tuple[str, str | None, str | None, str | None]) -> None:
    q = parse(text, NAMES)
    assert (q.intent, q.corner, q.measure, q.aggregation) == want


def test_a_judgement_of_the_engine_or_a_reading_keeps_no_other_measure_from_before() -> None:
    before = parse("what was my throttle on lap 3?", NAMES)
    for text, measure in (("is the engine ok?", None), ("was the temp ok?", "temps")):
        q = parse(text, NAMES, before)
        assert (q.intent, q.measure, q.laps, q.follow_up) == ("judge", measure, (), False)
    oil = parse("oil pressure on lap 3?", NAMES)
    q = parse("was that ok?", NAMES, oil)  # leaning on a vital: that vital on that lap
    assert (q.intent, q.measure, [x.number for x in q.laps], q.follow_up) == (
        "judge",
        "oil_pressure",
        [3],
        True,
    )


def _events(q_lake: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in q_lake["sim_obj"].truth.events if e["kind"] == kind]


def test_coasting_names_the_planted_coast_its_length_and_cost(q_lake) -> None:
    (ev,) = _events(q_lake, "coasting")  # the simulator's one planted coast
    got = ask_planned(q_lake["sim"], "am I off both pedals before the corners?")
    first = got.result["coasts"][0]
    assert first["corner"] == ev["corner_id"].upper() and first["laps"] == [ev["lap"]]
    assert abs(first["coast_s"] - (ev["t_end_s"] - ev["t_start_s"])) <= 0.15
    assert len(first["lost_s"]) == 1 and abs(first["lost_s"][0] - ev["time_lost_s"]) <= 0.05
    assert got.text.startswith(
        f"You coasted (neither pedal) into {ev['corner_id'].upper()} on lap {ev['lap']}: "
    )
    clean = ask_planned(q_lake["sim"], "did I coast on lap 2?")
    assert clean.result["coasts"] == [] and clean.text.startswith("No coasting on lap 2: at most ")
    assert "other laps" not in clean.text
    # "did lap 2 have the least coasting?": the lap against the others, the planted coast named
    least = ask_planned(q_lake["sim"], "did lap 2 have the least amount of coasting?")
    assert least.text.startswith("No coasting on lap 2: at most ")
    assert f" On the other laps you coasted into {ev['corner_id'].upper()} on lap {ev['lap']}: " in least.text


def test_coasting_asked_after_a_lockup_is_the_coasting(q_lake) -> None:
    """ "and was I coasting anywhere?" after "did I get a locked wheel?": the planted coast, not the events."""
    (ev,) = _events(q_lake, "coasting")
    first = answer_of("did I get a locked wheel?", q_lake["sim"])
    before = plan_for("did I get a locked wheel?", q_lake["sim"], None)[1]
    assert first.text.startswith("Yes, ") and "lockup" in first.text
    got = answer_of("and was I coasting anywhere?", q_lake["sim"], previous=before)
    assert got.text.startswith(
        f"You coasted (neither pedal) into {ev['corner_id'].upper()} on lap {ev['lap']}"
    )


def test_too_deep_and_too_early_are_judged_against_the_other_laps(q_lake) -> None:
    late, early = _events(q_lake, "late_brake"), _events(q_lake, "early_brake")
    deep = ask_planned(q_lake["sim"], f"did I go too deep into turn {late[0]['corner_id'][1:]}?")
    (c,) = deep.result["corners"]
    assert [x["lap"] for x in c["deeper"]] == [e["lap"] for e in late] and c["earlier"] == []
    for x, e in zip(c["deeper"], late, strict=True):
        assert abs(x["shift_m"] - e["brake_shift_m"]) <= 3.0
    assert "in too deep on lap 5 (" in deep.text
    soon = ask_planned(q_lake["sim"], f"am I braking too early into turn {early[0]['corner_id'][1:]}?")
    (c,) = soon.result["corners"]
    assert [x["lap"] for x in c["earlier"]] == [e["lap"] for e in early] and c["deeper"] == []
    for x, e in zip(c["earlier"], early, strict=True):
        assert abs(x["shift_m"] + e["brake_shift_m"]) <= 3.0


def test_a_pressure_dip_above_an_engine_speed_is_the_oil_pressure_judged(q_lake) -> None:
    (ev,) = _events(q_lake, "oil_pressure_drop")
    got = ask_planned(q_lake["sim"], "any pressure dips when I'm above 4000 rpm, is that expected?")
    assert got.tool == "get_vital_limits" and got.args["measure"] == "oil_pressure"
    assert got.text.startswith("Your oil pressure was not OK: ") and f": lap {ev['lap']}, " in got.text


@pytest.mark.parametrize(
    ("text", "raw", "said"),
    [
        (
            "what were my EGTs on lap 3?",
            "egt",
            "Exhaust gas temperature is not recorded in this session's file.",
        ),
        ("how much boost did I run?", "boost", "Boost pressure is not recorded in this session's file."),
        ("any knock?", "knock", "Engine knock is not recorded in this session's file."),
        ("what was my yaw rate at turn 7?", "yaw", "Yaw rate is not recorded in this session's file."),
    ],
)
def test_a_channel_the_file_lacks_is_not_recorded(q_lake, text: str, raw: str, said: str) -> None:
    # our own reading of the raw VBOX file: no such channel (its exhaust sensor reads a constant -50 °C)
    channels = vbox_truth(q_lake["vbox_path"]).channels
    assert not [n for n in channels if raw in n.lower()]
    exhaust = channels["Exhaust Temperature (°C)"]
    assert float(exhaust.min()) == float(exhaust.max()) == -50.0
    assert ask_planned(q_lake["vbox"], text).text.startswith(said + " It records ")


def test_engine_health_at_a_glance_judges_every_vital_the_file_has(q_lake) -> None:
    got = ask_planned(q_lake["vbox"], "engine health at a glance")
    raw = vbox_truth(q_lake["vbox_path"]).channels
    psi = raw["Water Press (Calc) (psi)"]  # the VBOX's coolant pressure, only in psi
    lo, hi = float(psi[psi == psi].min()) * PSI_BAR, float(psi[psi == psi].max()) * PSI_BAR
    assert f"Your coolant pressure ranged from {lo:.2f} bar to {hi:.2f} bar over the session" in got.text
    cool = raw["Coolant Temperature (°C)"]
    assert f"Over the session it ranged from {min(cool):.1f} °C to {max(cool):.1f} °C." in got.text
    assert got.text.endswith("Not recorded in this session: tyre temperatures.")


def test_an_event_on_a_lap_counts_that_lap_and_a_missing_lap_is_said(q_lake) -> None:
    spins = [e for e in _events(q_lake, "wheelspin") if e["lap"] == 5]
    got = ask_planned(q_lake["sim"], "any wheelspin on lap 5?")
    assert got.text == f"Yes, 1 wheelspin: at {spins[0]['corner_id'].upper()} on lap 5."
    assert ask_planned(q_lake["sim"], "did I lock a wheel on lap 40?").text.startswith("There is no lap 40 ")


def test_the_causes_of_slow_laps_and_where_the_laps_differ_name_the_planted_mistakes(q_lake) -> None:
    worst = max(
        (e for e in q_lake["sim_obj"].truth.events if e.get("time_lost_s")), key=lambda e: e["time_lost_s"]
    )
    why = ask_planned(q_lake["sim"], "what's causing my slow laps?")
    assert why.tool == "get_opportunities"
    assert why.result["opportunities"][0]["corner"].lower() == worst["corner_id"]
    spread = ask_planned(q_lake["sim"], "which parts of the lap am I least consistent in?")
    corner, lost, laps = spread.result["least_consistent"][0]
    assert corner.lower() == worst["corner_id"]
    assert laps == sorted(
        e["lap"]
        for e in q_lake["sim_obj"].truth.events
        if e["corner_id"] == worst["corner_id"] and e.get("time_lost_s")
    )
    assert abs(lost - worst["time_lost_s"]) <= 0.1


def test_when_a_channel_peaked_names_the_lap_of_its_highest_reading(q_lake) -> None:
    sim = q_lake["sim_obj"]
    w = sim.wide
    i = int(w["water_temp_c"].argmax())  # our own: the sample of the highest coolant reading, and its lap
    lap = next(x["lap"] for x in sim.truth.laps if x["t_start_s"] <= w["t_s"][i] < x["t_end_s"])
    got = ask_planned(q_lake["sim"], "when did the water get hottest?")
    assert got.text == f"Your highest coolant temperature was {w['water_temp_c'][i]:.1f} °C, on lap {lap}."


def _laps_worded(laps: list[int]) -> str:
    """Laps as every answer words them: "lap 5", "laps 5 and 6", "laps 3, 4 and 5" (each lap once)."""
    ns = [str(n) for n in sorted(set(laps))]
    return f"lap {ns[0]}" if len(ns) == 1 else "laps " + ", ".join(ns[:-1]) + f" and {ns[-1]}"


def test_lockups_asked_at_a_corner_without_any_are_said_beside_the_ones_elsewhere(q_lake) -> None:
    locks = _events(q_lake, "lockup")
    at = {e["corner_id"] for e in locks}
    (where,) = at  # the simulator planted them at one corner
    laps = _laps_worded([e["lap"] for e in locks])
    other = next(c for c in ("t7", "t11") if c not in at)
    got = ask_planned(q_lake["sim"], f"do I lock the fronts into turn {other[1:]}?")
    assert (
        got.text == f"None at {other.upper()}; {len(locks)} lockups elsewhere: at {where.upper()} on {laps}."
    )
    assert ask_planned(q_lake["sim"], f"any lockups at turn {where[1:]}?").result["count_at_corner"] == len(
        locks
    )


def test_coasting_without_a_brake_channel_names_what_is_missing(q_lake) -> None:
    # the simulated session with its brake pressure (and deceleration) channels removed
    got = ask_planned(q_lake["no_brake"], "am I coasting too much?")
    msg = "Coasting cannot be measured: not recorded in this session: brake pressure or braking and acceleration g."
    assert got.text == msg
    assert got.result == {"recorded": False}


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("what's my kart's top speed?", "top_speed"),  # a vehicle's, not a driver called "kart"
        ("fastest I went?", "top_speed"),
        ("were there any faults?", "alarm"),
        ("did the shift light flash?", "rpm"),
        ("flat spotted a tyre?", "lockup"),
    ],
)
def test_more_ways_to_name_a_measure(text: str, measure: str) -> None:
    q = parse(text, NAMES)
    assert (q.measure, q.laps) == (measure, ())


def test_a_corner_no_valid_lap_passes_is_not_called_missing(no_full_lap: str) -> None:
    names = corner_ids(session_row(no_full_lap))
    assert names and not rows(
        "SELECT 1 FROM laps WHERE session_id = ? AND kind = 'full' AND valid", [no_full_lap]
    )
    got = ask_planned(no_full_lap, f"what gear at turn {names[0][1:]}?")
    assert (
        got.text
        == f"No valid timed lap passes {names[0].upper()} in this session, so it has no figures there."
    )


def test_time_asked_at_a_clean_corner_says_none_there_and_where_the_most_is(q_lake) -> None:
    events = q_lake["sim_obj"].truth.events
    planted = {e["corner_id"] for e in events if e.get("corner_id")}
    clean = next(c for c in ("t1", "t2", "t5", "t8", "t9") if c not in planted)
    worst = max((e for e in events if e.get("time_lost_s")), key=lambda e: e["time_lost_s"])
    got = ask_planned(q_lake["sim"], f"am I losing time in turn {clean[1:]}?")
    said = f" No time to find at {clean.upper()} against your good laps this session; the most is at "
    assert said + f"{worst['corner_id'].upper()}: " in got.text
    assert got.result["most_at"]["corner_id"] == worst["corner_id"]
    assert abs(got.result["most_at"]["time_to_find_s"] - worst["time_lost_s"]) <= 0.1
    there = ask_planned(q_lake["sim"], f"am I losing time in turn {worst['corner_id'][1:]}?")
    assert "No time to find" not in there.text and "most_at" not in there.result


def test_lockups_asked_of_a_set_of_laps_count_every_lap_of_the_set(q_lake) -> None:
    locks = _events(q_lake, "lockup")
    last = max(x["lap"] for x in q_lake["sim_obj"].truth.laps if x["kind"] == "full")  # the in lap: no
    for n in (2, 3, 4):
        laps = list(range(last - n + 1, last + 1))
        mine = [e for e in locks if e["lap"] in laps]
        got = ask_planned(q_lake["sim"], f"any lockups over my last {n} laps?")
        assert got.result["count"] == len(mine), (n, got.text)
        if not mine:  # none on the laps asked: the others are said beside it, never a bare denial
            said = _laps_worded(laps)
            (at,) = {e["corner_id"].upper() for e in locks}
            on = _laps_worded([e["lap"] for e in locks])
            assert got.text == f"None on {said}; {len(locks)} lockups on other laps: at {at} on {on}."
    first = min(e["lap"] for e in locks)
    got = ask_planned(q_lake["sim"], f"did I lock up in the first {first} laps?")
    assert got.result["count"] == sum(e["lap"] <= first for e in locks) >= 1
