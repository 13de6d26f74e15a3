"""The grounding probe (issue #20): inventions planted into otherwise-true answers, in every unit a driver
reads, must all be caught by the paddock's grounding check, and true texts (figures from the data, true
roundings and conversions) must not be flagged. The probe's own counting is checked with two stand-in
checks (one that flags everything, one that flags nothing)."""

from __future__ import annotations

from tests.support.grounding_probe import PLANTS, TRUE_TEXTS, ground, probe

UNITS = {"lap", "corner", "m:ss.sss", "s", "km/h", "mph", "rpm", "%", "bar", "m", "°C", "bare", "signed"}


def test_the_probe_plants_every_unit_and_counts_what_it_is_told() -> None:
    assert {u for u, _ in PLANTS} == UNITS
    everything = probe(lambda text: [text])
    assert everything["caught"] == len(PLANTS) and everything["false_flags"] == len(TRUE_TEXTS)
    nothing = probe(lambda text: [])
    assert nothing["caught"] == 0 and nothing["false_flags"] == 0


def test_every_planted_invention_is_caught() -> None:
    r = probe()
    assert r["caught"] == r["planted"], f"missed {len(r['missed'])}: {r['missed']}; by unit {r['by_unit']}"


MIRRORED = "Lap 5: +1.141 s against lap 2; lap 2: -1.141 s against lap 5."


def test_no_true_text_is_flagged_but_a_mirrored_signed_gap() -> None:
    """One known false flag, on purpose: an explicitly signed figure must carry the fact's sign, so the
    mirrored "lap 2: -1.141 s against lap 5" is flagged (the answer falls back to the labelled data,
    never shows a wrong sign). Anything else flagged, or this one passing, fails here."""
    r = probe()
    assert r["false_flagged"] == {MIRRORED: ["-1.141 s"]}, r["false_flagged"]
    assert ground(" ".join(t for t in TRUE_TEXTS if t != MIRRORED)) == []
