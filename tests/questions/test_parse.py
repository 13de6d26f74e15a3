"""The question reader: ~200 driver phrasings (the answer evals' own, the issue's, typos and shorthand) read
into exact ``Question`` fields, on Sonoma's corner ids with two of its names; corner ids on a track
numbered C1, C2 ...; and the reader's speed (a bench line, no wall-clock assert)."""

from __future__ import annotations

import time

import pytest

from services.paddock.questions.model import LapRef, Question
from services.paddock.questions.parse import parse

SONOMA = ("t1", "t2", "t3", "t3a", "t4", "t5", "t6", "t7", "t8", "t8a", "t9", "t10", "t11")
NAMES = {c: () for c in SONOMA} | {"t6": ("the Carousel", "carousel"), "t7": ("the hairpin", "hairpin")}

# the driver's words -> "intent laps=... corner=... sector=... measure=... agg=..." (a slot not given is
# empty); a lap is its number or pick, "@other" / "@<session id>" when of another session
TABLE: list[tuple[str, str]] = [
    ("What was my lap time on lap 4?", "lap_time laps=4 measure=lap_time"),
    ("What was my best lap?", "lap_time laps=fastest measure=lap_time"),
    ("Which was my slowest full lap, and how slow?", "lap_time laps=slowest measure=lap_time"),
    ("What was my average lap time?", "lap_time measure=lap_time agg=avg"),
    ("Why was lap 5 slower than lap 2?", "why_slower laps=5,2"),
    ("Compare lap 3 vs lap 8.", "compare laps=3,8"),
    ("What was my top speed?", "channel measure=top_speed"),
    ("What was my top speed on lap 3?", "channel laps=3 measure=top_speed"),
    ("What was my maximum rpm?", "channel measure=rpm agg=max"),
    ("What was the highest rpm on lap 4?", "channel laps=4 measure=rpm agg=max"),
    ("How high did I rev the engine?", "channel measure=rpm agg=max"),
    ("How consistent were my lap times?", "consistency"),
    ("What is my theoretical best lap?", "potential"),
    ("What was my minimum speed in turn 11 on lap 3?", "corner laps=3 corner=t11 measure=min_speed"),
    ("Where did I brake for turn 4 on lap 5?", "corner laps=5 corner=t4 measure=brake_point"),
    ("Where am I losing the most time?", "where_time"),
    ("Which corner costs me the most time?", "where_time"),
    ("Did my oil pressure drop at any point?", "judge measure=oil_pressure"),
    ("What was the highest oil temperature?", "channel measure=oil_temp agg=max"),
    ("What was my maximum coolant temperature?", "channel measure=coolant_temp agg=max"),
    ("What was my lowest oil pressure on lap 5?", "channel laps=5 measure=oil_pressure agg=min"),
    ("How hot did the water get?", "channel measure=coolant_temp agg=max"),
    ("Did I lock any wheels?", "events measure=lockup"),
    ("Did I get wheelspin anywhere?", "events measure=wheelspin"),
    ("Did the ABS kick in?", "events measure=abs"),
    ("What is my best lap at Sonoma across all my sessions?", "sessions measure=lap_time agg=min"),
    ("What was my best lap in my other session here?", "lap_time laps=fastest@other measure=lap_time"),
    ("How many sessions have I driven at Sonoma?", "sessions agg=count"),
    ("What was my lap time on lap 42?", "lap_time laps=42 measure=lap_time"),
    ("Why was lap 15 slower than lap 2?", "why_slower laps=15,2"),
    ("What was my top speed on lap 30?", "channel laps=30 measure=top_speed"),
    ("What were my tyre pressures?", "channel measure=tyre_pressure"),
    ("Did I lock up any wheels?", "events measure=lockup"),
    ("What was my peak brake pressure?", "channel measure=brake_pressure agg=max"),
    ("How much throttle did I use on lap 5?", "channel laps=5 measure=throttle"),
    ("What was my oil pressure?", "channel measure=oil_pressure"),
    ("What is the capital of France?", "unrelated"),
    ("Write me a poem about my cat.", "unrelated"),
    ("What is 17 times 23?", "unrelated"),
    ("Who won the 2021 Formula 1 championship?", "unrelated"),
    ("How long did lap 7 take?", "lap_time laps=7 measure=lap_time"),
    ("What did I do on lap 3?", "lap_time laps=3 measure=lap_time"),
    ("Give me my time for lap 5.", "lap_time laps=5 measure=lap_time"),
    ("Which lap was my quickest?", "lap_time laps=fastest measure=lap_time"),
    ("What was my worst lap time?", "lap_time laps=slowest measure=lap_time"),
    ("What's my mean lap time?", "lap_time measure=lap_time agg=avg"),
    ("How did lap 3 compare with lap 8?", "compare laps=3,8"),
    ("Lap 6 versus lap 10: where was the difference?", "compare laps=6,10"),
    ("What was my vmax on lap 7?", "channel laps=7 measure=top_speed"),
    ("What's the highest speed I reached?", "channel measure=top_speed"),
    ("what was the fastest reading on the logger this session?", "channel measure=top_speed"),
    ("did I see the shift lights on lap 3?", "channel laps=3 measure=rpm"),
    ("how long was I at WOT on lap 4?", "channel laps=4 measure=throttle"),
    ("What were my peak revs on lap 5?", "channel laps=5 measure=rpm agg=max"),
    ("What was my max rpm?", "channel measure=rpm agg=max"),
    ("How repeatable were my laps?", "consistency"),
    ("What would my ideal lap be with my best corners together?", "potential"),
    ("How slow was I at the apex of turn 7 on lap 2?", "corner laps=2 corner=t7 measure=min_speed"),
    ("Where is my biggest opportunity on this track?", "where_time"),
    ("Which turn should I work on to go faster?", "where_time"),
    ("Was there a problem with the oil pressure?", "judge measure=oil_pressure"),
    ("How hot did the oil get?", "channel measure=oil_temp agg=max"),
    ("What was the coolant temperature on lap 4?", "channel laps=4 measure=coolant_temp"),
    ("Where did I lock the brakes?", "events measure=lockup"),
    ("Did the stability control step in?", "events measure=dsc"),
    ("What's my all-time best lap at this track?", "sessions measure=lap_time agg=min"),
    ("How many sessions do I have here?", "sessions agg=count"),
    ("How fast was lap 77?", "lap_time laps=77 measure=lap_time"),
    ("What was my brake pressure on lap 6?", "channel laps=6 measure=brake_pressure"),
    ("What were my tyre temperatures?", "channel measure=tyre_temp"),
    ("What did I run on lap 5?", "lap_time laps=5 measure=lap_time"),
    ("What's my vmax?", "channel measure=top_speed"),
    ("Was the engine running hot?", "judge measure=coolant_temp"),
    ("How hard did I hit the brakes?", "channel measure=brake_pressure"),
    ("How far off my best was lap 9?", "compare laps=fastest,9"),
    ("What's the difference between my best and worst lap?", "compare laps=fastest,slowest"),
    ("What could I really do if I put my best bits together?", "potential"),
    ("Tell me a joke.", "unrelated"),
    ("What's 12 squared?", "unrelated"),
    ("whats my fastest lap", "lap_time laps=fastest measure=lap_time"),
    ("wat was my best laptime", "lap_time laps=fastest measure=lap_time"),
    ("time of my last lap?", "lap_time laps=last measure=lap_time"),
    ("how quick was lap 3", "lap_time laps=3 measure=lap_time"),
    ("lap 4 laptime pls", "lap_time laps=4 measure=lap_time"),
    ("how long was my slowest lap", "lap_time laps=slowest measure=lap_time"),
    ("my avg lap?", "lap_time measure=lap_time agg=avg"),
    ("top speed in mph", "channel measure=top_speed"),
    ("what was my top speed in kph on lap 8", "channel laps=8 measure=top_speed"),
    ("max speed on my fastest lap", "channel laps=fastest measure=top_speed"),
    ("revs on the last lap?", "channel laps=last measure=rpm"),
    ("what was the highest rpm", "channel measure=rpm agg=max"),
    ("hw consistant was i", "consistency"),
    ("compare my lap 4 and lap 6", "compare laps=4,6"),
    ("was lap 5 faster than lap 9?", "compare laps=5,9"),
    ("how much faster was my best lap than lap 3", "compare laps=fastest,3"),
    ("gap from my best lap to my worst", "compare laps=fastest,slowest"),
    ("whats my theoretical best from sectors", "potential"),
    ("what was the max oil pressure on lap 3", "channel laps=3 measure=oil_pressure agg=max"),
    ("coolant temp on the last lap?", "channel laps=last measure=coolant_temp"),
    ("whats my average speed in mph", "channel measure=speed agg=avg"),
    ("apex speed turn 2 lap 3 in kph", "corner laps=3 corner=t2 measure=min_speed"),
    ("which gear through T3 on lap 5?", "corner laps=5 corner=t3 measure=gear"),
    ("what gear was I in at turn 7?", "corner corner=t7 measure=gear"),
    ("what gear was I in at turn 11", "corner corner=t11 measure=gear"),
    ("what gear was i in", "channel measure=gear"),
    ("how hard was I braking into turn 4", "corner corner=t4 measure=brake_pressure"),
    ("throttle on lap 3?", "channel laps=3 measure=throttle"),
    ("whats the oil temp", "channel measure=oil_temp"),
    ("did i lock up", "events measure=lockup"),
    ("lap 55 top speed", "channel laps=55 measure=top_speed"),
    ("min speed at turn 99", "corner corner=t99 measure=min_speed"),
    ("sector 40 time", "sector sector=40"),
    ("what was my best sector 2?", "sector sector=2"),
    ("which sector did I lose time in on lap 4?", "sector laps=4"),
    ("theoretical best from my sectors?", "potential"),
    ("what was my best lap time", "lap_time laps=fastest measure=lap_time"),
    ("top speed lap 3 vs lap 5", "compare laps=3,5 measure=top_speed"),
    ("lap 4 vs lap 6 in sector 2", "compare laps=4,6 sector=2"),
    ("where did lap 5 lose time against lap 3?", "compare laps=5,3"),
    ("Why was lap 7 slower than lap 3 at turn 2?", "why_slower laps=7,3 corner=t2"),
    ("Is my car understeering?", "balance"),
    ("was my oil pressure ok?", "judge measure=oil_pressure"),
    ("how late can I brake into turn 11?", "corner corner=t11 measure=brake_point"),
    ("did I get any warnings or alarms?", "events measure=alarm"),
    ("are my temps fine?", "judge measure=temps"),
    ("why is my oil temperature above normal?", "judge measure=oil_temp"),
    ("do I slow down too early and too much in the faster corners?", "where_time"),
    ("how many corners are there?", "unknown"),
    ("is everything ok with the engine?", "judge"),
    ("did I hit the rev limiter", "judge measure=rpm"),
    ("was I over revving on lap 3", "judge laps=3 measure=rpm"),
    ("what was my highest rpm on lap 3", "channel laps=3 measure=rpm agg=max"),
    ("where's my brake marker for T3", "corner corner=t3 measure=brake_point"),
    # where the throttle comes off, or flat; "flat after T3" is the throttle out of it
    ("where do I lift?", "channel measure=lift_point"),
    ("where should I lift for turn 10?", "corner corner=t10 measure=lift_point"),
    ("can I take turn 1 flat?", "corner corner=t1 measure=lift_point"),
    ("is T9 flat out?", "corner corner=t9 measure=lift_point"),
    ("how soon am I flat after T3", "corner corner=t3 measure=throttle"),
    ("where do I come off the throttle?", "channel measure=lift_point"),
    ("am I getting on the power early enough?", "channel measure=pickup_point"),
    ("where do I pick up the throttle?", "channel measure=pickup_point"),
    ("when was I flat out the longest?", "channel measure=throttle"),
    ("is my braking consistent?", "consistency measure=brake_point"),
    ("was I smooth on the throttle?", "channel measure=smoothness"),  # every input's smoothness
    ("am I sawing at the wheel?", "channel measure=smoothness"),
    ("where do I need to be faster, or smoother?", "where_time measure=smoothness"),  # where the time is
    ("am I braking too hard?", "channel measure=brake_pressure"),  # the pressure, not where
    ("what happened on lap 7?", "why_slower laps=7"),  # that lap against the best, with its losses
    # the car leaving the track or spinning (an alarm "going off" sounds; a wheel spinning is wheelspin)
    ("did I go off anywhere?", "events measure=off"),
    ("did I spin?", "events measure=off"),
    ("did any alarms go off?", "events measure=alarm"),
    ("did the rev limiter go off?", "judge measure=rpm"),
    ("how much faster can I go in T3?", "where_time corner=t3"),  # that corner's time to find
    # over the session: the last lap against the best (the end of a straight is no end of the session)
    ("was I quicker at the end of the session?", "compare laps=fastest,last"),
    ("did I get quicker towards the end?", "compare laps=fastest,last"),
    ("top speed at the end of the straight", "channel measure=top_speed"),  # each corner's brake points
    # what went well: the strengths, not where the time is
    ("what did I do well?", "strengths"),
    ("what's my best corner?", "strengths"),
    ("any positives from today?", "strengths"),
    ("what went right?", "strengths"),
    ("how did I do vs my other session", "sessions laps=@other"),
    ("compare with my other session", "sessions laps=@other"),
    ("what sessions do I have here", "sessions"),
    ("what's the weather", "unrelated"),
    ("throtle on L5", "channel laps=5 measure=throttle"),
    ("how late was I brakng into T11", "corner corner=t11 measure=brake_point"),
    ("Whats my fastets lap?", "lap_time laps=fastest measure=lap_time"),
    ("rpms on the 3rd lap", "channel laps=3 measure=rpm"),
    ("laps 3 to 5 top speed", "compare laps=3,4,5 measure=top_speed"),
    ("lap 3 to lap 5 gap", "compare laps=3,5"),
    ("the hairpin on lap 4", "corner laps=4 corner=t7"),
    ("how fast through the carousel", "corner corner=t6 measure=speed"),
    ("turn eleven min speed lap three", "corner laps=3 corner=t11 measure=min_speed"),
    ("compare lap 5 with lap 3 of my other session", "compare laps=5,3@other"),
    ("compare lap 2 with lap 3 of session 20260601-101500-ab12cd", "compare laps=2,3@20260601-101500-ab12cd"),
    ("my other session's best lap", "lap_time laps=fastest@other measure=lap_time"),
    ("debrief please", "debrief"),
    ("how did I do?", "debrief"),
    ("what should I work on before I go out", "brief"),
    ("brief me", "brief"),
    ("PB?", "lap_time laps=fastest measure=lap_time"),
    ("vmax L5", "channel laps=5 measure=top_speed"),
    ("the third corner on lap 2", "corner laps=2 corner=t3"),
    ("min speed in the 3rd turn", "corner corner=t3 measure=min_speed"),
    ("my second sector on lap 4", "sector laps=4 sector=2"),
    ("turn 3a entry speed", "corner corner=t3a measure=entry_speed"),
    ("T8A exit speed", "corner corner=t8a measure=exit_speed"),
    ("laps 2, 4 and 6", "compare laps=2,4,6"),
    ("laps 3-5", "compare laps=3,4,5"),
    ("fastets lap?", "lap_time laps=fastest measure=lap_time"),
    ("brakng point T3 L4", "corner laps=4 corner=t3 measure=brake_point"),
    ("throtle position on lap 7", "channel laps=7 measure=throttle"),
    ("rpms lap 2 vs lap 6", "compare laps=2,6 measure=rpm"),
    ("oil presure ok?", "judge measure=oil_pressure"),
    ("coolent temp", "channel measure=coolant_temp"),
    ("tyre temprature", "channel measure=tyre_temp"),
    ("sectr 3 on lap 5", "sector laps=5 sector=3"),
    ("slowets lap", "lap_time laps=slowest measure=lap_time"),
    ("understeer in the hairpin", "balance corner=t7"),
    ("oversteer on exit of T6", "balance corner=t6"),
    ("L3 v L5", "compare laps=3,5"),
    ("T11 braking L3 vs L4", "compare laps=3,4 corner=t11 measure=brake_point"),
    ("S2 lap 4 vs lap 6", "compare laps=4,6 sector=2"),
    ("PB lap top speed", "channel laps=fastest measure=top_speed"),
    ("gear at T9", "corner corner=t9 measure=gear"),
    ("how many times did I lock up", "events measure=lockup agg=count"),
    ("fuel level at the end", "channel measure=fuel_level"),
    ("battery voltage lap 3", "channel laps=3 measure=battery_voltage"),
    ("g force in the carousel", "corner corner=t6 measure=lat_g"),
    ("steering angle at turn 4 on my fastest lap", "corner laps=fastest corner=t4 measure=steering"),
    ("where do I lose time on lap 5?", "where_time laps=5"),
    ("which corner is my weakest", "where_time"),
    ("what's my potential", "potential"),
    ("optimal lap?", "potential"),
    ("lambda on lap 3", "channel laps=3 measure=lambda"),
    ("did the engine light come on", "events measure=engine_light"),
    ("any alarms?", "events measure=alarm"),
    ("are my tyre pressures ok", "judge measure=tyre_pressure"),
    ("did the car overheat", "judge measure=coolant_temp"),
    ("is the rear loose on exit", "balance"),
    ("how did I do vs last time", "sessions laps=@other"),
    ("best lap last session", "lap_time laps=fastest@other measure=lap_time"),
    ("my best ever", "sessions measure=lap_time agg=min"),
    ("what is the weather like at sonoma", "unrelated"),
    ("tell me about the carousel", "corner corner=t6"),
    ("lap three time", "lap_time laps=3 measure=lap_time"),
    ("3rd lap top speed", "channel laps=3 measure=top_speed"),
    ("how much time did I lose in turn 6 on lap 4", "where_time laps=4 corner=t6"),
    ("average speed through turn 2", "corner corner=t2 measure=speed agg=avg"),
    ("entry speed T10 lap 3 vs lap 7", "compare laps=3,7 corner=t10 measure=entry_speed"),
    ("how many laps were valid", "lap_time measure=lap_time agg=count"),
    ("first lap time", "lap_time laps=first measure=lap_time"),
    ("where's the time on my last lap vs my best", "compare laps=last,fastest"),
    ("how are you", "unrelated"),
    ("why is the sky blue", "unrelated"),
    ("lap number 12 time", "lap_time laps=12 measure=lap_time"),
    ("laps 4 through 6 rpm", "compare laps=4,5,6 measure=rpm"),
    ("corner twenty one speed", "corner corner=t21 measure=speed"),
    ("where do I brake for the carosel", "corner corner=t6 measure=brake_point"),
    ("gap to my best on lap 7", "compare laps=fastest,7"),
    ("time in sector 3 on my best lap", "sector laps=fastest sector=3"),
    ("How's my T4 looking?", "corner corner=t4"),
    ("lap 5 sector 2 vs best", "compare laps=5,fastest sector=2"),
    ("How much quicker could I be?", "potential"),
    ("what's my best possible lap", "potential"),
    ("how much time am I leaving on the table", "potential"),
    ("am I coasting too much", "channel measure=coasting"),
    ("where am I slow", "where_time"),
    ("which lap had the highest top speed", "channel measure=top_speed agg=max"),
    ("what's my typical lap", "lap_time measure=lap_time agg=avg"),
    ("what was my slowest corner", "where_time"),
    ("my worst sector?", "sector"),
    ("which sector was my slowest", "sector"),
    ("what's my delta on lap 5", "compare laps=5"),
    ("any abs on lap 6?", "events laps=6 measure=abs"),
    ("was the tc working", "events measure=dsc"),
    ("how hot were the tyres", "channel measure=tyre_temp agg=max"),
    ("is my oil temp too high", "judge measure=oil_temp"),
    ("water temp ok?", "judge measure=coolant_temp"),
    ("how do I go faster through turn 10", "where_time corner=t10"),
    (
        "did I carry more speed into turn 7 on lap 4 than lap 2",
        "compare laps=4,2 corner=t7 measure=entry_speed",
    ),
    ("compare turn 3 on lap 2 and lap 5", "compare laps=2,5 corner=t3"),
    ("lap two vs lap four", "compare laps=2,4"),
    ("second lap vs fourth lap", "compare laps=2,4"),
    ("where did I gain time on lap 6", "where_time laps=6"),
    ("hi", "unrelated"),
    ("thanks!", "unrelated"),
    ("How close were my laps to each other?", "consistency"),
    ("How many g's did I pull in the carousel?", "corner corner=t6 measure=lat_g"),
    ("Did the coolant go above 110?", "judge measure=coolant_temp"),
    ("Does the car push mid-corner?", "balance"),
    ("How much time can I gain in turn 11?", "where_time corner=t11"),
    ("How many times have I been to this track?", "sessions agg=count"),
    ("What's the one thing I should fix?", "where_time"),
    ("Am I getting faster?", "sessions"),
    ("How did my best lap compare to the session before?", "compare laps=fastest,fastest@other"),
    ("what's my best lap compared to my other session?", "compare laps=fastest,fastest@other"),
    ("Have I improved since last time?", "sessions laps=@other"),
    ("What was my quickest lap today?", "lap_time laps=fastest measure=lap_time"),
    ("How much slower was lap 8 than my best?", "compare laps=8,fastest"),
    ("Am I braking too early for turn 11?", "corner corner=t11 measure=brake_point"),
    ("How much speed am I carrying through the carousel?", "corner corner=t6 measure=speed"),
    ("What's my exit speed out of turn 11?", "corner corner=t11 measure=exit_speed"),
    ("When do I pick up the throttle in turn 10?", "corner corner=t10 measure=throttle"),
    ("Was my oil temperature within limits?", "judge measure=oil_temp"),
    ("In which corner did lap 9 lose the most compared to lap 4?", "compare laps=9,4"),
    ("What's the time difference between lap 2 and lap 5 in sector 3?", "compare laps=2,5 sector=3"),
    ("If I put my best sectors together, what would I get?", "potential"),
    ("Why was my last lap slow?", "why_slower laps=last"),
    ("Was traction control cutting in?", "events measure=dsc"),
    ("Did I get an oil pressure warning?", "events measure=alarm"),
    ("What was my average speed on lap 4?", "channel laps=4 measure=speed agg=avg"),
    ("Give me a summary of my session", "debrief"),
    ("How can I go faster?", "where_time"),
    (
        "how did the weather change my lap 5 time",
        "lap_time laps=5 measure=lap_time",
    ),  # a lap named: not declined
    ("before I go out, what was my best lap?", "lap_time laps=fastest measure=lap_time"),
    ("how do lap 3 and lap 5 add up together?", "compare laps=3,5"),  # two laps: a comparison
    ("speed, highest on lap 3?", "channel laps=3 measure=top_speed"),
    ("was lap 5 faster than 9?", "compare laps=5,9"),
    ("lap 3 against 7 at turn 2", "compare laps=3,7 corner=t2"),
    ("lap 3 of my other session", "lap_time laps=3@other measure=lap_time"),
    ("top speed on lap 6 from last session", "channel laps=6@other measure=top_speed"),
    ("at turn 6 what speed was the lowest", "corner corner=t6 measure=min_speed"),
    ("Where am I leaving time?", "where_time"),
    ("what lap did I set my PB on", "lap_time laps=fastest measure=lap_time"),
    ("How many tenths can I find in sector 3?", "where_time sector=3"),
    ("rate my session", "debrief"),
    ("did I get quicker as the session went on", "lap_time measure=lap_time agg=each_lap"),
    ("how did my lap times change over the session", "lap_time measure=lap_time agg=each_lap"),
    ("what was my top speed over the session", "channel measure=top_speed"),
    ("top speed every lap", "channel measure=top_speed agg=each_lap"),
    ("what's my apex speed at turn 4 on each lap", "corner corner=t4 measure=min_speed agg=each_lap"),
    ("fastest vs slowest", "compare laps=fastest,slowest"),
    ("L2 vs L4 T6", "compare laps=2,4 corner=t6"),
    ("how early do I brake into turn 11 compared to lap 3", "compare laps=3 corner=t11 measure=brake_point"),
    ("did the water temp alarm come on", "events measure=alarm"),
    ("what was my best lap this session", "lap_time laps=fastest measure=lap_time"),
    ("compare lap 5 with bo's best lap", "compare laps=5,fastest@bo"),  # another driver's: by name
    ("how far off bo's lap 4 was I?", "compare laps=4@bo"),
    ("my best against bo's", "compare laps=fastest,fastest@bo"),
    ("the car's top speed", "channel measure=top_speed"),  # a word the vocabulary knows: no driver
    ("my laps please", "lap_time measure=lap_time agg=each_lap"),
    ("how hot did the brakes get", "channel measure=brake_temp"),  # not recorded: said so
    ("were my tyres up to temperature", "judge measure=tyre_temp"),
    ("how long was the session", "unknown"),  # no lap time
    ("what time did the session start", "unknown"),
    ("how long was my session's best lap", "lap_time laps=fastest measure=lap_time"),
    ("what was my fastest time through turn 10", "corner laps=fastest corner=t10 measure=lap_time"),
    (
        "what's my braking point for turn 7 on lap 5 vs lap 8",
        "compare laps=5,8 corner=t7 measure=brake_point",
    ),
    ("did the battery voltage drop", "judge measure=battery_voltage"),
    ("when was the oil pressure lowest", "channel measure=oil_pressure agg=min"),
    # a speed said as a figure is a question about speed; the figure is no lap
    ("was I hitting 68mph?", "channel measure=top_speed"),
    ("I cant remember flying 309km/h... Or gps glitch?", "channel measure=top_speed"),
    ("what was I topping out at?", "channel measure=top_speed"),
    ("what's the lowest-hanging fruit?", "where_time"),
    ("where's the easiest time?", "where_time"),
    # "first ever" is no question about all sessions; lap 12 stays named
    ("Lap 12 - hit kerb for first ever time at the esses, lost 3 tenths?", "where_time laps=12"),
    ("my best lap ever", "sessions measure=lap_time agg=min"),
    # "right" before a place stresses it; alone or before a lap it judges
    ("did I have my PB right near the end?", "lap_time laps=fastest measure=lap_time"),
    ("is my oil pressure right?", "judge measure=oil_pressure"),
    ("was my oil pressure right on lap 3?", "judge laps=3 measure=oil_pressure"),
    # "knock off" time is no engine knock; "top-end" of the revs is no top speed; a gearbox that overheats is
    # the gearbox's temperature, not the engine's; "markers" are brake markers; a skid is a lockup
    ("where could I knock off a couple of seconds?", "where_time"),
    ("was my engine knocking?", "channel measure=knock"),
    ("how was my top-end rpm", "channel measure=rpm"),
    ("did my transmission overheat today?", "channel measure=gearbox_temp"),
    ("do I use the same markers every lap for turn 4?", "corner corner=t4 measure=brake_point agg=each_lap"),
    ("any skid marks into turn 3?", "events corner=t3 measure=lockup"),
    ("have I raced here before?", "sessions"),
    ("what was my ultimate lap?", "potential"),
    ("were all my laps a 1:36 flat?", "lap_time measure=lap_time agg=each_lap"),
    ("was I flat through turn 1?", "corner corner=t1 measure=lift_point"),  # flat, or where I lifted
    ("was the stock radiator up to the task?", "judge measure=coolant_temp"),
    ("how are my stocks doing?", "unrelated"),
    ('did I dip below the "1:36 barrier"?', "lap_time laps=fastest measure=lap_time"),
    # a vital lost is its drop, judged, never time lost
    ("did I lose oil pressure?", "judge measure=oil_pressure"),
    ("was there no fuel pressure on lap 4?", "judge laps=4 measure=fuel_pressure"),
    ("do I lose time when the oil is hot?", "where_time measure=oil_temp"),
    # "lift before the brakes" is the coast; decel is braking g, not lateral; "good"
    # or "alright" said of a vital judges it, of a lap it does not; "went wrong" asks why; "mechanically" and
    # an unstable car
    ("do I lift before the brakes into turn 10?", "corner corner=t10 measure=coasting"),
    ("what was my peak decel?", "channel measure=long_g"),
    ("max g under braking?", "channel measure=long_g agg=max"),
    ("oil pressure good?", "judge measure=oil_pressure"),
    ("is the coolant temp alright?", "judge measure=coolant_temp"),
    ("how good was my best lap?", "lap_time laps=fastest measure=lap_time"),
    ("what went wrong on lap 4?", "why_slower laps=4"),
    ("did anything go wrong mechanically?", "judge"),
    ("where is the car unstable?", "balance"),
    ("shave a few tenths off in turn 4?", "where_time corner=t4"),
    # "how many" of a unit asks the reading, not a count; over-geared is the gearing
    ("how many revs do I pull?", "channel measure=rpm"),
    ("how many times did I lock up?", "events measure=lockup agg=count"),
    ("am I over-geared?", "channel measure=gearing"),
    # time lost in other words: a corner "killing" the lap, overdriving; "what makes" asks why
    ("which corner is killing my lap time?", "where_time"),
    ("where am I overdriving?", "where_time"),
    ("what makes my slow laps slow?", "why_slower"),
    # how near a lap time the best came is the best lap, not the laps' spread nor another lap
    ("how close did I get to a 1:35?", "lap_time laps=fastest measure=lap_time"),
    ("how far off a 1:35 was I?", "lap_time laps=fastest measure=lap_time"),
    # changing down or up is the gearbox
    ("do I change down too early into turn 7?", "corner corner=t7 measure=gear"),
    ("when do I change up?", "channel measure=shift_rpm"),
    # what the file records
    ("what channels are there?", "channel measure=recorded"),
    ("what data do you have for this session?", "channel measure=recorded"),
    # laps set against a lap time are every lap's (the best alone: "did I get under 1:36?"); a clean lap is
    # no lean mixture
    ("how many laps were under 1:36?", "lap_time measure=lap_time agg=count"),
    ("was lap 4 a clean lap?", "lap_time laps=4 measure=lap_time"),
    # a gear by its word after "in"/"holding", its speed beside it; time to find by a quantity of it
    ("was I in third through turn 9?", "corner corner=t9 measure=gear"),
    ("would holding fourth out of T10 be quicker", "corner corner=t10 measure=gear"),
    ("is 3rd losing me too much speed in turn 6", "corner corner=t6 measure=gear"),
    ("was I in second place?", "unrelated"),
    ("where's half a second hiding?", "where_time"),
    ("two tenths in one corner, where?", "where_time"),
    ("where should I attack harder?", "where_time"),
    ("where do I find 2 sec", "where_time"),
    ("how quick does the car go?", "channel measure=top_speed"),
    ("my top speed looks a bit off", "channel measure=top_speed"),
    ("is my current lap ahead of my best?", "compare laps=last,fastest"),
    ("was lap three quicker than seven?", "compare laps=3,7"),
    ("was lap three quicker than one second?", "compare laps=3"),  # no lap 1
    ("why did the CEL come on?", "events measure=engine_light"),
    ("is oil pressure steady or jumping around?", "judge measure=oil_pressure"),
    ("is the car stable on the brakes?", "balance measure=brake_point"),
    ("were my times dropping off all session?", "compare laps=fastest,last"),
    # stop 50: a pick by "quick", a figure said after a pick, up or down on the best, a tag question, a
    # claim about a lap ("is not"), kinds of session, a time taken off again, "the whole time", traffic
    ("show me my quick lap", "lap_time laps=fastest measure=lap_time"),
    ("quick question, what was lap 3?", "lap_time laps=3 measure=lap_time"),
    ("was my best a 1:46.5?", "lap_time laps=fastest measure=lap_time"),
    ("am I up or down on my pb?", "compare laps=fastest,last"),
    ("how far down on my best was lap 6", "compare laps=fastest,6"),
    ("where am I down on my best lap?", "where_time"),
    ("the opening lap is never my fastest, yeah?", "compare laps=first,fastest"),
    ("my average lap, not my best", "lap_time measure=lap_time agg=avg"),
    ("how did qualifying compare with the race?", "sessions laps=@other"),
    ("did I knock another tenth off?", "sessions laps=@other"),
    ("could I take another tenth off at T4?", "where_time corner=t4"),
    ("did the water temp stay under 100 the whole time?", "channel measure=coolant_temp"),
    ("did getting held up in traffic spoil lap 5?", "lap_time laps=5 measure=lap_time"),
    ("did the engine heat up too much?", "judge measure=coolant_temp"),
    ("did she push at turn in?", "balance"),
    # stop 51: readings found by probe phrasings from pages no eval cites (not committed)
    ("am I over cooking the brakes?", "channel measure=brake_temp"),
    ("what tire pressures did I use last time?", "channel laps=@other measure=tyre_pressure"),
    ("what was my top speed last time?", "channel laps=@other measure=top_speed"),
    ("was my slower lap losing time right off the start?", "compare laps=slowest"),
    ("what did the faster lap do differently?", "compare"),  # the faster of two compared: no pick
    ("which lap ended up being my best all day?", "lap_time laps=fastest measure=lap_time"),
    ("does the data say I could have gone a couple tenths quicker?", "potential"),
    ("piecing together my best sectors, what's my best lap?", "potential"),
    ("my best sectors together, what's my best lap?", "potential laps=fastest"),
    ("what is one clear objective for the session I am about to drive?", "brief"),
    ("am I pushing in the wrong places?", "where_time"),
    ("was the oil pressure gauge reading low?", "judge measure=oil_pressure"),
    ("was the oil pressure indicator lower than I would expect?", "judge measure=oil_pressure"),
    ("was I getting on throttle understeer anywhere?", "balance measure=pickup_point"),
    ("was I getting a bit of throttle understeer?", "balance measure=throttle"),
    ("did I go faster today at Sonoma?", "sessions"),
    ("was my pace faster than it was before?", "sessions"),
    ("where have the improvements been made?", "sessions"),
    ("where's the biggest improvement?", "where_time"),
    ("am I still a whole two seconds away from my PB lap time?", "sessions measure=lap_time agg=min"),
    ("was my top trap speed slower than our 1st driver?", "channel measure=top_speed agg=max"),
    ("What PSI am I running?", "channel measure=tyre_pressure"),
    ("did the dash start reporting fluctuating oil pressure?", "judge measure=oil_pressure"),
    ("did oil pressure consistently drop in turn 3?", "judge corner=t3 measure=oil_pressure"),
    ("I'm stuck on a time of 1:40 and I cannot budge off of it.", "where_time"),
    ("could I have found 3/10ths of a second?", "where_time"),
    ("did it get hotter than normal?", "judge measure=temps"),
    ("does my fastest lap come in around lap 2-4?", "compare laps=fastest,2,3,4"),
    ("lap 2 to lap 4", "compare laps=2,4"),
    ("what did I run today?", "lap_time measure=lap_time"),
    ("what time did I do?", "lap_time measure=lap_time"),
    ("what was my time?", "lap_time measure=lap_time"),
    ("what did I clock?", "lap_time measure=lap_time"),
    ("what did I do wrong?", "where_time"),
    ("how do I find the last fraction of a second?", "where_time"),  # never "traction"
    ("was I cracking the 1:35 barrier?", "lap_time laps=fastest measure=lap_time"),
    ("what did I get the bike up to on the GPS?", "channel measure=top_speed"),
    ("what's the best lap my best sectors add up to?", "potential laps=fastest"),
    ("were the brakes too hot?", "channel measure=brake_temp"),
    ("did the engine coolant over temperature warning come on?", "judge measure=coolant_temp"),
    # readings found by a fourth probe round (phrasings from pages no eval cites; not committed)
    ("could I have shortened my braking distance into turn 4?", "corner corner=t4 measure=brake_point"),
    ("did the ABS kick in at any stab of the brake pedal?", "events measure=abs"),  # not how smooth
    ("did I blue the discs at the end of the straight?", "channel measure=brake_temp"),
    ("did my 20psi OP warning lights illuminate?", "judge measure=oil_pressure"),
    ("was the car running warm?", "channel measure=coolant_temp"),
    ("was the motor starting to over-heat a little?", "judge measure=coolant_temp"),
    ("did the brakes over heat?", "channel measure=brake_temp"),
    ("What pressure did I go out at?", "channel measure=tyre_pressure"),
    ("did I get a trans high temp warning?", "channel measure=gearbox_temp"),  # that warning: not recorded
    ("do I really hit the brakes hard?", "channel measure=brake_pressure"),
    ("were all the readings on the car fine?", "judge"),
    ("are the vital signs safe enough to trust?", "judge"),
    ("pushing it to100km/h?", "channel measure=top_speed"),
    ("Fastest Dry Lap", "lap_time laps=fastest measure=lap_time"),
    ("did I get all the way down to a 1:35.0?", "lap_time laps=fastest measure=lap_time"),
    ("was my 1:46.9 real, or did it turn out to be an error?", "lap_time laps=fastest measure=lap_time"),
    ("did I run a personal best lap time?", "sessions measure=lap_time agg=min"),
    ("where could I get better and find that time?", "where_time"),  # a place, not the sessions
    ("did I mess up entry after entry?", "where_time"),
    ("do I always find myself lifting too early?", "channel measure=lift_point"),
    ("what was my best previous lap time on this layout?", "sessions measure=lap_time agg=min"),
    ("did the brakes feel poor?", "channel measure=brake_pedal"),
    ("did the car need about 0.5 quarts of oil added?", "channel measure=oil_level"),
    ("am I down on power?", "channel measure=power"),
    ("should I cool the brakes?", "channel measure=brake_temp"),
    ("did I cook the brakes and get a bunch of fade?", "channel measure=brake_temp"),  # cooking: no recipe
    ("was the track still slightly wet?", "channel measure=conditions"),
    ("recall the best lap for this venue?", "sessions measure=lap_time agg=min"),
    ("what was my old session time best?", "lap_time laps=fastest@other measure=lap_time"),
    ("is there much pace left to find?", "potential"),
    ("which difficult sections require special attention?", "where_time"),
    ("check I might have a puncture?", "channel measure=tyre_pressure"),
    ("did one tire go from 36psi to 40psi after a single run?", "channel measure=tyre_pressure"),
    ("How is my handbrake technique?", "channel measure=handbrake"),
    ("was I getting my kart around with only a little turning of the wheel?", "channel measure=steering"),
    # ordinals joined before "lap": every one a lap; beside a gear, a gear
    ("was I improving on my 2nd & 3rd lap?", "compare laps=2,3"),
    ("the 4th, 5th or 6th lap", "compare laps=4,5,6"),
    ("was I in 2nd and 3rd on lap 4?", "channel laps=4 measure=gear"),
    # a lap time written ("1:49") is a lap time asked, a time of day is not
    ("was I averaging 1:49?", "lap_time measure=lap_time agg=avg"),
    ("did I do a 1:49.5?", "lap_time measure=lap_time"),
    ("at 2:30 pm was it raining?", "unrelated"),
    ("is the time I need to find in turn 1?", "where_time corner=t1"),
    ("was I trail braking into turn 3?", "corner corner=t3 measure=trail_brake"),
    ("what % of the time was I trail braking?", "channel measure=trail_brake"),
    ("what's my average time?", "lap_time measure=lap_time agg=avg"),
    ("have I broken 58.5 yet?", "lap_time laps=fastest measure=lap_time"),
    ("did I break into the 58 second range?", "lap_time laps=fastest measure=lap_time"),
    ("is turn 1 where I'm leaving time on the table?", "where_time corner=t1"),
    ("out of the sweep, was I up to red line?", "channel measure=rpm"),
    ("the red flag came out on lap 4, what was my time?", "lap_time laps=4 measure=lap_time"),
    ("has the temperature gauge crept past the halfway mark?", "channel measure=coolant_temp"),
    ("did I blow my engine?", "judge"),
    ("which lap did I have a nasty crash on?", "events measure=off"),
    ("was there a loss of oil?", "channel measure=oil_pressure"),
    ("do you have brake data?", "channel measure=brake_pressure"),
    ("did my lap time drop from 1:30 to 1:27?", "sessions laps=@other"),
    ("where exactly was time won or lost?", "where_time"),
    ("was it running a little hotter than normal, and how hot?", "channel measure=temps agg=max"),
    ("was i averaging 58-59 second lap times?", "lap_time measure=lap_time agg=avg"),
    ("was my knock correction negative?", "channel measure=knock"),
    ("did I boil the fluid by the end of the session?", "channel measure=brake_temp"),
    ("did I have a noticeably low left front tire?", "judge measure=tyre_pressure"),
    ("were my tyre temps low?", "judge measure=tyre_temp"),
    ("how much lap time did I leave on the track, and where?", "where_time"),
    ("what's my eclectic lap time?", "potential"),
    ("how much slower is my best lap than a lap made up of fastest sectors?", "potential laps=fastest"),
    ("which was my fastest sector?", "sector"),
    ("were the cabin temperatures unspeakable?", "channel measure=cabin_temp"),
    ("what should I be watching out for in my engine data?", "judge"),
    ("did I go round to the end of session with no temp problems?", "judge measure=temps"),
    ("is the car always below 190 degrees?", "channel measure=temps"),
    ("was I at 90 degrees of steering lock?", "channel measure=steering"),
    ("was I braking too late into turn 6, or too abruptly?", "corner corner=t6 measure=brake_point"),
]


def expected(spec: str) -> dict[str, object]:
    intent, *slots = spec.split()
    got: dict[str, object] = {"intent": intent, "laps": (), "corner": None, "sector": None}
    got |= {"measure": None, "aggregation": None}
    for slot in slots:
        key, value = slot.split("=")
        if key == "laps":
            got["laps"] = tuple(_lap(x) for x in value.split(","))
        elif key == "sector":
            got["sector"] = int(value)
        else:
            got[{"agg": "aggregation"}.get(key, key)] = value
    return got


def _lap(text: str) -> LapRef:
    what, _, session = text.partition("@")
    if what.isdigit():
        return LapRef(number=int(what), session=session or "this")
    return LapRef(pick=what or None, session=session or "this")  # type: ignore[arg-type]


def fields(q: Question) -> dict[str, object]:
    return {
        "intent": q.intent,
        "laps": q.laps,
        "corner": q.corner,
        "sector": q.sector,
        "measure": q.measure,
        "aggregation": q.aggregation,
    }


@pytest.mark.parametrize(("text", "spec"), TABLE, ids=[t for t, _ in TABLE])
def test_phrasing_reads_as_expected(text: str, spec: str) -> None:
    q = parse(text, NAMES)
    assert fields(q) == expected(spec)
    assert q.text == text and q.follow_up is False


def test_table_is_wide() -> None:
    assert len(TABLE) >= 150 and len({t for t, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(
    ("text", "corners", "corner"),
    [
        ("min speed at turn 11", ("t1", "t11"), "t11"),
        ("min speed at T11", (), "t11"),  # no track given: the turn's own id
        ("min speed at turn 4", tuple(f"c{i}" for i in range(1, 9)), "c4"),  # a track numbered C1..C8
        ("min speed at corner four", tuple(f"c{i}" for i in range(1, 9)), "c4"),
        ("min speed at C4", tuple(f"c{i}" for i in range(1, 9)), "c4"),
        (
            "min speed at turn 12",
            tuple(f"c{i}" for i in range(1, 9)),
            "c12",
        ),  # not on the track: said so later
        ("min speed at the hairpin", SONOMA, None),  # ids alone carry no names
        ("min speed at the hairpin", {"t7": ["the hairpin"]}, "t7"),
        ("min speed at turn 3a", SONOMA, "t3a"),
        ("min speed at devls elbow", {"t1": ["Turn 1", "Devils Elbow"], "t2": ["Bus Stop"]}, "t1"),  # a typo
        ("min speed at paddok hill bend", {"t1": ["Devils Elbow"], "t3": ["Paddock Hill Bend"]}, "t3"),
    ],
)
def test_corner_ids_follow_the_track(text: str, corners: object, corner: str | None) -> None:
    q = parse(text, corners)  # type: ignore[arg-type]
    assert (q.intent, q.corner, q.measure) == ("corner" if corner else "channel", corner, "min_speed")


def test_a_range_is_every_lap_of_it_up_to_twenty() -> None:
    assert [x.number for x in parse("top speed laps 2 to 7").laps] == [2, 3, 4, 5, 6, 7]
    assert [x.number for x in parse("top speed laps 2 to 40").laps] == [2, 40]  # too wide: the ends
    assert [x.number for x in parse("laps 1 to 21").laps] == list(range(1, 22))  # 20 more: still a range
    assert [x.number for x in parse("laps 1 to 22").laps] == [1, 22]
    assert [x.number for x in parse("lap 1234 time").laps] == [1234]  # four digits: a lap number
    assert parse("lap 12345 time").laps == ()  # five: no lap has it


def test_bench_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Microseconds per question over the table, cold caches excluded (one pass first): printed for the
    report, never asserted (no wall-clock asserts)."""
    for text, _ in TABLE:
        parse(text, NAMES)
    t0 = time.perf_counter()
    for _ in range(5):
        for text, _ in TABLE:
            parse(text, NAMES)
    us = (time.perf_counter() - t0) / (5 * len(TABLE)) * 1e6
    with capsys.disabled():
        print(f"\nparse: {us:.0f} us per question over {len(TABLE)} phrasings")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("did I get under 2 minutes?", 120.0),
        ("did I get into the 58s?", 59.0),  # any 58-something: under 59
        ("did I break 1:47?", 107.0),
        ("did I manage to get down under 59 seconds?", 59.0),
        ("did I get all the way down to a 1:35.0?", 95.0),
        ("was I 5 seconds slower, with a best of 1:46?", 106.0),
        ("how many laps under 2 minutes?", None),  # every lap set against it (``under_s``), not the best
    ],
)
def test_a_time_aimed_at_is_read_in_seconds(text: str, seconds: float | None) -> None:
    assert parse(text, SONOMA).target_s == seconds


def test_the_lap_beside_one_named_at_the_end_of_the_question() -> None:
    """ "... with the one just before": the lap named earlier, one along (as after "it")."""
    best, before = parse("compare my best lap with the one just before", SONOMA).laps
    assert (best.pick, best.offset, before.pick, before.offset) == ("fastest", 0, "fastest", -1)
    five, after = parse("compare lap 5 with the one after", SONOMA).laps
    assert (five.number, five.offset, after.number, after.offset) == (5, 0, 5, 1)
