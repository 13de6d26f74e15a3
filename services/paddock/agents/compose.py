"""How the narrator's reply is read: the model adds to the data answer, never subtracts.

The model sees the ``FactSheet`` (``factsheet``: the data answer or the digest, one fact a sentence) and
answers with picks, each a fact id and a short note in words (no digit: the grammar forbids them).
Pitwall renders each pick as the fact's sentence followed by the note. A note that names a figure in
words, a unit, an id or a label of the prompt, or echoes a fact, stops the reading there; so does a reply
that leaves out the answer's main fact (``f1`` of a question). A server that ignores the schema and writes
prose gets the same end: its text is kept only when every lap, corner, figure and unit in it passes
``grounding_check`` and it echoes nothing of the prompt. A note or a sentence of prose that names a part
of the car no fact speaks of (``claims``: "a problem with the fuel system") is dropped.

One rule for questions, briefs and debriefs (``carry_every_fact``): whatever the model's words, every fact
of the sheet follows them, in the sheet's (coaching) order, unless they already carry it (a picked fact;
prose stating every figure of it). The model's reply is shown, as ``llm``, only when it adds words of its
own (``Reading.adds``); else the driver gets the data answer, as without a model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from services.paddock.agents import claims
from services.paddock.agents.factsheet import FactSheet, sentence
from services.paddock.agents.grounding import Facts, grounding_check
from services.paddock.agents.narrative import EMOTIONS, parse_emotion
from services.paddock.agents.vocab import unknown_words

_NUMBER_WORDS = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
    r"thousand|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|half|dozen"
)
_UNIT_WORDS = (
    r"seconds?|secs?|km/?h|kph|mph|rpm|bar|psi|percent|metres?|meters?|degrees?|tenths?|hundredths?|"
    r"milliseconds?"
)
_BAD_NOTE = re.compile(
    rf"\d|\b(?:{_NUMBER_WORDS}|{_UNIT_WORDS})\b|[%°{{}}\[\]<>|=_\\]|\bf\d|\bemotion\b|\bfacts?\b\s*:|"
    r"\bquestion\s*:|\bdriver\s*:|\bdata\s*\(|\bsystem\b|\bassistant\b|\byou help\b|\bnever write\b|"
    r"\brace engineer\b|\bpitwall\b|\bspecter\b|\bjson\b|\bnotes?\b\s*:|\blaps?\b|\bcorners?\b|"
    r"[^\x00-\x7f]",
    re.IGNORECASE,
)


def note_problem(note: str, sheet: FactSheet, question: str) -> str | None:
    """Why a note cannot be shown, or None."""
    n = note.strip()
    if not n:
        return None
    m = _BAD_NOTE.search(n)
    if m:
        return f"note names {m.group(0)!r}"
    low = re.sub(r"\W+", " ", n.lower()).strip()
    for _, t in sheet.facts:
        if len(low) > 12 and low in re.sub(r"\W+", " ", t.lower()):
            return "note echoes a fact"
    if len(low) > 12 and low in re.sub(r"\W+", " ", question.lower()):
        return "note echoes the question"
    return None


@dataclass
class Reading:
    """What became of a model's reply: the rendered parts shown so far, or why it was rejected."""

    parts: list[str] = field(default_factory=list)
    picks: list[str] = field(default_factory=list)
    emotion: str = "neutral"
    problem: str | None = None
    mode: str = "json"  # json (constrained picks) | prose (a server that ignored the schema)
    dropped: list[str] = field(default_factory=list)  # not shown: notes outside the vocabulary, claims
    notes: list[str] = field(default_factory=list)  # the model's own words shown (notes, or its prose)
    added: list[str] = field(default_factory=list)  # the sheet's facts the reply left out, after it

    @property
    def adds(self) -> bool:
        """The model's own words are in the parts (else the parts are the data answer reordered)."""
        return bool(self.notes)


class ReplyReader:
    """Reads a constrained reply as it streams: each pick is checked and rendered as soon as its object
    closes, so the driver sees it then; the first bad pick stops the reading (``problem``)."""

    def __init__(self, sheet: FactSheet, question: str, need_first: bool) -> None:
        """``need_first``: a question's reply must lead with its answer (``f1``)."""
        self.sheet, self.question, self.need_first = sheet, question, need_first
        self.raw = ""
        self.pos: int | None = None  # where the next pick may start in ``raw``
        self.done = False
        self.r = Reading()

    def feed(self, delta: str) -> list[str]:
        """New rendered sentences for the driver (may be none)."""
        self.raw += delta
        if self.done:
            return []
        if self.pos is None:
            s = self.raw.lstrip()
            if s and not s.startswith("{"):
                self.r.mode = "prose"
                self.done = True
                return []
            m = re.search(r'"answer"\s*:\s*\[', self.raw)
            if m is None:
                return []
            self.pos = m.end()
            em = re.search(r'"emotion"\s*:\s*"(\w+)"', self.raw[: m.start()])
            if em and em.group(1) in EMOTIONS:
                self.r.emotion = em.group(1)
        out: list[str] = []
        dec = json.JSONDecoder()
        while not self.done:
            rest = self.raw[self.pos :]
            stripped = rest.lstrip(" \t\r\n,")
            if not stripped or stripped.startswith("]"):
                break
            start = len(self.raw) - len(stripped)
            try:
                item, end = dec.raw_decode(self.raw, start)
            except ValueError:
                break  # not complete yet
            self.pos = end
            text = self._pick(item)
            if text:
                out.append(text)
        return out

    def _pick(self, item: Any) -> str | None:
        if not isinstance(item, dict) or not isinstance(item.get("fact"), str):
            return self._stop("a pick that is not a fact id")
        fid, note = item["fact"], str(item.get("note") or "")
        fact = self.sheet.text_of(fid)
        if fact is None:
            return self._stop(f"unknown fact id {fid!r}")
        if fid in self.r.picks:
            return None
        if self.need_first and not self.r.picks and fid != "f1":
            return self._stop("the reply did not lead with the answer (f1)")
        why = note_problem(note, self.sheet, self.question)
        if why:
            return self._stop(why)
        said = [t for _, t in self.sheet.facts]
        if unknown_words(note) or len(note.split()) < 2 or claims.unsupported(note, said):
            # not plain coaching words, or a part of the car no fact speaks of: the fact alone
            self.r.dropped.append(note)
            note = ""
        self.r.picks.append(fid)
        if note:
            self.r.notes.append(sentence(note))
        text = " ".join(x for x in (fact, sentence(note)) if x)
        self.r.parts.append(text)
        return text

    def _stop(self, why: str) -> str | None:
        self.r.problem = why
        self.done = True
        return None

    def finish(self, facts: Facts) -> Reading:
        """The reading at the end of the stream; a prose reply is checked whole here. Every fact of the
        sheet the reply did not carry follows it (``added``)."""
        if self.r.mode == "prose":
            text, emotion = parse_emotion(self.raw)
            self.r.emotion = emotion
            text, self.r.dropped = claims.drop_unsupported(text, [t for _, t in self.sheet.facts])
            bad = grounding_check(text, facts)
            why = prose_problem(text, self.sheet, self.question)
            if self.r.dropped and not text:
                self.r.problem = "the reply names parts of the car no fact speaks of"
            elif bad:
                self.r.problem = "unsupported: " + ", ".join(bad)
            elif why:
                self.r.problem = why
            else:
                self.r.parts, self.r.notes = [text], [text]
        elif not self.r.parts and self.r.problem is None:
            self.r.problem = "the reply picked no fact" if self.raw.strip() else "empty model reply"
        if self.r.parts:
            shown = " ".join(self.r.parts)
            self.r.added = carry_every_fact(shown, self.sheet, self.r.picks, self.r.mode == "prose")
            self.r.parts += self.r.added
        return self.r


_FIGURE = re.compile(r"\d+(?:[:.]\d+)*")


def carry_every_fact(shown: str, sheet: FactSheet, picked: list[str], prose: bool = False) -> list[str]:
    """The one rule that keeps the model from subtracting: the sheet's facts that ``shown`` does not carry,
    in the sheet's (coaching) order, to follow it. A fact is carried when it was picked or its sentence is
    in ``shown``; by ``prose`` (the model's own sentences) also when it has figures (laps, corners, times,
    any number) and the prose states each of them."""
    said = set(_FIGURE.findall(shown)) if prose else set()
    out = []
    for fid, fact in sheet.facts:
        figures = set(_FIGURE.findall(fact))
        if fid in picked or fact in shown or (figures and figures <= said):
            continue
        out.append(fact)
    return out


_ECHO = re.compile(
    r"\b(?:you are|you help|race engineer|debriefing|never write|emotion|specter|the driver asks)\b|"
    r"\b(?:facts?|data|driver|question)\s*[:(]",
    re.IGNORECASE,
)


def prose_problem(text: str, sheet: FactSheet, question: str) -> str | None:
    """A plain-text reply that echoes the prompt, is cut mid-sentence, or says nothing."""
    t = text.strip()
    if len(re.findall(r"[A-Za-z]{2,}", t)) < 3:
        return "the reply says nothing"
    m = _ECHO.search(t)
    if m:
        return f"the reply echoes the prompt ({m.group(0)!r})"
    q = re.sub(r"\W+", " ", question.lower()).strip()
    if len(q) > 12 and q in re.sub(r"\W+", " ", t.lower()):
        return "the reply echoes the question"
    if t[-1] not in ".!?)":
        return "the reply stops mid-sentence"
    if re.search(r"\bf\d+\b", t):
        return "the reply names a fact id"
    return None
