"""A lap time the driver said, checked against the answer's own figure ("was my best a 1:46.5?": "Your best
lap was 0.486 s slower than the time you said"). The driver's figure is never said back as Pitwall's: only
whether it holds, and by how much it misses. Pure."""

from __future__ import annotations

from dataclasses import replace

from services.paddock.questions.model import Answer, Question
from services.paddock.questions.phrases import stated_s

# the answer's one lap figure, by the laps family's result keys: a lap's time, the average, a pick
_ONE = ("lap_time_s", "average_lap_s")


def checked(q: Question, got: Answer) -> Answer:
    """``got`` with a sentence on the lap time ``q`` states, when the answer gives one lap figure."""
    if q.stated is None or any(x.session != "this" for x in q.laps):  # another session's: not checked here
        return got
    r = got.result
    keys = [k for k in _ONE if isinstance(r.get(k), float)]
    keys = keys or [k for k, v in r.items() if k.endswith("_lap_s") and isinstance(v, float)]
    if len(keys) != 1:
        return got
    key = keys[0]
    what = {"lap_time_s": f"lap {r.get('lap')}", "average_lap_s": "your average"}.get(key)
    what = what or f"your {key.removesuffix('_lap_s').replace('_', ' ')} lap"
    said, step = stated_s(q.stated)
    fig = float(r[key])
    if said <= fig < said + step:  # "a 1:49" is any 1:49.xxx; "a 1:46.5" any 1:46.5xx
        text = f" Yes, {what} was the time you said."
        return replace(got, text=got.text + text, result=r | {"stated_s": said})
    gap = fig - said
    text = f" {what[0].upper()}{what[1:]} was {abs(gap):.3f} s {'slower' if gap > 0 else 'quicker'} than the time you said."
    return replace(got, text=got.text + text, result=r | {"stated_s": said, "stated_gap_s": round(gap, 3)})
