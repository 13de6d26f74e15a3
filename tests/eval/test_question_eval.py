"""The outside answer eval (issue #32, item 5): driver phrasings taken from public forums, Q&A threads and
coaching material (``tests/eval/README.md``), split once by a committed seed into a tuning half and a
held-out half, asked of a real paddock over the sessions ``answer_run.prepare`` imports (the Sonoma VBOX,
the simulated Sonoma session with its ground truth, the MyChron kart, an AiM XRK), and scored against truth
computed from the raw files (``tests/support/qeval_items.py``), never by Pitwall.

- the data path (no model server): both halves;
- the held-out half on the real model (SmolLM2 through ``services/paddock/llm/embedded.py``): a fixed half of
  it, and a fixed third of the tuning half (``qeval_run.model_sample``; ``PITWALL_EVAL_FULL=1`` asks all).

Of the held-out half only the per-kind counts are printed or written, never its phrasings or answers.
The constants below are the issue's goals and today's floor (measured on the regex routes); the floor is
what the assertions hold; raise it towards the goal as the typed question layer lands.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from services.paddock.llm.embedded import EmbeddedModelServer
from shared.netutil import free_port
from tests.support.answer_eval import score
from tests.support.answer_run import Prepared, missing_inputs, prepare
from tests.support.qeval_items import KINDS, SESSIONS, Item, expect
from tests.support.qeval_run import counts, evaluate, half, misses, model_sample, serve
from tests.support.qeval_split import check
from tests.support.truth_corners import slowest_point

FIGURE = re.compile(r"\d+(?:[:.]\d+)*")  # a lap, a corner's number, a time, any figure as written
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(3600)]

# the goals
GOAL_WRONG = 0  # on both halves
GOAL_HELD_OUT_CORRECT_SHARE = 0.95
GOAL_SECONDS_PER_ANSWER = 3.0  # SmolLM2 on an idle machine
GOAL_PHRASINGS = 300
# the floors the assertions hold: measured on the typed question layer (data path, no model), one run
# batch 1: 142 (71 + 71); batch 2: 168 (84 + 84); batch 3: 158 (79 + 79); batch 4: 121 (61 + 60);
# batch 5: 122 (61 + 61); batch 6: 122 (61 + 61)
PHRASINGS = 833
# follow-ups (earlier turns asked first in the same conversation): batch 2: 11, 3: 11, 4: 12, 5: 11, 6: 12
FOLLOW_UPS = 57
# stop 43, merged main, five batches (batch 5 gathered this stop; no code was tuned to its held-out half):
# tuning 345/356 (97 %), 0 wrong, 7 off; held-out 285/355 (80 %), 3 wrong, 37 off. The same eval on stop 42's
# code with batch 5: tuning 325/356, 0 wrong, 19 off; held-out 284/355, 4 wrong, 36 off: this stop's work
# moved the held-out half by one phrasing.
# stop 42, merged main, four batches (batch 4 gathered this stop, after none of the code was tuned to it):
# tuning 276/295 (94 %), 0 wrong; held-out 238/294 (81 %), 2 wrong (one lose_time, one top_speed; not read,
# only counted). Stop 41, three batches: tuning 221/234 (94 %), 0 wrong; held-out 184/234 (79 %), 1 wrong. Stop 40, batches 1 and 2: tuning 152/155, held-out 122/155 (2 wrong); before the
# lap sets, other sessions, coasting and the rest: 100/155 and 112/155 (3 wrong); the regex routes before the
# typed question layer: 98/155 and 107/155, 0 wrong (more answers evasive, fewer figures given).
# stop 49 (readings from 544 paraphrases of the tuning half written for the purpose, not committed: 472 ->
# 504 correct on them): tuning 409/417 (98 %), 0 wrong, 1 off; held-out 333/416 (80 %), 4 wrong, 35 off
# stop 46 (words from the tuning half's misses; a reading the file lacks said so after what was understood):
# tuning 409/417 (98 %), 0 wrong, 1 off; held-out 330/416 (79 %), 5 wrong, 35 off
# stop 45, merged main, six batches (batch 6 gathered this stop; no code was tuned to its held-out half):
# tuning 399/417 (96 %), 0 wrong, 4 off; held-out 329/416 (79 %), 5 wrong, 35 off. With batch 6 on the code
# before this stop's question work: tuning 390/417, held-out 328/416, 4 wrong, 42 off. The answers headed
# "I read this as …, leaving aside …" (branch qunsure) took 7 held-out answers off "off" and made one
# not-recorded answer wrong (4 wrong with the heading switched off, same counts otherwise): the heading names
# the measure asked beside another measure's figures.
# stop 53 (trail braking, a lap time said checked, readings from a sixth probe round): tuning 411/417,
# 0 wrong, 0 off; held-out 340 -> 342/416, 4 wrong, 35 off
DATA_PATH_WRONG_MAX = {"tuning": 0, "heldout": 4}
DATA_PATH_CORRECT_MIN = {"tuning": 0.98, "heldout": 0.82}
# evasive answers that state another question's figures without saying what was understood (answer_eval's
# ``off``): the issue counts them as wrong. First counted at stop 43 on stop 42's code: tuning 11 of 19
# evasive, held-out 30 of 54 (so held-out wrong or off: 32/294)
# branch qg (coverage: a family answers only what it reads): tuning 345/356, 0 wrong, off 7 -> 5; held-out
# 285/355, 3 wrong, off 37 -> 32
# stop 50 (two or three measures answered each as if asked alone, and the readings of 544 paraphrases of
# the tuning half): tuning 410/417, 0 wrong, 1 off; held-out 333 -> 337/416, 4 wrong, off 35 -> 36 (which
# phrasing is not known: the held-out half is counted, never read)
# stop 51 (readings from 641 probe phrasings of pages no eval cites, written for the purpose, not
# committed): tuning 411/417, 0 wrong, 0 off; held-out 337 -> 340/416, 4 wrong, off 36 -> 35
DATA_PATH_OFF_MAX = {"tuning": 2, "heldout": 35}
# the model's run carries the data path's labelled answers: the same wrong ones at most, none as model text
REAL_MODEL_WRONG_MAX = 5
# measured on SmolLM2 (stop 40, merged main, shared machine, batches 1 and 2): 122/155 (0.787) correct, 2
# wrong, 0 as model text, 2.58 s an answer: the same as the data path alone, since the model only adds (stop
# 39: 94/155, the model subtracted 18 correct data answers). The floor leaves the model a few answers' margin
# below the data path's 0.81 on the four batches (stop 42).
# Since stop 46 the model's run asks a fixed half of the held-out half (``qeval_run.model_sample``; CI's time):
# on that half the data path gives 161/208 (0.774), 2 wrong; the floor leaves the model 5 answers' margin.
REAL_MODEL_CORRECT_MIN = 0.75
# the tuning half on SmolLM2 (its answers read while changing the narrator): before the model only added,
# 93/155 (7 correct data answers lost to picks that left figures out, 31 answers missing a figure of the
# data answer); since, 100/155 as the data path, 0 wrong, none missing a figure, 4.26 s an answer; on
# merged main (stop 40): 152/155 as the data path, 0 wrong, 2.41 s an answer
# the fixed third of the tuning half the model's run asks (stop 46): 130/137 (0.95), 0 wrong, as the data path
TUNING_REAL_MODEL_WRONG_MAX = 0
TUNING_REAL_MODEL_CORRECT_MIN = 0.91


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    why = missing_inputs()
    if why:
        pytest.fail(why)  # ../shared/data is part of the workspace: its absence is an error, not a skip
    return prepare(tmp_path_factory.mktemp("question-eval"))


def test_the_halves_are_the_seeded_split_of_cited_phrasings() -> None:
    tuning, heldout = half("tuning"), half("heldout")
    assert check() == []  # nothing moved between the halves since the seeded split
    n_tuning, n_heldout = len(tuning), len(heldout)  # counts only: a failure never prints held-out items
    assert n_tuning + n_heldout == PHRASINGS
    assert abs(n_tuning - n_heldout) <= 1
    texts = [(it.session, " / ".join((*it.before, it.text)).lower()) for it in tuning + heldout]
    repeats = len(texts) - len(set(texts))
    assert repeats == 0, f"{repeats} phrasing(s) repeated"  # the count only: held-out text is never printed
    follow_ups = sum(bool(it.before) for it in tuning + heldout)
    assert follow_ups == FOLLOW_UPS
    for name, items in (("tuning", tuning), ("heldout", heldout)):
        for i, it in enumerate(items):
            where = repr(it.text) if name == "tuning" else f"held-out item {i}"  # never print held-out words
            assert it.kind in KINDS and it.session in SESSIONS, where
            assert it.source.strip(" —"), f"{where} cites no source"


def test_every_phrasing_has_truth_from_the_raw_files(prepared: Prepared) -> None:
    for name in ("tuning", "heldout"):
        for i, it in enumerate(half(name)):
            e = expect(it, prepared.truths)
            where = repr(it.text) if name == "tuning" else f"held-out item {i}"  # never print held-out words
            assert e.need or e.need_range or e.words or e.restraint, where


def test_a_corner_minimum_beside_a_top_speed_is_off_the_point_not_wrong(prepared: Prepared) -> None:
    """A follow-up ("and in lap 5?" after the session's top speed) answered as a lap comparison names true
    corner minimums: evasive, not wrong; a speed that is nowhere in the file stays wrong."""
    st = prepared.truths["sim"]
    it = Item(
        "and in lap 5?", "top_speed", "sim", {"laps": [5]}, before=("max speed reached in the session",)
    )
    e = expect(it, prepared.truths)
    t6 = [slowest_point(st, n, "t6")[0] for n in (st.best.lap, 5)]
    comparison = f"Minimum speed at T6: lap {st.best.lap} {t6[0]:.1f} km/h, lap 5 {t6[1]:.1f} km/h."
    assert score(e, comparison, "data").kind == "evasive"
    assert score(e, f"Lap 5's top speed was {st.lap(5).top_kmh:.1f} km/h.", "data").kind == "correct"
    above_all = max(lp.top_kmh for lp in st.laps) + 15  # faster than anything in the file
    assert score(e, f"Lap 5's top speed was {above_all:.1f} km/h.", "data").kind == "wrong"


@pytest.mark.parametrize("name", ["tuning", "heldout"])
def test_the_data_path_answers_both_halves(prepared: Prepared, tmp_path: Path, name: str) -> None:
    """No model server at all: the labelled data answers, against the floor (goal: none wrong)."""
    with serve(prepared, f"http://127.0.0.1:{free_port()}/v1", tmp_path) as url:
        results, rep = evaluate(
            url, prepared, half(name), name, tmp_path / f"{name}-data.json", reveal=name == "tuning"
        )
    assert all(r.narrator in ("data", "none") for r in results), rep["by_narrator"]
    shown = json.dumps(misses(results), indent=1) if name == "tuning" else counts(rep)
    assert rep["wrong"] <= DATA_PATH_WRONG_MAX[name], shown
    assert rep["correct_share"] >= DATA_PATH_CORRECT_MIN[name], shown
    assert rep["off"] <= DATA_PATH_OFF_MAX[name], shown


def test_the_held_out_half_on_the_real_model(
    prepared: Prepared, real_llm: EmbeddedModelServer, tmp_path: Path
) -> None:
    """SmolLM2: no wrong fact shown as model text, and the floor (goals: 95 % correct, none wrong)."""
    with serve(prepared, real_llm.url, tmp_path) as url:
        items = model_sample(half("heldout"), "heldout")
        _, rep = evaluate(url, prepared, items, "heldout", tmp_path / "heldout-smollm2.json", False)
    assert rep["wrong_as_model_text"] == 0, counts(rep)
    assert rep["wrong"] <= REAL_MODEL_WRONG_MAX, counts(rep)
    assert rep["correct_share"] >= REAL_MODEL_CORRECT_MIN, counts(rep)


def test_the_tuning_half_on_the_real_model(
    prepared: Prepared, real_llm: EmbeddedModelServer, tmp_path: Path
) -> None:
    """SmolLM2 on the tuning half (every answer written and printed), against the same half with no model
    server: the model only adds. Every answer carries every figure of its data answer, none is shorter, it
    gets at least as many correct, none wrong."""
    (tmp_path / "plain").mkdir()
    items = model_sample(half("tuning"), "tuning")
    with serve(prepared, f"http://127.0.0.1:{free_port()}/v1", tmp_path / "plain") as url:
        plain, base = evaluate(url, prepared, items, "tuning", tmp_path / "tuning-data.json")
    with serve(prepared, real_llm.url, tmp_path) as url:
        results, rep = evaluate(url, prepared, items, "tuning", tmp_path / "tuning-smollm2.json")
    shown = json.dumps(misses(results), indent=1)
    data = {r.qid: r.text for r in plain}
    thinner = [
        (r.question, r.text)
        for r in results
        if not set(FIGURE.findall(data[r.qid])) <= set(FIGURE.findall(r.text))
        or len(r.text) < len(data[r.qid])
    ]
    assert thinner == [], thinner
    assert rep["wrong_as_model_text"] == 0 and rep["wrong"] <= TUNING_REAL_MODEL_WRONG_MAX, shown
    assert rep["correct"] >= base["correct"], shown
    assert rep["correct_share"] >= TUNING_REAL_MODEL_CORRECT_MIN, shown
