"""``_classify_intent``: a pure-Python keyword router. Rows are tried top to bottom; the first match wins."""

from __future__ import annotations

import re

from shared.profiles.track import load_track

# (intent, agent, patterns)
ROWS: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "debrief",
        "DebriefPipeline",
        (r"\bdebrief\b", r"how did i do", r"session summary", r"review my session"),
    ),
    ("brief", "BriefPipeline", (r"\bbrief\b", r"pre-session", r"before i go out", r"today'?s plan")),
    (
        "voice_script",
        "VoiceScriptAgent",
        (
            r"\bvoice scripts?\b",
            r"\bcue scripts?\b",
            r"\btts\b",
            r"\bpace notes?\b",
            r"\baudio cues?\b",
            r"\bgenerate (cue|voice|audio)",
        ),
    ),
    ("corner", "CornerCoachAgent", (r"\bt\d+a?\b", r"\bturn \d+a?\b", "__corners__")),
    ("gold_lap", "GoldLapAgent", (r"\bgold lap\b", r"\breference lap\b", r"\baj\b")),
    (
        "weather",
        "WeatherAdaptationAgent",
        (r"\bweather\b", r"\bfog\b", r"\bconditions\b", r"\bgreasy\b", r"track temp"),
    ),
    ("session_plan", "SessionPlannerAgent", (r"practice plan", r"laps available", r"i have \d+ laps")),
    (
        "incident",
        "IncidentReviewAgent",
        (r"\bincident\b", r"close call", r"\bscary\b", r"saved it", r"moment at"),
    ),
    (
        "race_pace",
        "RacePaceAgent",
        (r"race pace", r"\bstint\b", r"\bdegradation\b", r"tyre drop", r"tire drop"),
    ),
    ("goal", "GoalSettingAgent", (r"pb target", r"lap time goal", r"target lap", r"set me a goal")),
    (
        "mental_map",
        "MentalMapAgent",
        (
            r"\bvariance\b",
            r"\bconsisten(cy|t)\b",
            r"\binconsistent\b",
            r"mental map",
            r"\brepeatable\b",
            r"\bstable\b",
        ),
    ),
    (
        "lap_comparison",
        "LapComparisonAgent",
        (r"lap \d+ vs", r"compare lap", r"why was lap", r"fastest vs slowest"),
    ),
    (
        "progress",
        "ProgressTrackerAgent",
        (r"\bprogress\b", r"\bimproving\b", r"getting faster", r"over sessions"),
    ),
    (
        "setup",
        "SetupAdvisorAgent",
        (r"\bsetup\b", r"\bundersteer\b", r"\boversteer\b", r"\bbalance\b", r"car feel"),
    ),
    ("mindset", "MindsetCoachAgent", (r"\bfrustrated\b", r"\bplateau\b", r"not working", r"\bmotivation\b")),
    (
        "agent_meta",
        "AgentMetaAgent",
        (
            r"(slowest|latency|tool call|agent trace).*\bagents?\b",
            r"\bagents?\b.*(slowest|latency|tool call|trace)",
        ),
    ),
]
FALLBACK = ("telemetry", "TelemetryAgent")

# within an agent, the tool a question's topic points to (the first matching row that the agent has)
TOPIC_TOOLS: list[tuple[str, str]] = [
    (r"\b(alarms?|warnings?|warn(?:ed)?|alerts?)\b", "get_flags_and_alarms"),
    (r"\b(oil|coolant|engine|water temp|fuel pressure|overheat)", "get_engine_health_timeline"),
    (r"\b(tyres?|tires?|tpms)\b", "get_tire_thermal_window"),
    (r"\b(abs|dsc|mil|engine light|stability control)\b", "get_safety_events"),
    (r"\b(lock ?ups?|locking|wheel ?spin|spinning|traction)\b", "get_traction_events"),
    (r"\b(smooth|smoothness|inputs?|jerky)\b", "get_input_smoothness"),
    # where the time is: the session's opportunities (laps that lost time, with the cause), never the
    # typical-minus-best table alone, which says "no corner stands out" when mistakes were on few laps
    (
        r"\b(slow(?:er|est)?|los(?:e|ing|t) (?:the most )?time|find (?:some |more )?time|gain time|go faster|"
        r"be faster|work on|focus on|improve|opportunit\w*)\b",
        "get_opportunities",
    ),
]


def topic_tools(text: str) -> list[str]:
    """The tools a question's topic points to, most specific first (engine before tyres before ...)."""
    t = (text or "").lower()
    return [tool for pat, tool in TOPIC_TOOLS if re.search(pat, t)]


INTENTS = {i: a for i, a, _ in ROWS} | {FALLBACK[0]: FALLBACK[1]}


def _corner_words() -> list[str]:
    try:
        tr = load_track("sonoma")
    except KeyError:
        return []
    words: list[str] = []
    for c in tr.corners:
        words += [a.lower() for a in c.aliases]
        if c.landmark:
            words.append(c.landmark.lower().removeprefix("the "))
    return sorted(set(words), key=len, reverse=True)


def _classify_intent(text: str, override: str | None = None) -> tuple[str, str]:
    """(intent, agent name) for a user's text; a valid ``override`` wins."""
    if override and override in INTENTS:
        return override, INTENTS[override]
    t = " " + (text or "").lower() + " "
    for intent, agent, pats in ROWS:
        for p in pats:
            if p == "__corners__":
                if any(re.search(rf"\b{re.escape(w)}\b", t) for w in _corner_words()):
                    return intent, agent
            elif re.search(p, t):
                return intent, agent
    return FALLBACK
