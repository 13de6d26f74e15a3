"""A request's evidence without a model: the question's data answer (``plan_for``), the facts the
narrator may pick and the check accepts (``sheet_and_facts``), and the answer when the model's words
cannot be used (``fallback``: the template or the labelled data answer)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents import compose
from services.paddock.agents.grounding import Facts


def plan_for(agent: str, question: str, session_id: str, intent: str | None) -> dict[str, Any] | None:
    """The question's evidence, found without a model (the question in the routes' words first:
    ``question_words``): the driver-question routes first (best lap, top
    speed, a channel the file lacks ...), then the specialist's first tool, then the lap/corner/where-
    do-I-lose-time answers. Runs tools (call it in a worker thread)."""
    from services.paddock.agents.data_answer import answer_from_data, format_result
    from services.paddock.agents.planned_call import planned_call
    from services.paddock.agents.question_words import name_laps, normal_question
    from services.paddock.agents.routes import route_answer

    question = name_laps(normal_question(question), session_id)
    found = route_answer(question, session_id, intent)
    own = found is not None  # a route's own sentences, written for this question
    if found is None:
        found = planned_call(agent, question, session_id)
        own = found is None
    if found is None:
        found = answer_from_data(question, session_id, intent)
    if found is None:
        return None
    text = found.text if own else format_result(found.tool, found.result)
    return {"tool": found.tool, "args": found.args, "result": found.result, "text": text}


def fallback(kind: str, state: dict[str, Any]) -> dict[str, Any] | None:
    """The answer without the model: the template (brief, debrief) or the labelled data answer."""
    from services.paddock.agents.narrative import template_narrative

    if kind != "ask":
        text, _ = template_narrative(kind, state)
        return {"text": text, "narrator": "template"}
    plan = state.get("plan")
    if not plan:
        return None
    return {"text": plan["text"], "narrator": "data"}


def sheet_and_facts(kind: str, state: dict[str, Any]) -> tuple[compose.FactSheet, Facts]:
    """The facts the narrator may pick and everything the final check accepts."""
    from services.paddock.agents.digest import load

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
    sheet = compose.FactSheet.from_text(text) if kind == "ask" else compose.FactSheet.from_lines(text)
    return sheet, facts
