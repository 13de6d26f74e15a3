"""The words that say what a question is about, beside its slots: the intent cue phrases ``parse`` chooses
by, the words that lean on the previous question, the words of driving and of anything else, and the plain
English the typo fixer leaves alone. Pure data (``words.vocabulary`` unites it with the slot words)."""

from __future__ import annotations

import re


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _lists(table: dict[str, str]) -> dict[str, tuple[str, ...]]:
    return {k: tuple(" ".join(p.split()) for p in v.split(",") if p.strip()) for k, v in table.items()}


# the words that carry a question on from the previous one ("and the slowest?", "what about turn 3?")
CARRY_ON = ("and", "also", "what about", "how about", "same for", "then", "now", "than")
REFERS = _set("that it them those both")

# intent cue phrases (as words, after spelling); parse decides between them by the slots filled
CUES: dict[str, tuple[str, ...]] = _lists(
    {
        "debrief": """debrief, how did i do, how did i go, session summary, summary, review my session, recap,
                 rate my session, how was my session, how was the session, how did the session go""",
        "brief": """brief, briefing, before i go out, plan for today, todays plan, next session, objective,
                 objectives, about to drive, about to go out, session i am about""",
        "other": """other session, previous session, last session, earlier session, old session, older session,
                 session before, last time
                 out, last time, another session, different session, first session, each test, both tests,
                 yesterday, last week, last weekend, last month, last year, last visit, previous visit, last
                 outing, previous outing, last track day, previous track day, morning session, afternoon
                 session, previous run, earlier run, other run, last run out, other day, other days, previous
                 time, other time, session 1, session 2, session one, session two, which outing,
                 both outings, two outings, each outing, previous day, day before, before today, earlier today, best from before, both
                 sessions, two sessions, each session, both times, my two times, both days, two days, each
                 day, which session, what session, second session, third session,
                 last event, previous event, last meeting, which of my sessions, fastest session,
                 best session, quickest session, slowest session, in the past, than before""",
        "sessions": "sessions, all time, ever, here before",
        "judge": """up to temperature, up to temp, warm enough, in the window, working window, ok, fine, normal, healthy, safe, problem, problems, issue, issues, worry, worried,
                 mechanically, mechanical, reliability, blow my engine, blow the engine, blew my engine,
                 blew the engine, blown engine, blow up the engine, engine blew, engine let go, hurt the engine,
                 hurt my engine, engine damage, damage the engine, damaged the engine, out of range,
                 watching out for, watch out for, look out for, keep an eye on,
                 in the green, in the red, suffer, suffered, suffering, happy, unhappy,
                 health, vitals, at a glance, monitor, expected, would expect, than usual, than normal, usual, drops, dips, falls, dive, dives, diving,
                 dipping, dropping, dropped off, falls off, fall off, falling off, jumping around, fluctuating,
                 fluctuate, fluctuated, fluctuates, fluctuation, erratic, hotter than normal, hotter than usual,
                 surge, surging, starvation, starving,
                 concern, within limits, in range, drop, dropped, dip, dipped, fall, fell, low, too low, too
                 high, too hot, hot, cold, overheat, overheating, overheated, over heat, over heating, over heated, running hot, spike, right,
                 redline, rev limiter, limiter, over rev, over revved, over revving, above, exceed, exceeded,
                 beyond, go over, went over, went above, go above, get above, too much, red flag, red flags,
                 concerns, concerning, anything wrong, something wrong, come on, came on, comes on, coming on,
                 light up, lit up, flash, flashed, flashing, flicker, flickered, flickering, blink, blinked,
                 holding up, held up, hold up, all good, up to the task, up to the job, cope, coped, coping,
                 warning, warnings, alarm, alarms, alert, alerts,
                 light""",
        "health": """temp, temperature, pressure, engine, vitals, readings, gauges, health, holding up, held up, mechanically,
                 parameters, parameter,
                 mechanical, reliability""",
        "balance": """understeer, oversteer, balance, rotate, rotation, rotating, snap, snappy, car feel,
                 front end, rear end, wash out, washing out, washes out, loose, push wide, pushing wide,
                 pushes, car push, push mid corner, push on entry, push on exit, pushing mid corner,
                 push in, kart pushing, car pushing, kart push, kart pushes, car pushes, unstable, instability,
                 twitchy, nervous, push at turn in, pushing at turn in, push on turn in, she push, she pushed,
                 she pushing""",
        "potential": """theoretical, ultimate, ideal, optimal, achievable, potential, perfect lap, sum of, together,
                 pace left, time left in, left to find, composite, eclectic lap, eclectic,
                 made up of my best sector, made up of fastest sector, made up of the fastest sector,
                 made up of the best sector, made up of my fastest sector,
                 add up to, adds up to, added up, they add up,
                 could i be, on the table, best possible, possible, how much faster could, how much faster can,
                 how much quicker could, how much quicker can, faster can i go, quicker can i go, could i do, could i
                 run, could i go, capable of, best bits, all my best, virtual best, virtual lap, i could do, i could
                 run""",
        "consistency": """consistent, consistency, repeatable, repeatability, spread, variance, how close,
                 close together, each other, median, noisy, standard deviation, std dev, stdev, scatter,
                 scattered, vary, varied, variation, all over the place, same every lap, close to my average,
                 close to the average, close to my mean, near my average, range of my lap times, range of lap
                 times, range of my fastest, range of my laps, spread out, same pace, same lap time, same lap
                 times, same times, same time every lap, same times every lap""",
        "where_time": """leaving time, where am i leaving, can i find, could i find, where is the time,
                 leave on the track, left on the track, leave out on track, left out on track,
                 more seconds out of, more time out of, seconds out of my, time out of my,
                 where am i slow, where am i slowest, where am i slower, slowest corner, slowest turn,
                 weak spot, weak spots, lose time, losing time, lost time, lose the most, losing
                 the most, lost the most, find time, find more time, gain time, opportunity, opportunities,
                 work on, focus on, improve, go faster, be faster, costs me, cost me, costing me, biggest
                 gain, weakest, bleed, bleeding, lose, losing, lost, time loss, can i gain, could i gain,
                 gain, fix, mistake, mistakes, one thing, advice, tips, tip, what should i do, what should i
                 change, weakness, weaknesses, weak point, weak points, holding me back, what to work on,
                 concentrate on, needs work, need work, special attention, need attention, needs attention, require attention, requires attention, mess up, messed up, messing up, screw up, screwed up, wrong places, wrong place, wrong spots, do wrong, did wrong, cannot budge, cant budge, can not budge, cannot get below, cant get below, needs the most work, need the most work, low hanging
                 fruit, improvement, improvements, slowing me down, holding me up, doing wrong, wrong with my
                 driving, problem corner, problem corners, problem area, problem areas, problem spots, trouble
                 spots, time to find, time i need to find, time i have to find, time i could find, time i can find, time i need to make up, how do i get faster, how do i get quicker, how can i get faster, how can i get
                 quicker, how do i go quicker, should i practise, should i practice,
                 to practise, to practice, lowest hanging fruit, quick win, quick wins, easy time, easiest time, free
                 time, biggest improvement, push harder, push more, not at the limit, under driving, underdriving,
                 more commitment, commit more, timid, time slip, timeslip, all the grip, to get faster,
                 more aggressive, be aggressive, braver, be brave, more brave, more bravery, more courage,
                 too cautious, too careful, too conservative, more confident, more confidence, attack more,
                 giving up time, give up time, gave up time, overdriving, over driving, overdrive, overdrove,
                 killing my, killing me, hurting my, hurts my, hurting me""",
        "strengths": """do well, did well, doing well, done well, went well, going well, good at, am i strong,
                 strongest, strength, strengths, strong points, strong point, best corner, best corners,
                 positives, the positives, any positives, did right, doing right, went right, do right, nailed,
                 good job, praise, good news""",
        "lap_time": """how long, how quick, what did i do, what did i run, what did i get, what did i clock,
                 what did i go, lap""",
        "why": """why, how come, cause, causes, caused, causing, reason, reasons, what made, what makes, what is making, what was making, what making, went wrong, go wrong,
                what happened on, what happened in, what went on in,
                goes wrong, going wrong""",
        "fade": """getting slower, got slower, get slower, slower as, slowing down, slowed down, fall off, fell off,
                 falling off, drop off, dropped off, tailed off, tail off, faded, fading away, going faster,
                 going slower, faster at the start, slower at the end, faster early on, lap on lap, lap after
                 lap, faster and faster, slower and slower, keep getting faster, kept getting faster,
                 keeps getting faster, kept on getting faster, better and better, dropping off, stop improving,
                 stopped improving, times dropping, times dropped, times drop""",
        "visits": """been to this track, been here, times have i been, how often have i, been to, first time here,
                 first visit, driven here, raced here""",
        "progress": """getting faster, improving, improved, improve since, progress, getting better, any
                 better, get better, got better, faster than last time, trend, did i improve, have i improved,
                 improvement over, improvement on, improvements been made, improvements made, faster than before,
                 quicker than before, faster than it was before, quicker than it was before, go faster today,
                 went faster today, faster today, quicker today""",
    }
)
# "off both the brake and the throttle", "not on either the brakes or throttle": neither pedal (coasting)
# "neither braking nor on the throttle", "no brake no gas"
_PEDAL = r"(?:brakes?|braking|braked|throttle|gas|accelerator|accelerating|power|lift|lifting)"
NEITHER_PEDAL = re.compile(
    rf" (?:neither|either|nor|off|between|without|without being on) (?:on )?(?:the |both |my )?{_PEDAL} (?:or|nor|and) (?:on |off )?(?:the |my )?"
    rf"{_PEDAL} | no {_PEDAL} (?:and |or |nor )?no {_PEDAL} "
    rf"| (?:off|not on) (?:the |my )?{_PEDAL} (?:and|but|or|nor) (?:not|no|never|off) (?:on )?(?:the |my )?{_PEDAL} "
)
# from the brake's release back to the throttle (mid-corner): not the coast Pitwall measures (lift to brake)
BRAKE_TO_THROTTLE = re.compile(
    r" (?:off|release|releasing|released|let go of|letting go of|come off|coming off) (?:of )?(?:the |my )?brakes? "
    r"(?:\w+ ){0,3}(?:back )?(?:on|onto) (?:the |to the )?(?:throttle|gas|power|accelerator) "
)
# an ordinal read as a gear ("in 2nd", "3rd or 4th") unless it counts one of these ("my 2nd fastest lap")
TOP_GEAR = 8
ORDINAL_NOUNS = _set(
    """lap laps sector corner turn session sessions time times fastest best slowest quickest place position
    run stint attempt try outing one visit day week year row driver drivers half part guy car kart"""
)
# words that make a question about driving data (with the measures, corners, sectors and laps)
DRIVING = _set(
    """gauge gauges motor coast coasting lap laps corner turn sector brake braking throttle speed fast faster fastest slow slower
    slowest session sessions tyre oil coolant water engine rpm gear line apex lose losing lost gain grip
    car track drive driving driver steer steering consistent consistency pressure temp temperature fuel parameter parameters
    delta debrief brief coach improve best personal pace stint race racing qualifying tenths traction
    balance understeer oversteer alarm warning kerb curb wheel wheels setup entry exit marker markers
    versus compare gap hairpin carousel esses chicane straight kart karts karting vehicle vitals"""
)
# words that make a question plainly about something else
UNRELATED = _set(
    """weather forecast sunny joke jokes poem poems song story capital france paris president recipe cook
    movie
    film news stock stocks bitcoin football soccer squared plus minus multiply divided cat dog
    championship won translate sky"""
)
# plain English words the typo fixer leaves alone (with the vocabulary above)
COMMON = _set(
    """fraction fractions barrier heat recorded recording thread threads flipping services tend tends constant constantly steady
    looking look looks looked seem seems seemed feel feels felt feeling doing went going gone showing told
    given working worked works work happen happened happening change changed better worse bad great help
    try trying tried thought knew said says ask asked maybe today yesterday morning afternoon place
    brave trace making taking talking lucky pretty nice cool mind wrong true false kind leaving left
    table leave able lets thanks thank hello hey hi again done else anyway actually probably a about
    above after again against all am an and any anything are around as at away back be because been
    before being below between both but by can could day did do does doing done down during each else
    end enough even every everything few for from get gets getting give go goes going good got had has
    have having he her here him his how i if in into is it its just keep know last late later least less
    let like little long look made make many may me more most much must my need never new next no nor
    not now of off on once one only or other our out over own please put really right same say see she
    should show so some still such take tell than that the their them then there these they thing think
    this those through to too under until up upon us very want was way we well were what when where
    which while who whom why will with would yes yet you your first second third hard harder hit early
    earlier carry carried went ran run running came lower higher high low gave bits together sure show
    list number quick slow fast reach reached biggest big small across seconds metres meters feet kmh
    mph whole overall entire stay stayed hold held rate rated grade into onto kick kicked step stepped
    come came were where here there close closer closest near nearly far further farther often always
    sometimes usually again once twice three half quarter full empty open closed start started finish
    finished ended begin began stop stopped turned turning moved moving move kept keeps set sets put
    pull pulled pulling push pushed pulls cut cuts cutting drop rise rose rising falling hold holding
    catch caught miss missed missing found find finding spent spend save saved saving wait waited watch
    watched watching listen heard hear say said saying speak spoke talk talked call called name named
    mean meant meaning means point pointed show shown read reading write wrote written learn learned
    teach taught understand understood explain explained describe described answer answered question
    questions problem reason reasons cause caused effect result results number numbers figure figures
    data info information detail details summary overview list listed total totals count counted part
    parts piece pieces section bit side sides front rear back left right middle centre center top bottom
    inside outside early late soon now then today tonight week month year years hour hours minute
    minutes second moment while since ago before after during between among around about across along
    over under above below behind beside beyond near off onto into out up down away again also just only
    even still already yet almost quite rather really very too so such much many more most less least
    few several enough plenty lot lots bunch couple pair other another each every either neither both
    all any some none nothing something anything everything someone anyone everyone nobody people person
    guy guys friend friends mate buddy team my mine me myself you yours yourself we us our ours they
    them their instead maybe perhaps probably possibly definitely certainly sure surely clearly
    obviously basically honestly generally mostly mainly usually normally typically exactly roughly
    about approximately little less lower lowest higher highest bigger smaller larger longer shorter
    wider narrower heavier lighter harder softer stronger weaker earlier later better worse fewer wonder
    wondering curious interested need needed wanted hoping hope hoped guess guessed suppose supposed
    believe believed expect expected notice noticed remember remembered forget forgot chose choose
    choice decide decided plan planned trying attempt attempts string strung row waste wasted wasting leak leaked leaking hide
    hiding hidden idea chase chasing chased target targets aiming aim hunting counting including
    discounting leaving clean cleaner cleanest"""
)
