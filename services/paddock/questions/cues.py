"""The words that say what a question is about, beside its slots: the intent cue phrases ``parse`` chooses
by, the words that lean on the previous question, the words of driving and of anything else, and the plain
English the typo fixer leaves alone. Pure data (``words.vocabulary`` unites it with the slot words)."""

from __future__ import annotations


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _lists(table: dict[str, str]) -> dict[str, tuple[str, ...]]:
    return {k: tuple(" ".join(p.split()) for p in v.split(",") if p.strip()) for k, v in table.items()}


# the words that carry a question on from the previous one ("and the slowest?", "what about turn 3?")
CARRY_ON = ("and", "also", "what about", "how about", "same for", "then", "now")
REFERS = _set("that it them those both")

# intent cue phrases (as words, after spelling); parse decides between them by the slots filled
CUES: dict[str, tuple[str, ...]] = _lists(
    {
        "debrief": "debrief, how did i do, how did i go, session summary, summary, review my session, recap",
        "brief": "brief, briefing, before i go out, plan for today, todays plan, next session",
        "other": """other session, previous session, last session, earlier session, session before,
                 last time out, last time""",
        "sessions": "session, sessions, all time, ever, here before",
        "judge": """ok, fine, normal, healthy, safe, problem, problems, issue, issues, worry, worried, concern,
                 within limits, in range, drop, dropped, dip, dipped, fall, fell, low, too low, too high,
                 too hot, hot, cold, overheat, overheating, overheated, running hot, spike, right, redline,
                 rev limiter, limiter, over rev, over revved, over revving""",
        "health": "temp, temperature, pressure, engine, vitals, gauges, health",
        "balance": """understeer, oversteer, balance, rotate, rotation, rotating, snap, snappy, car feel,
                 front end, rear end, wash out, washing out, washes out, loose, push wide, pushing wide""",
        "potential": """theoretical, ideal, optimal, achievable, potential, perfect lap, sum of, together,
                 could i be, on the table, best possible, possible, how much faster could,
                 could i do, could i run, could i go, capable of, best bits, all my best""",
        "consistency": "consistent, consistency, repeatable, repeatability, spread, variance",
        "where_time": """where am i slow, where am i slowest, where am i slower, slowest corner, slowest turn,
                 best corner, weak spot, weak spots, lose time, losing time, lost time, lose the most, losing the most, lost the most,
                 find time, find more time, gain time, opportunity, opportunities, work on, focus on,
                 improve, go faster, be faster, costs me, cost me, costing me, biggest gain, weakest, bleed,
                 bleeding, lose, losing, lost, time loss""",
        "lap_time": """how long, how quick, what did i do, what did i run, what did i get, what did i clock,
                 what did i go, lap""",
        "why": "why, how come",
    }
)
# words that make a question about driving data (with the measures, corners, sectors and laps)
DRIVING = _set("""coast coasting lap laps corner turn sector brake braking throttle speed fast faster fastest slow slower slowest
    session sessions tyre oil coolant water engine rpm gear line apex lose losing lost gain grip car track
    drive driving driver steer steering consistent consistency pressure temp temperature fuel delta debrief
    brief coach improve best personal pace stint race racing qualifying tenths traction balance understeer
    oversteer alarm warning kerb curb wheel wheels setup entry exit marker markers versus compare gap
    hairpin carousel esses chicane straight""")
# words that make a question plainly about something else
UNRELATED = _set("""weather forecast joke jokes poem poems song story capital france paris president recipe cook movie
    film news stock stocks bitcoin football soccer squared plus minus multiply divided cat dog
    championship won translate sky""")
# plain English words the typo fixer leaves alone (with the vocabulary above)
COMMON = _set("""looking look looks looked seem seems seemed feel feels felt feeling doing went
    going gone showing told given working worked works work happen happened happening change changed better
    worse bad great help try trying tried thought knew said says ask asked maybe today yesterday morning
    afternoon place brave trace making taking talking lucky pretty nice cool mind wrong true false kind
    leaving left table leave able lets thanks thank hello hey hi again done else anyway actually probably
    a about above after again against all am an and any anything are around as at away back be
    because been before being below between both but by can could day did do does doing done down during
    each else end enough even every everything few for from get gets getting give go goes going good got
    had has have having he her here him his how i if in into is it its just keep know last late later
    least less let like little long look made make many may me more most much must my need never
    new next no nor not now of off on once one only or other our out over own please put really right same
    say see she should show so some still such take tell than that the their them then there these they
    thing think this those through to too under until up upon us very want was way we well were what when
    where which while who whom why will with would yes yet you your first second third hard harder hit
    early earlier carry carried went ran run running came lower higher high low gave bits together
    sure show list number quick slow fast reach reached biggest big small across seconds metres meters
    feet kmh mph whole overall entire stay stayed hold held rate rated grade into onto kick kicked step
    stepped come came were where here there""")
