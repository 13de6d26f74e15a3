"""Which session a driver means ("yesterday", "last Saturday", "on the 14th", "this morning", "the first one
today", "two sessions ago", "the session before this one", "my best session here", "last time at Sonoma",
"in the wet"), resolved against the sessions' own dates and order (four real AiM CSV files dated by their
headers; "today" is the day of the session asked about), and coasting and gear phrasings read and answered.
Every lap time is the simulator's ground truth of that file, every gear and engine speed the simulator's own
samples, never Pitwall's."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import yaml

from services.paddock.questions.parse import parse
from shared.display import lap_time
from tests.support.asking import ask_planned
from tests.support.truth_corners import TRACKS, corners, odometer

SONOMA = {c: () for c in ("t1", "t2", "t3", "t3a", "t4", "t5", "t6", "t7", "t8", "t8a", "t9", "t10", "t11")}
SONOMA_M = float(yaml.safe_load((TRACKS / "sonoma.yaml").read_text())["length_m"])
NAMES = SONOMA | {"t6": ("the Carousel", "carousel"), "t7": ("the hairpin", "hairpin")}

# our own phrasings -> the session they name (``LapRef.session``) and whether a lap of it is asked
SAID: list[tuple[str, str]] = [
    ("how did my session yesterday compare?", "when:day=-1"),
    ("what was my best lap last Saturday?", "when:weekday=5"),
    ("best lap in Saturday's session", "when:weekday=5"),
    ("fastest lap on the 14th?", "when:date=0-14"),
    ("how did I go on 14 November compared to today", "when:date=11-14"),
    ("what did I run on Nov 21st", "when:date=11-21"),
    ("compare with my session this morning", "when:part=morning"),
    ("did I lower my best time from the morning?", "when:part=morning"),
    ("the first one today, how was it?", "when:nth=1"),
    ("best lap two sessions ago", "when:ago=2"),
    ("the session before last", "when:ago=2"),
    ("the session before this one, what was my best lap?", "when:ago=1"),
    ("how does my best session here compare", "when:best"),
    ("how quick was I last time at Sonoma?", "when:track=sonoma"),
    ("compare with my session in the wet", "when:wet"),
    ("my fastest lap earlier today?", "when:day=0"),
    ("am I faster than a month ago?", "when:span=30"),
    ("best lap two weeks ago", "when:span=14"),
    ("how did I do last week?", "when:span=7"),
    ("am I getting faster session to session?", "other"),  # no track named "session"
    ("compare with my other session", "other"),
]


@pytest.mark.parametrize(("text", "session"), SAID)
def test_a_session_is_read_by_when_or_which(text: str, session: str) -> None:
    q = parse(text, SONOMA)
    assert [x.session for x in q.laps if x.session != "this"] == [session], q


def test_a_lap_number_with_th_is_a_lap_not_a_date() -> None:
    q = parse("my 14th lap time", SONOMA)
    assert [(x.number, x.session) for x in q.laps] == [(14, "this")]


def _best(env: dict[str, Any], name: str) -> str:
    return lap_time(env["truth"][name].best.time_s)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("how did my session yesterday compare?", "nov21_pm"),  # two that day: the later
        ("what was my best lap last Saturday?", "nov21_pm"),
        ("fastest lap on the 14th?", "nov14"),
        ("how did I go on 14 November?", "nov14"),
        ("best lap two sessions ago", "nov21_am"),
        ("the session before this one", "nov21_pm"),
        ("the session before last, how did it compare", "nov21_am"),
        ("how did I do a week ago?", "nov14"),  # the 15th: the nearest within three days
    ],
)
def test_a_session_by_day_or_order_gives_that_sessions_best(
    dated_lake: dict[str, Any], text: str, name: str
) -> None:
    got = ask_planned(dated_lake["today"], text)
    other = got.result.get("other_session_id") or got.args.get("ref_session_id")
    assert other == dated_lake[name], got.text
    assert _best(dated_lake, name) in got.text and _best(dated_lake, "today") in got.text
    rest = set(dated_lake["truth"]) - {name, "today"}
    assert not any(_best(dated_lake, x) in got.text for x in rest), got.text  # no other session's figure


@pytest.mark.parametrize(
    ("asked_of", "text", "name"),
    [
        ("nov21_pm", "compare with my session this morning", "nov21_am"),
        ("nov21_pm", "my fastest lap earlier today?", "nov21_am"),
        ("nov21_am", "how did I do last Saturday?", "nov14"),
    ],
)
def test_today_is_the_day_of_the_session_asked_about(
    dated_lake: dict[str, Any], asked_of: str, text: str, name: str
) -> None:
    got = ask_planned(dated_lake[asked_of], text)
    assert (got.result.get("other_session_id") or got.args.get("ref_session_id")) == dated_lake[name]
    assert _best(dated_lake, name) in got.text


def test_the_best_session_here_is_the_one_with_the_best_lap(dated_lake: dict[str, Any]) -> None:
    truth = dated_lake["truth"]
    best = min(truth, key=lambda n: truth[n].best.time_s)
    got = ask_planned(dated_lake["today"], "how does my best session here compare?")
    if best == "today":  # "is this my best session?": yes, against the best of the others
        runner = min(set(truth) - {"today"}, key=lambda n: truth[n].best.time_s)
        assert got.text.startswith("This is your best session here. Your best lap here, "), got.text
        assert got.result["other_session_id"] == dated_lake[runner]
    else:
        assert got.result["other_session_id"] == dated_lake[best]
    assert _best(dated_lake, best) in got.text


def test_the_first_one_today_is_this_one(dated_lake: dict[str, Any]) -> None:
    got = ask_planned(dated_lake["today"], "the first one today, how did it go?")
    assert got.text.startswith("That is this session.")


LISTED = re.compile(r"your sessions here: (.*)\.$")


@pytest.mark.parametrize(
    ("asked_of", "text", "lead"),
    [
        (
            "today",
            "what was my best lap on 3 March?",
            "I read this as your session on 3 Mar 2026, but you have no session that day here",
        ),
        (
            "today",
            "how did my session on the 13th go?",
            "I read this as your session on 13 Nov 2026, but you have no session that day here",
        ),
        (
            "nov21_am",
            "how did my session yesterday compare?",
            "I read this as your session on 20 Nov 2026, but you have no session that day here",
        ),
        (
            "nov14",
            "the session before this one?",
            "I read this as the session before this one, but you have no such session here",
        ),
        (
            "today",
            "was I quicker a month ago?",
            "I read this as your session around 23 Oct 2026, but you have no session here then",
        ),
        (
            "today",
            "compare with my session in the wet",
            "I read this as your session in the wet, but whether a session was wet or dry is not recorded",
        ),
        (
            "today",
            "how did I do last time at Laguna?",
            "I read this as a session at Laguna, but none of your sessions at this track is at Laguna",
        ),
    ],
)
def test_no_session_there_is_said_with_the_sessions_never_another_ones_figures(
    dated_lake: dict[str, Any], asked_of: str, text: str, lead: str
) -> None:
    got = ask_planned(dated_lake[asked_of], text)
    assert got.text.startswith(lead), got.text
    m = LISTED.search(got.text)
    assert m, got.text
    want = [
        f"{d} {'10:00' if n == 'nov14' else '09:00' if n == 'nov21_am' else '14:00' if n == 'nov21_pm' else '11:00'}"
        for n, d in (
            ("nov14", "14 Nov 2026"),
            ("nov21_am", "21 Nov 2026"),
            ("nov21_pm", "21 Nov 2026"),
            ("today", "22 Nov 2026"),
        )
    ]
    assert [x.split(" (")[0] for x in m.group(1).split("), ")] == want  # oldest first, each by its date
    for n in dated_lake["truth"]:
        assert f"best {_best(dated_lake, n)}" in m.group(1)
    assert f"(this one, best {_best(dated_lake, asked_of)}" in m.group(1)
    assert "Your best lap" not in got.text and "slower" not in got.text and "faster" not in got.text


# coasting and gears as drivers ask: (intent, corner, measure)
HABITS: list[tuple[str, tuple[str, str | None, str | None]]] = [
    # from the brake's release to the throttle is no coast Pitwall measures (it measures lift to brake)
    (
        "is there a gap between getting off the brake and back on the gas into t10?",
        ("unknown", "t10", "brake_to_throttle"),
    ),
    (
        "do I come off the brakes and back onto the power quickly enough?",
        ("unknown", None, "brake_to_throttle"),
    ),
    ("any dead time between brake and throttle?", ("channel", None, "coasting")),
    ("where am I neither braking nor accelerating?", ("channel", None, "coasting")),
    ("how long am I rolling between lifting and braking into turn 10?", ("corner", "t10", "coasting")),
    ("do I freewheel into the carousel?", ("corner", "t6", "coasting")),
    ("time between lifting and braking, t10", ("corner", "t10", "coasting")),
    (
        "Do I ever coast, or am I always on the gas, on the brake or maintenance throttling?",
        ("channel", None, "coasting"),
    ),
    # a light steady throttle is no coasting, a blip no upshift: said as understood, never another figure
    ("do I use maintenance throttle through t6?", ("unknown", "t6", "part_throttle")),
    ("any neutral throttle moments?", ("unknown", None, "part_throttle")),
    ("do I rev match my downshifts?", ("unknown", None, "rev_match")),
    ("heel and toe into t11 ok?", ("unknown", "t11", "rev_match")),
    ("what rpm do I upshift at?", ("channel", None, "shift_rpm")),
    ("am I shifting at the right rpm?", ("channel", None, "shift_rpm")),
    ("when do I change gear at the redline?", ("channel", None, "shift_rpm")),
    ("am I bogging out of the hairpin?", ("corner", "t7", "gear")),
    ("is 3rd too tall for turn 9?", ("corner", "t9", "gear")),
    ("am I lugging the engine anywhere?", ("channel", None, "corner_gears")),
    ("what gear for t6?", ("corner", "t6", "gear")),
    ("which gear at the apex of t4?", ("corner", "t4", "gear")),
    ("do I shift too early out of the hairpin?", ("corner", "t7", "gear")),
    ("do I upshift too early?", ("channel", None, "shift_rpm")),
    ("what rpm am I at when I shift to 4th?", ("channel", None, "shift_rpm")),
    ("does oil pressure drop when I shift?", ("judge", None, "oil_pressure")),  # the shift is the condition
    ("am I lifting and coasting anywhere?", ("channel", None, "coasting")),
]


@pytest.mark.parametrize(("text", "want"), HABITS)
def test_coasting_and_gears_are_read(text: str, want: tuple[str, str | None, str | None]) -> None:
    q = parse(text, NAMES)
    assert (q.intent, q.corner, q.measure) == want


def test_dead_time_between_the_pedals_is_the_coasting_the_simulator_put_in(q_lake: dict[str, Any]) -> None:
    coasts = {
        (e["corner_id"].upper(), e["lap"]) for e in q_lake["sim_obj"].truth.events if e["kind"] == "coasting"
    }
    assert coasts
    got = ask_planned(q_lake["sim"], "any dead time between brake and throttle?")
    said = {(c["corner"], lap) for c in got.result["coasts"] for lap in c["laps"]}
    assert coasts <= said and {lap for _, lap in said} == {lap for _, lap in coasts}, got.text
    first = got.result["coasts"][0]  # the coast that cost time first: the one the simulator put in
    assert {(first["corner"], lap) for lap in first["laps"]} == coasts
    assert got.text.startswith(f"You coasted (neither pedal) into {first['corner']} on lap ")


def test_maintenance_throttle_is_said_as_understood_with_no_figure(q_lake: dict[str, Any]) -> None:
    for text in ("do I use maintenance throttle through t6?", "do I rev match my downshifts?"):
        got = ask_planned(q_lake["sim"], text)
        assert got.text.startswith("I read this as a question about your driving data about "), got.text
        assert got.result == {"understood": True}
        assert not re.search(r"\d", got.text.split(";")[0].replace("T6", "")), got.text


def test_bogging_at_a_corner_gives_the_gear_and_engine_speed_at_its_slowest_point(
    q_lake: dict[str, Any],
) -> None:
    sim = q_lake["sim_obj"]
    lo, hi = corners()["t7"]
    w = sim.wide
    gears, revs = [], []
    for lap in (x for x in sim.truth.laps if x["kind"] == "full"):
        at = (w["t_s"] >= lap["t_start_s"]) & (w["t_s"] < lap["t_end_s"])
        idx = np.flatnonzero(at)
        d = odometer(w["lat"][idx], w["lon"][idx])  # our own distance along the lap, to the track's length
        d *= SONOMA_M / d[-1]
        inside = idx[(d >= lo) & (d <= hi)]
        k = inside[int(np.argmin(w["speed_kmh"][inside]))]
        gears.append(round(float(w["gear"][k])))
        revs.append(float(w["rpm"][k]))
    typical = max(set(gears), key=gears.count)
    # a cause asked of the gear ("…, causing a downshift to 2nd?"): the gear there too, no lap comparison
    for text in (
        "am I bogging out of the hairpin?",
        "did I line it up wrong, causing a downshift to 2nd in the hairpin?",
    ):
        got = ask_planned(q_lake["sim"], text)
        assert got.result["typical_gear"] == typical
        assert abs(got.result["rpm_at_slowest"] - float(np.median(revs))) <= 120, (got.text, np.median(revs))
        assert f"the engine at {got.result['rpm_at_slowest']:,} rpm there (median;" in got.text


def test_upshifting_too_early_gives_the_engine_speed_before_each_upshift(q_lake: dict[str, Any]) -> None:
    sim = q_lake["sim_obj"]
    w = sim.wide
    full = np.zeros(len(w["t_s"]), dtype=bool)
    for lap in (x for x in sim.truth.laps if x["kind"] == "full"):
        full |= (w["t_s"] >= lap["t_start_s"]) & (w["t_s"] < lap["t_end_s"])
    g = np.round(w["gear"]).astype(int)
    up = np.flatnonzero((g[1:] == g[:-1] + 1) & (g[:-1] > 0) & full[1:]) + 1
    want = {int(k): float(np.median(w["rpm"][up[g[up - 1] == k] - 1])) for k in sorted(set(g[up - 1]))}
    got = ask_planned(q_lake["sim"], "do I upshift too early?")
    assert set(got.result["upshifts"]) == set(want), got.text
    for k, rpm in want.items():
        assert abs(got.result["upshifts"][k] - rpm) <= 60, (k, rpm, got.text)
    assert got.text.startswith("You changed up, typically: ")


def test_the_wet_itself_is_no_session() -> None:
    """Driving in the wet is a question about the wet (which no file records), never a session named."""
    for text in ("should I change my racing line in the wet?", "how do I brake in the rain?"):
        assert all(x.session == "this" for x in parse(text).laps), text
