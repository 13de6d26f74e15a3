"""A question asked on the data path, as the paddock's ``AskEvidence`` runs it without a model: read once
(``questions.parse``, with the track's corner ids and the previous question) and answered by the one plan."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.evidence import plan_for
from services.paddock.questions.model import Answer


def plan_of(
    question: str, session_id: str, intent: str | None = None, previous: Any = None
) -> dict[str, Any] | None:
    """The evidence ``AskEvidence`` puts in state (``plan``): tool, args, result, text."""
    return plan_for(question, session_id, intent, previous)[0]


def answer_of(question: str, session_id: str, intent: str | None = None, previous: Any = None) -> Answer:
    got = plan_of(question, session_id, intent, previous)
    assert got is not None, question
    return Answer(got["text"], got["tool"], got["args"], got["result"])
