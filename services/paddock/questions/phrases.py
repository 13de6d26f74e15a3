"""Phrases that name a lap figure in other words (over the question's spelled words, ``Slots.joined``: a
space before and after every word): a speed on a straight, the best lap said without "best lap", a lap's
time asked beside another figure, a trend within this session, "first time" as an occasion. Pure."""

from __future__ import annotations

import re

from services.paddock.questions import words as w

# on a straight: "on the back straight", "down the main straight", "at the end of the straight"
_ON_STRAIGHT = re.compile(
    r" (?:on|down|along|end of|onto) (?:the |that |a )?(?:\w+ )?straights? "
    r"| the (?:back|front|main|long|pit|home|start finish|finish) straights? "
)
# the parts of a corner: "at the entry, middle or end?", "on the way in or out", "mid-corner", "the apex"
_PHASE = r"(?:entry|entries|turn in|mid corner|middle|apex|apexes|exit|exits|way in|way out|end)"
_PHASES = re.compile(
    rf" {_PHASE} (?:\w+ ){{0,4}}(?:or|and|versus) (?:\w+ ){{0,2}}{_PHASE} "
    r"| where in (?:the |a |each |my )?corners? "
)
# "how fast was lap 7?" is its time; "how fast was I going on lap 5?" is a speed
_LAP_SPEED = re.compile(
    r" how (?:fast|slow|quick) (?:was(?! i (?:\w+ )?(?:going|doing|travell?ing|moving|carrying|hitting|running) )"
    r"|$)"
)
# the best lap said without a pick: "what did I get down to?", "got it down to?", "the best I managed",
# "what was my fl?" (no wheel's figure named)
_BEST_SAID = re.compile(
    r" (?:get|got|gotten|bring|brought) (?:it |my times? |my laps? |my lap times? |the times? )?down to "
    r"| best (?:i|we) (?:managed|did|could do|could manage|got|achieved|ran|clocked) | (?:my|the|your) fl "
)
# a target lap time in the raw words: "did I break 1:47?", "did I get under 1:36?", "crack a 58?", "below the
# "1:50 barrier"?"
_TARGET = re.compile(
    r"\b(?:break|broke|broken|breaking|under|below|beat|beaten|beating|crack|cracked|cracking|into the"
    r"|dip(?:ped)? into|sub)\s+(?:a |the )?[\"“']?\d+:\d{2}"
    # "how close did I get to a 1:35?", "how far off a 1:35 was I?": the best lap against it
    r"|\bhow (?:close|near|far off|far) (?:\w+ ){0,4}?(?:to|from|off) (?:a |the )?[\"“']?\d+:\d{2}"
    r"|\b(?:break|broke|beat|crack|cracked)\s+(?:a |the )?\d+(?:\.\d+)?\s*(?:s|secs?|seconds?)\b"
    # "have I broken 58.5 yet?": a time in seconds with its decimals, no unit
    r"|\b(?:break|broke|broken|beat|beaten|crack|cracked)\s+(?:a |the )?\d{2,3}\.\d+\b"
    # "did I get all the way down to a 1:35.0?", "get down under 59 seconds?": the best lap against it
    r"|\b(?:get|got|getting|go|went|going|come|came|coming) (?:all the way |right )?down (?:to|under|below|into)\s+"
    r"(?:a |the )?[\"“']?(?:\d+:\d{2}|\d+(?:\.\d+)?\s*(?:s|secs?|seconds?)\b)"
    # a time of the driver's said: "was my 1:46.9 real?", "with a best of 1:46"
    r"|\bmy [\"“']?\d+:\d{2}|\bbest of (?:a |the )?[\"“']?\d+:\d{2}",
    re.IGNORECASE,
)
_TARGET_MINUTES = re.compile(
    r"\b(?:break|broke|broken|under|below|beat|beaten|crack|cracked|sub)\s+(?:a |the )?(\d{1,2})\s*(?:minutes?|mins?)\b",
    re.IGNORECASE,
)
_UNDER_WORDS = ("under", "below", "sub")
# "into the 58s", "into the 58 second range": under 59
_INTO_SECONDS = re.compile(
    r"\b(?:dip(?:ped)? )?into (?:the )?(\d{2,3})(?:s|[- ]seconds? (?:range|bracket|zone|club))\b",
    re.IGNORECASE,
)
# the lap time asked beside a channel's figure: "lap 3 time and top speed", "my best lap and my top speed"
_ALSO_TIME = re.compile(
    r" lap times? | laps? (?:and|plus|with) | times? (?:and|plus) | (?:and|plus) (?:my |the |a )?(?:lap )?times? "
)
# within this session: "as I went", "through the session", "over the stint" ("did I get faster as I went?")
_IN_SESSION = re.compile(
    r" (?:as i went|as the (?:session|day|stint|race) went|(?:through|over|during|throughout|in) (?:the|this|my) "
    r"(?:session|stint|run|race)|as i (?:got|did) more laps|by the end"
    # "at the end of the session", "towards the end", "later in the stint" (not the end of a straight)
    r"|(?:at|towards|toward|near) the end(?: of (?:the|my) (?:session|stint|run|race|day))?(?! of )"
    r"|later (?:on )?in (?:the|my) (?:session|stint|run|race|day)) "
)
# a change said of the laps: "improve", "get faster", "went slower", "got any better"
_TREND = re.compile(
    r" improv| (?:get|got|getting|go|went|going|become|became) (?:any |much |a bit )?(?:faster|quicker|slower|better|worse) "
    r"| (?:was|were|am) i (?:any |much |a bit )?(?:faster|quicker|slower) "
)
# after "first time": the occasion, not a lap ("first time on a big track", "my first time here")
_OCCASION = w.word_set("on at here out driving ever in with i doing trying using round around")


# the gear asked of every corner: "wrong gear anywhere?", "which corners am I in 3rd?", "each corner"
_GEAR_PLACES = re.compile(
    r" (?:anywhere|where|which (?:corners?|turns?|bends?)|(?:each|every|all the|all my) (?:corners?|turns?|bends?)"
    r"|(?:wrong|right|correct|best|ideal|too high a|too low a) gears?) "
)


# when the driver changes up, asked of the engine speed or the gear: "do I upshift too early?", "what rpm am I
# at when I shift?", "revving it out to redline before shifting?"
_SHIFT_WHEN = re.compile(
    r" (?:up)?shift\w* (?:\w+ ){0,3}(?:early|earlier|late|later|soon|sooner) | (?:before|when) (?:i |you )?"
    r"(?:up)?shift\w* | rpm (?:\w+ ){0,5}(?:up)?shift\w* | (?:up)?shift\w* (?:\w+ ){0,3}(?:rpm|revs|redline) "
)


def shift_when(joined: str) -> bool:
    return bool(_SHIFT_WHEN.search(joined))


def gear_places(joined: str) -> bool:
    return bool(_GEAR_PLACES.search(joined))


def corner_phases(joined: str) -> bool:
    """The parts of a corner set against each other ("entry or exit?", "where in the corner?")."""
    return bool(_PHASES.search(joined))


def on_straight(joined: str) -> bool:
    return bool(_ON_STRAIGHT.search(joined))


def lap_speed(joined: str) -> bool:
    """ "how fast was lap 7?", "my slowest lap, and how slow?": a lap's time, not a speed."""
    return bool(_LAP_SPEED.search(joined))


def best_said(joined: str) -> bool:
    return bool(_BEST_SAID.search(joined))


_CLOCK = r"(\d{1,2}):(\d{2}(?:\.\d+)?)"  # a lap time as written: minutes, seconds with their decimals
_CLOCK_TIME = re.compile(_CLOCK)
# a lap time the laps are set against: "how many laps under 1:36?", "which laps were below a 1:35.5?"
_UNDER = re.compile(
    r"\b(?:under|below|beneath|sub|faster than|quicker than|better than)\s+(?:a |the )?[\"“']?" + _CLOCK,
    re.IGNORECASE,
)
_LAPS_ASKED = re.compile(
    r"\b(?:how many|which|what|all) (?:\w+ ){0,2}laps\b|\blaps (?:were |did i \w+ )?under\b", re.I
)


def under_time(text: str) -> float | None:
    """The lap time, in seconds, a question sets every lap against ("how many laps under 1:36?"); None when
    it asks of the best alone ("did I get under 1:36?": ``target_time``)."""
    if not _LAPS_ASKED.search(text):
        return None
    if m := _UNDER.search(text):
        return _clock_s(m)
    mins = _TARGET_MINUTES.search(text)  # "how many laps under 2 minutes?"
    return int(mins.group(1)) * 60.0 if mins and mins.group(0).split()[0].lower() in _UNDER_WORDS else None


def target_time(text: str) -> float | None:
    """A lap time the driver aimed at, in seconds, in the question's own words ("did I break 1:47?", "how
    close did I get to a 1:35?", "crack 58 seconds?"): the best lap is set against it. None: none said."""
    if mins := _TARGET_MINUTES.search(text):  # "did I finally get under 2 minutes?"
        return int(mins.group(1)) * 60.0
    if into_s := _INTO_SECONDS.search(text):  # "did my times get into the 58s?": under 59
        return float(into_s.group(1)) + 1.0
    m = _TARGET.search(text)
    if m is None:
        return None
    if ":" in m.group(0) and (c := _CLOCK_TIME.search(text, m.start())):  # with its decimals ("1:35.5")
        into = re.match(r"(?:dip(?:ped)? )?into", m.group(0), re.I) and "." not in c.group(2)
        return _clock_s(c) + (1.0 if into else 0.0)  # "into the 1:34s": under 1:35
    sec = _SECONDS.search(text, m.start()) or _DECIMAL.search(text, m.start())
    return float(sec.group(1)) if sec else None


# a lap time the driver says of a lap ("was my best a 1:46.5?", "I was averaging 1:49"), not a time of day
_STATED = re.compile(w.LAP_CLOCK, re.I)


def stated_time(text: str) -> str | None:
    """The one lap time a question says as a claim, as written ("1:46.5"); None when it says none or more
    than one ("did my lap time drop from 1:30 to 1:27?" compares two)."""
    got = _STATED.findall(text)
    return f"{got[0][0]}:{got[0][1]}" if len(got) == 1 else None


def stated_s(said: str) -> tuple[float, float]:
    """(seconds, the step of the last digit said): "1:46.5" -> (106.5, 0.1), "1:49" -> (109.0, 1.0)."""
    m, sec = said.split(":")
    step = 10.0 ** -len(sec.split(".")[1]) if "." in sec else 1.0
    return int(m) * 60 + float(sec), step


def _clock_s(m: re.Match[str]) -> float:
    return int(m.group(1)) * 60 + float(m.group(2))


_SECONDS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:s|secs?|seconds?)\b")
_DECIMAL = re.compile(r"(\d{2,3}\.\d+)\b")  # "broken 58.5": seconds with their decimals


def also_time(joined: str) -> bool:
    return bool(_ALSO_TIME.search(joined))


def in_session(joined: str) -> bool:
    return bool(_IN_SESSION.search(joined))


def trend(joined: str) -> bool:
    return bool(_TREND.search(joined))


# the lap now against the best, the lap unnamed: "am I up or down on my best?", "how far down on my pb am I?"
_UP_ON_BEST = re.compile(r" (?:up|down)(?: or (?:up|down))? on (?:my |the )?(?:personal )?(?:best|fastest) ")


def up_on_best(joined: str) -> bool:
    return bool(_UP_ON_BEST.search(joined))


def occasion(toks: list[str], i: int) -> bool:
    """ "first time on a big track": the word at ``i`` ("first") and the next ("time") say an occasion."""
    return toks[i + 1 : i + 2] == ["time"] and bool(toks[i + 2 : i + 3]) and toks[i + 2] in _OCCASION


_TIME_WORDS = w.word_set("second seconds tenth tenths hundredths time bit")


def time_off(toks: list[str], i: int) -> bool:
    """ "knock a second off", "knocking two tenths off my time", "knock off seconds": the word at ``i`` is a
    verb of taking time off the lap, no reading of the car (engine knock); "top speed a bit off" is a reading."""
    if not toks[i].startswith(_CUT_VERBS):
        return False
    after = toks[i + 1 : i + 6]
    if after[:1] == ["off"]:  # "knock off seconds", "knock off a tenth"
        return any(t in _TIME_WORDS for t in after[1:5])
    return "off" in after and any(t in _TIME_WORDS for t in after[: after.index("off")])


_CUT_VERBS = ("knock", "shav", "chop", "cut", "tak", "trim")


def takes_time_off(toks: list[str]) -> bool:
    """ "knock a second off", "shave a few tenths", "knock off a couple of seconds": the question asks for
    time to find, even beside a word that names a reading."""
    return any(
        t.startswith(_CUT_VERBS)
        and (
            time_off(toks, i) or (t.startswith("shav") and any(x in _TIME_WORDS for x in toks[i + 1 : i + 5]))
        )
        for i, t in enumerate(toks)
    )


# a time the driver ran, asked in racers' words ("what did I do wrong?" is no time)
_RAN = re.compile(
    r" what (?:time )?did i (?:do|run|get|clock|go|post|set) (?!wrong |well |right |differently |better |worse )"
)


def ran_a_time(joined: str) -> bool:
    """ "what did I run today?", "what time did I do?", "what did I clock?": a lap time asked."""
    return _RAN.search(joined) is not None
