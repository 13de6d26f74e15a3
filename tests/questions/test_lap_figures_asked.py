"""Lap figures asked in drivers' own words (forum and coaching style: context first, shorthand, typos,
two questions in one, hedges) of the simulated session and the real VBOX, MyChron and AiM XRK files: the
best lap, the average and the median with their gaps to the best, lap against lap, the trend over the
session (the last lap against the best), consistency, top speed (the asked lap's, the session's only when
no lap is named, never a corner's or another measure), and laps that do not exist or have no time. Every
figure is checked against the simulator's ground truth or our own reading of the raw file
(``tests/support/truth.py``), never against Pitwall's tools."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.evidence import plan_for
from services.paddock.questions.model import Answer

CLOCK = re.compile(r"\b(\d+):(\d{2}\.\d{3})\b")
KMH = re.compile(r"([\d.]+) km/h")
TOL_S = {"sim": 0.01, "vbox": 0.05, "kart": 0.05, "agx": 0.05}  # our own gates are a sample from Pitwall's
TOL_KMH = 1.0
SPEED = {"vbox": "Speed (km/h)", "kart": "GPS Speed", "agx": "GPS Speed"}  # each file's own speed column


def _ask(files_lake: dict[str, Any], sess: str, text: str) -> Answer:
    """``text`` asked of the session; "a / b" asks a, then b in the same conversation."""
    got, previous = None, None
    for turn in text.split(" / "):
        got, previous = plan_for(turn, files_lake[sess], None, previous)
    assert got is not None, text
    return Answer(got["text"], got["tool"], got["args"], got["result"])


def _laps(files_lake: dict[str, Any], sess: str) -> dict[int, tuple[float, float]]:
    """Our own racing laps: lap -> (time, top speed), from the simulator's truth or the raw file."""
    if sess == "sim":
        sim = files_lake["sim_obj"]
        t, v = sim.wide["t_s"], sim.wide["speed_kmh"]
        return {
            x["lap"]: (x["time_s"], float(v[(t >= x["t_start_s"]) & (t <= x["t_end_s"])].max()))
            for x in sim.truth.laps
            if x["kind"] == "full"
        }
    return {lp.lap: (lp.time_s, lp.top_kmh) for lp in files_lake["truth"][sess].racing}


def _session_top(files_lake: dict[str, Any], sess: str) -> float:
    if sess == "sim":
        return float(files_lake["sim_obj"].wide["speed_kmh"].max())
    st = files_lake["truth"][sess]
    return float(np.nanmax(st.channels[SPEED[sess]]))


def _clocks(text: str) -> list[float]:
    return [int(m) * 60 + float(s) for m, s in CLOCK.findall(text)]


def _near(said: list[float], want: float, tol: float) -> bool:
    return any(abs(x - want) <= tol for x in said)


BEST = [
    ("kart", "what did I get down to?"),
    ("kart", "what's the best i managed"),
    ("kart", "what did i get it down to"),
    ("sim", "what did i get down to in the end"),
    ("sim", "so what was the best i did today"),
    ("sim", "Been doing track days two years now, finally got some data. What was my fastest lap?"),
    ("sim", "whats my pb today"),
    ("sim", "quickest time of the day?"),
    ("vbox", "what was my best lap time, i think it was around 1:46?"),
    ("vbox", "my quickest lap time?"),
    ("kart", "my best lap was what, 58 something?"),
    ("kart", "what was my best time"),
    ("sim", "honestly was my pace any good? what was my best?"),
    ("sim", "what's my fastest lap time? been chasing a 1:35 all day"),
    ("sim", "what was my fl"),
    ("kart", "fastest lap of the day?"),
]


@pytest.mark.parametrize(("sess", "text"), BEST)
def test_the_best_lap_said_any_way(files_lake, sess: str, text: str) -> None:
    laps = _laps(files_lake, sess)
    best = min(laps, key=lambda n: laps[n][0])
    got = _ask(files_lake, sess, text)
    assert got.text.startswith(f"Your best lap was lap {best} in "), got.text
    assert abs(_clocks(got.text)[0] - laps[best][0]) <= TOL_S[sess], got.text


# a lap's time and a speed asked at once: both answered, each the asked lap's (None: the session's)
BOTH = [
    ("sim", "lap 3 time and top speed", 3),
    ("vbox", "lap 4 top speed and lap time", 4),
    ("sim", "what was my best lap and my top speed?", "best"),
    ("sim", "best lap and top speed on it?", "best"),
]


@pytest.mark.parametrize(("sess", "text", "lap"), BOTH)
def test_a_lap_time_and_its_top_speed_asked_together_are_both_answered(
    files_lake, sess: str, text: str, lap: int | str
) -> None:
    laps = _laps(files_lake, sess)
    n = min(laps, key=lambda k: laps[k][0]) if lap == "best" else int(lap)
    got = _ask(files_lake, sess, text)
    assert _near(_clocks(got.text), laps[n][0], TOL_S[sess]), got.text
    m = re.search(rf"top speed on lap {n} was ([\d.]+) km/h", got.text)
    assert m and abs(float(m.group(1)) - laps[n][1]) <= TOL_KMH, got.text


def _mean_speed(files_lake: dict[str, Any], sess: str) -> float:
    """The mean of the speed samples over the racing laps."""
    st = files_lake["truth"][sess]
    col = SPEED[sess]
    sel = np.zeros(len(st.t), dtype=bool)
    for lp in st.racing:
        sel |= st.in_lap(lp)
    return float(np.nanmean(st.channels[col][sel]))


def test_average_lap_time_and_average_speed_asked_together_are_both_answered(files_lake) -> None:
    laps = _laps(files_lake, "kart")
    got = _ask(files_lake, "kart", "average lap time, average lap speeds")
    mean = float(np.mean([t for t, _ in laps.values()]))
    assert re.match(r"Your average lap was ", got.text) and _near(_clocks(got.text), mean, 0.05), got.text
    m = re.search(r"average speed over your \d+ valid laps was ([\d.]+) km/h", got.text)
    assert m and abs(float(m.group(1)) - _mean_speed(files_lake, "kart")) <= 1.5, got.text


def test_top_speed_and_average_speed_asked_together_are_both_answered(files_lake) -> None:
    got = _ask(files_lake, "vbox", "whats my top speed and average speed")
    top = re.search(r"Your top speed was ([\d.]+) km/h", got.text)
    assert top and abs(float(top.group(1)) - _session_top(files_lake, "vbox")) <= TOL_KMH, got.text
    mean = re.search(r"average speed over your \d+ valid laps was ([\d.]+) km/h", got.text)
    assert mean and abs(float(mean.group(1)) - _mean_speed(files_lake, "vbox")) <= 1.5, got.text


GAPS = [
    ("sim", "whats the gap between my fastest and my median lap", "median"),
    ("vbox", "the gap between my fastest lap and my median lap", "median"),
    ("sim", "how much quicker was my best than my average", "average"),
    ("kart", "how far off my best was my average lap", "average"),
    ("vbox", "gap from my best to my average lap?", "average"),
]


@pytest.mark.parametrize(("sess", "text", "figure"), GAPS)
def test_the_median_and_the_average_are_given_with_their_gap_to_the_best(
    files_lake, sess: str, text: str, figure: str
) -> None:
    times = [t for t, _ in _laps(files_lake, sess).values()]
    want = float(np.median(times) if figure == "median" else np.mean(times))
    got = _ask(files_lake, sess, text)
    m = re.search(rf"{figure} (\d+):(\d{{2}}\.\d{{3}})", got.text)
    assert m and abs(int(m.group(1)) * 60 + float(m.group(2)) - want) <= TOL_S[sess], got.text
    gap = re.search(rf"the {figure} ([\d.]+) s", got.text)
    assert gap and abs(float(gap.group(1)) - (want - min(times))) <= 2 * TOL_S[sess], got.text


# over the session: the last lap against the best
TREND = [
    ("vbox", "am I going faster or not?"),
    ("sim", "did I get quicker through the session?"),
    ("sim", "were my laps getting faster as I went?"),
    ("vbox", "did my times improve over the session"),
    ("kart", "did I improve lap on lap?"),
    ("sim", "I think I was faster at the start, was I?"),
    ("vbox", "did my lap times get better as the day went on?"),
    ("kart", "got better through the session, right?"),
    ("vbox", "did I go any faster during the session"),
    ("kart", "was I quicker at the start or at the end?"),
    ("sim", "am I getting faster through the session or slower?"),
]


@pytest.mark.parametrize(("sess", "text"), TREND)
def test_a_trend_over_the_session_is_the_last_lap_against_the_best(files_lake, sess: str, text: str) -> None:
    laps = _laps(files_lake, sess)
    best, last = min(laps, key=lambda n: laps[n][0]), max(laps)
    gap = laps[last][0] - laps[best][0]
    got = _ask(files_lake, sess, text)
    m = re.match(rf"Lap {last} was ([\d.]+) s slower than lap {best}\b", got.text)
    assert m and abs(float(m.group(1)) - gap) <= 2 * TOL_S[sess] + 0.001, got.text


CONSISTENCY = [
    ("sim", "are my lap times a noisy signal at the peak?"),
    ("sim", "whats the standard deviation of my lap times"),
    ("kart", "how much did my laps vary"),
    ("sim", "are my laps all over the place?"),
    ("vbox", "how much variation in my lap times"),
    ("sim", "whats my lap time consistency like, rough sd?"),
    ("kart", "how consistant am i"),
    ("vbox", "how repeatable are my laps"),
    ("kart", "Running a KA100 at the local track, how consistent were my lap times, mate?"),
]


@pytest.mark.parametrize(("sess", "text"), CONSISTENCY)
def test_consistency_in_other_words_gives_the_spread_of_the_laps(files_lake, sess: str, text: str) -> None:
    times = np.array([t for t, _ in _laps(files_lake, sess).values()])
    got = _ask(files_lake, sess, text)
    m = re.search(r"spread by ([\d.]+) s \(standard deviation\)", got.text)
    sd = [float(np.std(times)), float(np.std(times, ddof=1))]
    assert m and _near(sd, float(m.group(1)), 0.01 + TOL_S[sess]), got.text


# lap against lap: the slower lap named first, and the gap between their times
VERSUS = [
    ("vbox", "how much slower was lap 4 than lap 3", 4, 3),
    ("kart", "lap 5 vs lap 10?", 5, 10),
    ("kart", "lap 3 v lap 12", 3, 12),
    ("kart", "where are the large differences in speed, lap 4 vs lap 9?", 4, 9),
    ("kart", "lap 6 compared with lap 9 - which was faster and by how much?", 6, 9),
    ("vbox", "how many tenths between lap 3 and lap 8", 3, 8),
    ("sim", "was lap 8 better than lap 1?", 8, 1),
    ("sim", "how close did I get to my best on lap 6", 6, "best"),
    ("sim", "whats the gap between my best and second best lap", "best", "second"),
    ("sim", "how far was my slowest lap off my best", "slowest", "best"),
]


@pytest.mark.parametrize(("sess", "text", "a", "b"), VERSUS)
def test_lap_against_lap_names_the_slower_and_the_gap(
    files_lake, sess: str, text: str, a: Any, b: Any
) -> None:
    laps = _laps(files_lake, sess)
    order = sorted(laps, key=lambda n: laps[n][0])
    named = {"best": order[0], "second": order[1], "slowest": order[-1]}
    x, y = named.get(a, a), named.get(b, b)
    slow, fast = (x, y) if laps[x][0] > laps[y][0] else (y, x)
    got = _ask(files_lake, sess, text)
    m = re.match(rf"Lap {slow} was ([\d.]+) s slower than lap {fast}\b", got.text)
    assert m and abs(float(m.group(1)) - (laps[slow][0] - laps[fast][0])) <= 2 * TOL_S[sess] + 0.001, got.text


# top speed: the lap asked (a number or a pick), or the session's when no lap is named (None)
TOP = [
    ("sim", "what did I hit on the main straight on lap 4", 4),
    ("sim", "how quick was I at the end of the straight", None),
    ("sim", "trap speed on lap 6?", 6),
    ("sim", "whats the highest speed I reached in the session", None),
    ("sim", "how fast did I go on lap 5", 5),
    ("sim", "fastest speed on lap 5 please", 5),
    ("sim", "top speed on my slowest lap", "slowest"),
    ("sim", "top speed into turn 1?", None),
    ("sim", "top speed through turn 2 on lap 4", 4),
    ("sim", "what's my top speed before braking for turn 7", None),
    (
        "vbox",
        "Coming from autocross, first time on a big track. How fast was I actually going on the straight?",
        None,
    ),
    ("vbox", "how fast was I going at the end of the straight on lap 5", 5),
    ("vbox", "not sure the gps is right but what's my top speed on lap 7", 7),
    ("vbox", "what was my fastest, I mean top speed, on lap 7?", 7),
    ("vbox", "whats my top speed on the fastest lap", "best"),
    ("vbox", "what's the max I got to on the straight, mph please", None),
    ("kart", "top end on lap 10?", 10),
    ("kart", "what's the top speed in mph on the best lap", "best"),
    ("kart", "how fast does the kart get on the straight", None),
    ("agx", "top speed?", None),
    ("agx", "whats the fastest I went", None),
]


@pytest.mark.parametrize(("sess", "text", "lap"), TOP)
def test_top_speed_is_the_asked_laps_and_no_other_measure(files_lake, sess: str, text: str, lap: Any) -> None:
    laps = _laps(files_lake, sess)
    order = sorted(laps, key=lambda n: laps[n][0]) or [None]  # the XRK: no racing lap
    n = {"best": order[0], "slowest": order[-1]}.get(lap, lap)
    want = _session_top(files_lake, sess) if n is None else laps[n][1]
    got = _ask(files_lake, sess, text)
    said = [float(x) for x in KMH.findall(got.text)]
    assert said and abs(said[0] - want) <= TOL_KMH, (want, got.text)
    assert len(said) == 1, got.text  # never a corner's entry, minimum or exit speed beside it
    if n is not None:
        assert f"top speed on lap {n} was" in got.text, got.text


def test_average_top_speed_is_each_laps_top_speed_never_the_mean_speed(files_lake) -> None:
    laps = _laps(files_lake, "sim")
    got = _ask(files_lake, "sim", "whats my average top speed")
    said = {int(n): float(v) for n, v in re.findall(r"lap (\d+) ([\d.]+) km/h", got.text)}
    assert sorted(said) == sorted(laps), got.text
    assert all(abs(said[n] - laps[n][1]) <= TOL_KMH for n in laps), got.text


def test_top_speed_on_another_sessions_best_lap_is_that_sessions(files_lake) -> None:
    """The files_lake holds the simulated session and the VBOX one at Sonoma: from the VBOX, "last session"'s
    best lap is the simulated session's best, never a VBOX lap."""
    sim = _laps(files_lake, "sim")
    best = min(sim, key=lambda n: sim[n][0])
    got = _ask(
        files_lake, "kart", "top speed on my best lap last session"
    )  # the kart's track has no other session
    assert not KMH.search(got.text), got.text
    got = _ask(files_lake, "vbox", "top speed on my best lap from my other session")
    m = re.search(
        rf"^In your other session on [\d-]+, your top speed on lap {best} was ([\d.]+) km/h", got.text
    )
    assert m and abs(float(m.group(1)) - sim[best][1]) <= TOL_KMH, got.text


def test_top_speed_after_the_best_lap_is_that_laps_and_the_sessions(files_lake) -> None:
    laps = _laps(files_lake, "sim")
    best = min(laps, key=lambda n: laps[n][0])
    got = _ask(files_lake, "sim", "what was my best lap? / and my top speed?")
    m = re.search(rf"top speed on lap {best} was ([\d.]+) km/h.*whole session: ([\d.]+) km/h", got.text)
    assert m and abs(float(m.group(1)) - laps[best][1]) <= TOL_KMH, got.text
    assert abs(float(m.group(2)) - _session_top(files_lake, "sim")) <= TOL_KMH, got.text


@pytest.mark.parametrize(
    "text", ["what was my best lap? / and my top speed?", "whats my top speed on my best lap"]
)
def test_top_speed_of_the_best_lap_with_no_valid_lap_is_the_sessions_said_so(files_lake, text: str) -> None:
    got = _ask(files_lake, "agx", text)
    assert got.text.startswith("No valid lap in this session, so over the whole session: "), got.text
    said = [float(x) for x in KMH.findall(got.text)]
    assert len(said) == 1 and abs(said[0] - _session_top(files_lake, "agx")) <= TOL_KMH, got.text


NO_LAP = [
    ("sim", "what was lap 25?", 25),
    ("sim", "how fast was lap 40", 40),
    ("vbox", "lap 30 time?", 30),
    ("kart", "what did I do on lap 99", 99),
    ("kart", "lap 20 vs lap 3?", 20),
    ("sim", "compare lap 3 with lap 30", 30),
    ("vbox", "what was my top speed on lap 14", 14),
    ("agx", "what was lap 3?", 3),
]


@pytest.mark.parametrize(("sess", "text", "lap"), NO_LAP)
def test_a_lap_that_is_not_there_is_said_so_with_no_figure(
    files_lake, sess: str, text: str, lap: int
) -> None:
    got = _ask(files_lake, sess, text)
    assert got.text.startswith(f"There is no lap {lap} in this session"), got.text
    assert not _clocks(got.text) and not KMH.search(got.text), got.text


@pytest.mark.parametrize(
    "text", ["best lap time?", "quickest lap?", "what was my average lap", "how consistent was I?"]
)
def test_a_session_with_no_valid_lap_gives_no_lap_time(files_lake, text: str) -> None:
    assert not files_lake["truth"]["agx"].racing  # the XRK's one out lap
    got = _ask(files_lake, "agx", text)
    assert re.search(r"\bno(?:ne| valid lap)\b", got.text, re.IGNORECASE) and not _clocks(got.text), got.text


@pytest.mark.parametrize(
    "text",
    [
        "lap {a} vs lap {b}?",
        "how much quicker was lap {a} than lap {b}?",
        "compare lap {b} and lap {a}",
    ],
)
def test_a_lap_beside_an_out_lap_gets_both_lap_times(files_lake: dict[str, Any], text: str) -> None:
    """The kart's lap after a pit stop (our own split: started at a pit-lane crossing, so not a racing lap)
    named beside a racing lap: both lap times and the gap, the out lap said to be one (was: only "lap 2 was
    an out lap")."""
    st = files_lake["truth"]["kart"]
    out = next(
        lp for lp in st.laps[1:-1] if not lp.racing and st.lap(lp.lap + 1).racing
    )  # back from the pits
    nxt = st.lap(out.lap + 1)
    got = _ask(files_lake, "kart", text.format(a=nxt.lap, b=out.lap))
    assert f"lap {out.lap}, an out lap," in got.text.lower(), got.text
    assert _near(_clocks(got.text), out.time_s, TOL_S["kart"]) and _near(
        _clocks(got.text), nxt.time_s, TOL_S["kart"]
    )
    gap = float(re.search(r"([\d.]+) s (?:quicker|slower)", got.text).group(1))  # type: ignore[union-attr]
    assert abs(gap - abs(out.time_s - nxt.time_s)) <= 2 * TOL_S["kart"], got.text
    assert "corner by corner" in got.text and got.text.count(f"lap {out.lap},") == 1, got.text


def test_a_top_speed_compared_with_the_other_session_gives_both_and_the_difference(files_lake) -> None:
    """ "compare my top speed with my other session" gave only the other session's figure: now that
    session's best lap's top speed, this session's best lap's, and how much higher or lower, each against
    our own reading of the simulator's samples and the raw VBOX file."""
    sim, vbox = _laps(files_lake, "sim"), _laps(files_lake, "vbox")
    s_best = min(sim, key=lambda n: sim[n][0])
    v_best = min(vbox, key=lambda n: vbox[n][0])
    got = _ask(files_lake, "vbox", "compare my top speed with my other session")
    m = re.search(
        rf"^In your other session on [\d-]+, your top speed on lap {s_best} was ([\d.]+) km/h.*"
        rf"This session: your top speed on lap {v_best} was ([\d.]+) km/h.*That is ([\d.]+) km/h .*(higher|lower) now",
        got.text,
    )
    assert m, got.text
    then, now, diff = (float(m.group(k)) for k in (1, 2, 3))
    assert abs(then - sim[s_best][1]) <= TOL_KMH and abs(now - vbox[v_best][1]) <= TOL_KMH, got.text
    assert abs(diff - abs(sim[s_best][1] - vbox[v_best][1])) <= 2 * TOL_KMH, got.text
    assert m.group(4) == ("higher" if vbox[v_best][1] > sim[s_best][1] else "lower")
    alone = _ask(files_lake, "vbox", "what was my top speed last time?").text  # no comparison asked
    assert "This session" not in alone, alone


def test_brake_feel_on_a_file_with_no_brake_channel_is_not_recorded(files_lake) -> None:
    """The kart's file has no brake channel (our own reading of its export's header): "did the brakes feel
    poor?" had brake points read from the speed trace, figures for what the file cannot show; now the
    pedal is said to be not recorded, with no figure."""
    assert not [c for c in files_lake["truth"]["kart"].channels if re.search(r"brake", c, re.I)]
    got = _ask(files_lake, "kart", "did the brakes feel poor?").text
    assert "Brake pedal is not recorded in this session's file" in got, got
    assert not re.search(r"\d+(?:\.\d+)? ?(?:m|km/h|bar)\b", got), got
