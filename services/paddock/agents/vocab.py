"""The words a narrator's note may use: plain English a track-day coach says. A note with any other word
(a small model's invented words, another language, a name it made up) is dropped and its fact shown alone."""

from __future__ import annotations

_TEXT = """
a about above after again ahead all almost also always am an and any are around as at away back be
because been before behind being best better between big bit both brake brakes braked braking bravo but
by calm came can car careful carry carrying catch change check clean clear close come commit committed
confidence confident consistent consistency control cool could cost costs day deeper did different
do does doing done down drive driver driving during each early earlier easy edge else end enough entry
even every everything exit exits faster fast feel feels fine finish firm first flow focus for from front
full gain gained gains gap gave get gets getting give go goes going good great grip had half hard has
have he hear help her here high him his hold how i if in inside into is it its just keep keeping kept
know last late later least left less let lift lifted like line little long look looks lose losing
loss lost lot low made make makes making many may me mean means middle might mind minimum more most
much must my need needs next nice no not note now of off ok okay on once one only onto open or other
our out outside over pace part patience patient pedal pick plan point points position power practice
pressure push pushing quick quicker quite rather ready really rear reference repeat rest right road
roll run same save saw see seems session set settle shape short should show side slow slower slowly
smooth smoother so solid some something speed spot stable start stay steady steer steering still stop
straight strong such sure take takes taking than that the their them then there these they thing
things think this those through throttle tidy time times tire tires to too track trail try trying turn
tyre tyres under up us use used very wait want was watch way we well went were what when where which
while who why will wide with work worked works worth would yes yet you your mostly build building base
"""
WORDS = frozenset(_TEXT.split())


def unknown_words(text: str) -> list[str]:
    """Words of ``text`` outside the vocabulary (case and punctuation ignored)."""
    import re

    return [w for w in re.findall(r"[a-z']+", text.lower()) if w.strip("'") not in WORDS]
