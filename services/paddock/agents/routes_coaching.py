"""Driver-question routes to the opportunities and the threads: "where can I find time?", "what should I
work on?", "did I fix T11?". Each answer is the tool's result in Pitwall's own sentences (the figures it
cites are the result's, for the narrator's fact sheet and the grounding check). Runs tools (call it in a
worker thread)."""

from __future__ import annotations

import re
from typing import Any

from services.paddock.agents.coaching_lines import opportunities_text, threads_text
from services.paddock.agents.data_answer import DataAnswer
from services.paddock.tools.registry import run_tool

FIND_TIME = re.compile(
    r"find (?:some |more )?time|(?:gain|pick up|make up|find) (?:some |more )?time|time to (?:find|gain)|"
    r"where (?:do|did|am|can|could) i (?:lose|losing|lost)|losing (?:the most )?time|lose (?:the most )?time|"
    r"costs? me (?:the )?most time|biggest (?:gain|loss|opportunit)|opportunit|"
    r"(?:what|which (?:turns?|corners?|part)) should i (?:work on|focus on|improve)|"
    r"where (?:can|could|should) i (?:improve|be faster|go faster)"
)
THREADS = re.compile(
    r"\bthreads?\b|did i fix|have i fixed|am i (?:still|getting better)|since (?:the )?last (?:session|time)|"
    r"compared (?:to|with) (?:the )?last (?:session|time)|better than last (?:session|time)"
)
CORNER = re.compile(r"\b(?:t\d+[a-z]?|turn \d+[a-z]?|corner \d+)\b")


def threads(q: str, s: dict[str, Any]) -> DataAnswer | None:
    if not THREADS.search(q):
        return None
    args = {"session_id": s["session_id"]}
    out = run_tool("get_threads", args)
    return DataAnswer(threads_text(out), "get_threads", args, out)


def opportunities(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Where the time is, for the session: a question about one corner goes to that corner instead."""
    if not FIND_TIME.search(q) or CORNER.search(q):
        return None
    args = {"session_id": s["session_id"]}
    out = run_tool("get_opportunities", args)
    if "error" in out:
        return None
    return DataAnswer(opportunities_text(out), "get_opportunities", args, out)
