"""A request's evidence without a model: the question read and answered from the data (``plan_for``), the facts the
narrator may pick and the check accepts (``sheet_and_facts``), and the answer when the model's words
cannot be used (``fallback``: the template or the labelled data answer)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.factsheet import FactSheet
from services.paddock.agents.fmt import load
from services.paddock.agents.grounding import Facts
from services.paddock.agents.narrative import template_narrative
from services.paddock.questions import parse, plan, resolve
from services.paddock.questions.conversation import from_state, to_state
from services.paddock.questions.families.corners import corner_ids
from services.paddock.tools.base import ToolError, session_row


def plan_for(
    question: str, session_id: str, intent: str | None, previous: Any = None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the question's evidence, the parsed question as state keeps it), found without a model: the text
    read once (``questions.parse``, with the track's corner ids and the previous question of this driver
    and session), then the one plan (``questions.plan``). A question the driver gave an intent (the
    tablet's topic picker) is about driving: never declined. (None, None) for a session the lake does
    not have. Runs tools (call it in a worker thread)."""
    try:
        s = session_row(session_id)
    except ToolError:
        return None, None
    sid = str(s["session_id"])
    corners = resolve.corner_names(sid) or {c: () for c in corner_ids(s)}  # a detected track: its own ids
    q = parse.parse(question, corners, from_state(previous))
    found = plan.plan(q, sid, intent)
    out = {"tool": found.tool, "args": found.args, "result": found.result, "text": found.text}
    return out, to_state(q)


def fallback(kind: str, state: dict[str, Any]) -> dict[str, Any] | None:
    """The answer without the model: the template (brief, debrief) or the labelled data answer."""
    if kind != "ask":
        text, _ = template_narrative(kind, state)
        return {"text": text, "narrator": "template"}
    plan = state.get("plan")
    if not plan:
        return None
    return {"text": plan["text"], "narrator": "data"}


def sheet_and_facts(kind: str, state: dict[str, Any]) -> tuple[FactSheet, Facts]:
    """The facts the narrator may pick and everything the final check accepts."""
    facts = Facts()
    facts.add_text(str(state.get("user_question") or ""))
    if kind == "ask":
        plan = state.get("plan") or {}
        text = str(plan.get("text") or "")
        facts.add_data(plan.get("result"))
    else:
        text = str(state.get("evidence") or "")
        from services.paddock.agents.data_agents import DATA_SPECS

        for k in DATA_SPECS:
            facts.add_data(load(state, k))
    facts.add_text(text)
    sheet = FactSheet.from_text(text) if kind == "ask" else FactSheet.from_lines(text)
    return sheet, facts
