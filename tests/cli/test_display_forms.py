"""One shown form per thing: corner ids in any case become one id and one label; lap times m:ss.sss."""

from __future__ import annotations

import pytest

from shared.display import corner_id, corner_name, corner_short, lap_time
from shared.profiles.track import Corner, load_track


@pytest.mark.parametrize("text", ["t3a", "T3A", "T3a", "t3A", " T 3a "])
def test_corner_ids_in_any_case_are_one_corner(text: str) -> None:
    assert corner_id(text) == "t3a"
    assert corner_short(text) == "T3A"
    assert corner_name(text) == "Turn 3A"
    assert load_track("sonoma").find_corner(text) is not None


def test_profile_names_and_shown_forms_agree() -> None:
    for c in load_track("sonoma").corners:
        assert c.short == corner_short(c.id)
        assert corner_name(c.id, "sonoma") == c.name
    assert corner_short("c12") == "C12" and corner_name("C12") == "Corner 12"
    assert corner_name("carousel") == "carousel" and corner_short(None) == "-"


def test_a_profile_written_in_upper_case_stores_the_lower_case_id() -> None:
    c = Corner(id="T8A", name="Turn 8A", short="T8A", seq=1, start_m=0, apex_m=1, end_m=2)
    assert c.id == "t8a"


def test_lap_time_rounds_once() -> None:
    assert lap_time(108.2224) == "1:48.222"
    assert lap_time(59.9996) == "1:00.000"  # never 0:60.000
    assert lap_time(float("nan")) == "-"


def test_tool_sentences_give_lap_times_as_m_ss_sss() -> None:
    from services.paddock.questions.families.coaching import lose_text
    from services.paddock.questions.families.compare import delta_text

    lose = lose_text({"valid_laps": 3, "best_lap": 5, "best_lap_s": 108.2224, "biggest_opportunities": []})
    assert lose == "Best lap 5 in 1:48.222; no corner stands out."
    delta = delta_text(
        {
            "lap_a": 2,
            "lap_b": 3,
            "total_delta_s": 0.5,
            "lap_a_time_s": 99.0,
            "lap_b_time_s": 99.5,
            "corners": [],
        }
    )
    assert "Lap times: lap 2 1:39.000, lap 3 1:39.500." in delta


def test_a_corner_by_its_number_whatever_the_letter() -> None:
    """A detected track numbers its corners C1, C2...: "turn 4" is its C4 (and "corner 11" Sonoma's T11);
    a number two corners share (T3 and C3 on one track) is no answer, nor a number the track lacks."""
    sonoma = load_track("sonoma")
    kart = sonoma.model_copy(
        update={"corners": [c.model_copy(update={"id": "c" + c.id[1:]}) for c in sonoma.corners]}
    )
    found = kart.find_corner("turn 4")
    assert found is not None and found.id == "c4"
    assert sonoma.find_corner("corner 11").id == "t11"  # type: ignore[union-attr]
    assert kart.find_corner("Turn 3a").id == "c3a"  # type: ignore[union-attr]
    assert kart.find_corner("turn 99") is None
    c4 = next(c for c in kart.corners if c.id == "c4").model_copy(update={"name": "Kink", "short": "K"})
    both = sonoma.model_copy(update={"corners": [*sonoma.corners, c4]})
    assert both.find_corner("corner 4") is None  # T4 and C4: which one is not for Pitwall to guess
