"""The digest's corner label reads a corner id by the one corner-id rule (``shared.corner_ids``): any spelling
of an id is its short form in capitals, a name is kept as it is, and a name that only repeats the id is
dropped."""

from __future__ import annotations

import pytest

from services.paddock.agents.fmt import corner_label


@pytest.mark.parametrize(
    ("cid", "name", "label"),
    [
        ("t11", None, "T11"),
        ("t3a", None, "T3A"),
        ("T 3a", None, "T3A"),  # the rule's spelling: spaces inside an id are no part of it
        (" c2 ", None, "C2"),
        ("t6", "Carousel", "T6 Carousel"),
        ("t6", "Turn 6", "T6"),
        ("c4", "corner 4", "C4"),
        ("Carousel", None, "Carousel"),  # a name is no id: not put in capitals
        ("x9", None, "x9"),
        (None, None, "?"),
    ],
)
def test_corner_label(cid: str | None, name: str | None, label: str) -> None:
    assert corner_label(cid, name) == label
