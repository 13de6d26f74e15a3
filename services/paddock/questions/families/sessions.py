"""Stub until qfacts' sessions family lands: answers nothing, so the plan says what it understood."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.model import Answer, Question


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    return None
