"""Where the time goes, coasting, brake points and the driver's other session in drivers' own words (issue
#32, "Questions understood"): phrasings written for this test (forum and coaching style: context before the
question, typos, shorthand, British and American words, two questions in one, negations), asked of a real
paddock on the data path over the outside eval's sessions (``eval_paddock``) and scored against truth from
the raw files and the simulator's ground truth (``qeval_items.expect``), never against Pitwall's tools.

A "where do I lose time?" names the simulator's mistake corners in the order of the time they lost; a
coasting question names the corners the simulator coasted into; a brake point is in metres before the
corner, each lap against the others; "my other session" is the VBOX session's best or the gap to it, said
by its day, never by an id."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.paddock.questions.parse import parse
from tests.support.qeval_run import EvalPaddock

L, CO, B, OS = "lose_time", "coasting", "braking", "other_session"
SONOMA = tuple(f"t{i}" for i in range(1, 12))
_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]+\b")  # a session id: never in an answer
# (session, kind, slots, text): each answered correctly
ANSWERED: list[tuple[str, str, dict[str, Any], str]] = [
    ("sim", L, {}, "where am i losing the most time on track?"),
    (
        "sim",
        L,
        {},
        "Been doing track days for 3 years now and still stuck at the same times. where's the time going?",
    ),
    ("sim", L, {}, "where do i bleed time compared to my quickest lap"),
    ("sim", L, {}, "which corners cost me the most?"),
    ("sim", L, {}, "whats costing me lap time"),
    ("sim", L, {}, "where should i focus to go quicker next session"),
    ("sim", L, {}, "im losing time somewhere but cant tell where, any idea?"),
    ("sim", L, {}, "coach said i'm leaving tenths everywhere. where exactly?"),
    ("sim", L, {}, "where's the biggest time loss on my laps"),
    ("sim", L, {}, "which turn am I losing the most time in?"),
    ("sim", L, {}, "where am I dropping time?"),
    ("sim", L, {}, "where am i slow compared to my pb"),
    ("sim", L, {}, "biggest areas for improvement?"),
    ("sim", L, {}, "what are my 3 worst corners"),
    ("sim", L, {}, "where can I pick up time?"),
    ("sim", L, {}, "not asking about lap 4, just generally where am i losing time"),
    ("sim", L, {}, "tell me where the time goes"),
    ("sim", L, {}, "what corners am i giving away time in"),
    ("sim", L, {}, "wheres the time goin? i feel like im quick everywhere lol"),
    ("sim", L, {}, "were am I losing the most time"),
    ("sim", L, {}, "Which bits of the track am I slowest through vs my pb?"),
    ("sim", L, {}, "i was 2 secs off my mate today. which corners am i losing it in?"),
    ("sim", L, {}, "where do I give the most time away?"),
    ("sim", L, {}, "what's the one corner I should fix first?"),
    ("sim", L, {}, "not the lap times, I want to know where on track the time goes"),
    ("sim", L, {}, "where do I lose time and why?"),
    ("sim", L, {}, "Where am I haemorrhaging time?"),
    ("sim", L, {}, "which corners am I worst in, and by how much?"),
    ("sim", L, {}, "where am i losing time? not interested in lap 3 vs lap 5"),
    ("sim", L, {}, "compared to my fastest lap, where am I down?"),
    ("sim", L, {}, "where am i off the pace"),
    ("sim", L, {}, "where do I drop time against my best lap? and what should I change?"),
    ("sim", L, {}, "show me where i'm losing time please, mostly interested in the braking zones"),
    ("sim", L, {}, "If you had to pick 2 corners for me to work on which would they be"),
    ("sim", L, {}, "time loss per corner?"),
    ("sim", L, {}, "corner by corner, where do I lose time to my best lap?"),
    ("sim", L, {}, "where is the delta to my best lap coming from"),
    ("sim", L, {}, "which turns cost me the most time, worst first"),
    ("sim", CO, {}, "where am i coasting?"),
    ("sim", CO, {}, "do i coast anywhere?"),
    ("sim", CO, {}, "where am I off both pedals?"),
    ("sim", CO, {}, "am i coasting into any corners"),
    ("sim", CO, {}, "how much time do i spend coasting each lap"),
    ("sim", CO, {}, "where am I neither braking nor on throttle"),
    ("sim", CO, {}, "too much coasting? where?"),
    ("sim", CO, {}, "where am i doing nothing, no brake no gas"),
    ("sim", CO, {}, "any dead time between braking and throttle?"),
    ("sim", CO, {}, "am i off the throttle and not braking anywhere for too long"),
    ("sim", CO, {}, "how much time am I spending neither on brake nor gas"),
    ("sim", CO, {}, "is there a gap between lifting and braking"),
    ("sim", CO, {}, "do i have a pause between throttle and brake"),
    ("sim", CO, {}, "do i lift and coast anywhere?"),
    ("sim", CO, {}, "where do i coast and how much does it cost me?"),
    ("sim", CO, {}, "where do i roll into corners without being on the brakes or gas"),
    ("sim", CO, {}, "am I freewheeling anywhere?"),
    ("sim", CO, {}, "show me any gaps in the pedal traces"),
    ("sim", CO, {}, "how much off-throttle time before braking?"),
    ("sim", CO, {}, "where is the transition from throttle to brake slow?"),
    ("sim", CO, {}, "lift off before braking - where?"),
    ("sim", CO, {}, "do I have any dead zones on the pedals"),
    ("sim", CO, {}, "where am I not using either pedal?"),
    ("sim", L, {}, "where am i not at the limit?"),
    ("sim", L, {}, "where can i push harder?"),
    ("sim", L, {}, "which corners need more commitment"),
    ("sim", L, {}, "where am i under-driving the car?"),
    ("sim", L, {}, "show me the time slip"),
    ("sim", L, {}, "where am I timid?"),
    ("sim", L, {}, "where am I not using all the grip?"),
    ("sim", L, {}, "what's the plan to get faster"),
    ("sim", OS, {}, "did i go faster than the previous time?"),
    ("sim", OS, {}, "what's my best from before?"),
    ("sim", OS, {}, "how did my previous day at the track go"),
    ("sim", OS, {}, "this weekend vs last weekend, better or worse?"),
    ("sim", OS, {}, "how's my pace vs. my last visit"),
    ("vbox", OS, {}, "other session pb"),
    ("sim", OS, {}, "is this a PB?"),
    ("sim", OS, {}, "how much quicker was I compared to the other time I was here"),
    ("sim", CO, {}, "how much speed do i lose coasting?"),
    ("sim", B, {"corner": "t6"}, "where am i braking for turn 6?"),
    ("sim", B, {"corner": "t6"}, "am I braking too early into t6?"),
    ("sim", B, {"corner": "t6"}, "brake point for turn 6 on my best lap?"),
    ("sim", B, {"corner": "t4"}, "am i braking later than on my best lap at turn 4"),
    ("sim", B, {"corner": "t6", "laps": [5]}, "how many metres before turn 6 did I brake on lap 5?"),
    ("sim", B, {"corner": "t6"}, "am i braking later or earlier than best lap at t6"),
    ("sim", B, {"corner": "t4"}, "whats my brake marker into t4, and am i braking too late there?"),
    ("sim", B, {"corner": "t6"}, "How many meters before T6 am I braking on average?"),
    ("sim", B, {"corner": "t6"}, "braking for turn 6 - too early?"),
    ("sim", B, {"corner": "t4"}, "i think i overcook turn 4, am i braking too deep?"),
    ("sim", B, {"corner": "t4"}, "do i brake later than my best lap into turn 4?"),
    ("sim", B, {"corner": "t6"}, "am i braking earlier than on my fastest lap into turn six?"),
    ("sim", B, {"corner": "t6", "laps": [4]}, "T6 braking point on lap 4?"),
    ("sim", B, {"corner": "t6", "laps": [3]}, "brake point at t6 vs lap 3?"),
    ("sim", B, {"corner": "t4"}, "am I braking at the same place every lap in turn 4?"),
    ("sim", OS, {}, "what was my best in my other session?"),
    ("sim", OS, {}, "how does this compare to last time?"),
    ("sim", OS, {}, "compare both sessions"),
    ("sim", OS, {}, "what was my best lap yesterday?"),
    ("sim", OS, {}, "how much faster was i than my previous outing"),
    ("sim", OS, {}, "gap between this session and the last one?"),
    ("sim", OS, {}, "was i quicker last time out?"),
    ("sim", OS, {}, "my previous session best lap?"),
    ("sim", OS, {}, "did I improve on last session?"),
    ("sim", OS, {}, "what was my best time in the other session and whats the gap?"),
    ("sim", OS, {}, "how did today go compared to my last outing?"),
    ("sim", OS, {}, "last time I was here I did a 1:47. How much faster was I today?"),
    ("sim", OS, {}, "how does this session stack up vs the one before"),
    ("sim", OS, {}, "did I beat my time from the morning session?"),
    ("sim", OS, {}, "pb last session?"),
    ("sim", OS, {}, "any faster than the other day?"),
    ("vbox", OS, {}, "what did i do in the other session?"),
    ("vbox", OS, {}, "how does today compare with my previous session"),
    ("vbox", OS, {}, "was i faster the last time i was here?"),
    ("vbox", OS, {}, "what was my fastest lap in the earlier session"),
    ("vbox", OS, {}, "whats my best lap from my other session at sonoma?"),
    ("vbox", OS, {}, "I was slower today than yesterday, by how much?"),
    ("vbox", OS, {}, "compare both sessions please"),
    ("kart", "lap_vs_lap", {"laps": [4, 9]}, "where are the large differences in speed, lap 4 vs lap 9?"),
    ("sim", "lap_vs_lap", {"laps": [5, 3]}, "lap 5 vs lap 3, where was i behind?"),
]


@pytest.mark.parametrize("row", ANSWERED, ids=[r[3] for r in ANSWERED])
def test_answered_against_the_truth(eval_paddock: EvalPaddock, row: tuple[str, str, dict, str]) -> None:
    verdict, text = eval_paddock.answer(*row)
    assert verdict == "correct", text
    assert not _ID.search(text), text  # the other session by its day, never by its id
    if row[1] == L:
        eval_paddock.assert_where_the_time_is(text)


def _moved(text: str) -> dict[tuple[str, str], dict[int, int]]:
    """(corner, "early" | "deep") -> {lap: metres} as the brake-marker answer states them."""
    out: dict[tuple[str, str], dict[int, int]] = {}
    for corner, said in re.findall(r"before the (T\w+) apex\): (.*?)\.(?: |$)", text):
        for part in said.split("; "):
            how = "early" if part.startswith("braked early") else "deep"
            laps = re.findall(r"lap (\d+) \((\d+) m (?:earlier|later)", part)
            out[(corner.lower(), how)] = {int(a): int(m) for a, m in laps}
    return out


@pytest.mark.parametrize(
    "text", ["where am i braking too early", "did I brake too late anywhere?", "am i an early braker?"]
)
def test_brake_points_everywhere_are_the_simulators_moved_ones(eval_paddock: EvalPaddock, text: str) -> None:
    """No corner named: the corners the simulator braked early or late at, its laps and by how far."""
    _, got = eval_paddock.answer("sim", B, {"corner": "t6"}, text)
    truth: dict[tuple[str, str], dict[int, float]] = {}
    for e in eval_paddock.prep.truths["sim"].events:
        if e["kind"] in ("early_brake", "late_brake") and "brake_shift_m" in e:
            how = "early" if e["kind"] == "early_brake" else "deep"
            truth.setdefault((e["corner_id"], how), {})[e["lap"]] = abs(float(e["brake_shift_m"]))
    said = _moved(got)
    assert truth and set(truth) <= set(said), got
    for key, laps in truth.items():
        assert set(said[key]) == set(laps), (key, got)
        assert all(abs(said[key][n] - laps[n]) <= 3 for n in laps), (key, got)


# (session, text, intent, measure, laps, corner): how each is read
READ_AS: list[tuple[str, str, str | None, tuple[int | str, ...], str | None]] = [
    ("where am i losing time? not interested in lap 3 vs lap 5", "where_time", None, (), None),
    ("not talking about my best lap, where do I lose time?", "where_time", None, (), None),
    ("coach said i'm leaving tenths everywhere. where exactly?", "where_time", None, (), None),
    ("compared to my fastest lap, where am I down?", "where_time", None, (), None),
    ("where am i off the pace", "where_time", None, (), None),
    ("where are the large differences in speed, lap 4 vs lap 9?", "compare", None, (4, 9), None),
    ("top speed lap 4 vs lap 9", "compare", "top_speed", (4, 9), None),
    ("how LATE am I applying FULL power?", "channel", "pickup_point", (), None),  # where, after the apex
    ("at what distance before the corner do i brake for turn 7", "corner", "brake_point", (), "t7"),
    ("where am I neither braking nor on throttle", "channel", "coasting", (), None),
    ("where am i doing nothing, no brake no gas", "channel", "coasting", (), None),
    ("am i off the throttle and not braking anywhere for too long", "channel", "coasting", (), None),
    ("is there a gap between lifting and braking", "channel", "coasting", (), None),
    ("how does this session stack up vs the one before", "sessions", None, ("other",), None),
    ("compare lap 5 with lap 3", "compare", None, (5, 3), None),
    ("how much off-throttle time before braking?", "channel", "coasting", (), None),
    ("what was the lap time from before the pit stop?", "lap_time", "lap_time", (), None),
    ("how hard do I brake into turn 6?", "corner", "brake_pressure", (), "t6"),
    ("how much speed do i lose coasting?", "where_time", "coasting", (), None),
    ("i went out twice, which outing was better", "sessions", None, ("other",), None),
    ("compare session 1 and session 2", "sessions", None, ("other",), None),
    ("why was lap 5 not as fast as lap 3?", "why_slower", None, (5, 3), None),
]


@pytest.mark.parametrize(("text", "intent", "measure", "laps", "corner"), READ_AS)
def test_read_as(text: str, intent: str, measure: str | None, laps: tuple, corner: str | None) -> None:
    q = parse(text, SONOMA)
    got = tuple(x.number or x.pick or x.session for x in q.laps)
    assert (q.intent, q.measure, got, q.corner) == (intent, measure, laps, corner)


# the kart, the XRK and the VBOX: answered from their own data, or what they did not record said
ELSEWHERE: list[tuple[str, str, str]] = [
    ("kart", "how LATE am I applying FULL power?", r"^Throttle is not recorded"),
    ("kart", "do i coast much in the kart?", r"^Coasting cannot be measured: not recorded .*throttle"),
    ("agx", "do i coast?", r"^Coasting cannot be measured: not recorded .*throttle"),
    ("kart", "compare this session with my previous one", r"^You have no other session of your own at "),
    ("agx", "where am i losing time?", r"^No valid lap in this session"),
]


@pytest.mark.parametrize(("sess", "text", "said"), ELSEWHERE)
def test_other_sessions_say_what_they_have(
    eval_paddock: EvalPaddock, sess: str, text: str, said: str
) -> None:
    _, got = eval_paddock.answer(sess, "not_recorded", {"about": "throttle"}, text)
    assert re.search(said, got), got
