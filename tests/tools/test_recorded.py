""" "What channels are there?" names what the file records, in driver words, and the channels it has that
Pitwall does not read, by their own names. Real files: the MyChron kart CSV and the SCUT XRK; what each
records is read here from the raw Race Studio CSV headers with the csv module, never from Pitwall."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.asking import ask_planned

ASKED = ("what channels are there?", "what data do you have for this session?", "which sensors were fitted?")


def _headers(path: Path) -> list[str]:
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        got = list(csv.reader(fh))
    return next(r for r in got if r and r[0] == "Time" and sum(bool(x) for x in r) > 2)


def _sid(env: dict[str, Any], key: str) -> str:
    if env.get(key) is None:
        pytest.fail(f"../shared/data is missing: {key} needs it")
    return str(env[key])


@pytest.mark.parametrize("text", ASKED)
def test_the_kart_file_records_what_its_header_names(lake_env: dict[str, Any], text: str) -> None:
    heads = _headers(lake_env["data_dir"] / "aim" / "mychron_kart_sskc_2022-06-19.csv")
    got = ask_planned(_sid(lake_env, "kart_sid"), text)
    said = got.text.split(". It also")[0]
    assert said.startswith("This session's file records "), got.text
    # a channel in the header is named in driver words
    for head, words in (
        ("RPM", "engine speed"),
        ("Water Temp", "coolant temperature"),
        ("GPS Speed", "speed"),
    ):
        assert head in heads and words in said, (head, got.text)
    # nothing the header lacks is said to be recorded
    for words, marks in (("throttle", "thrott"), ("brake", "brake"), ("oil", "oil"), ("gear", "gear")):
        assert not any(marks in h.lower() for h in heads) and words not in said, (words, got.text)


def test_the_xrk_names_the_channels_pitwall_does_not_read(lake_env: dict[str, Any]) -> None:
    heads = _headers(lake_env["data_dir"] / "aim" / "scut_fsev_agx.csv")  # the XRK's own Race Studio export
    got = ask_planned(_sid(lake_env, "xrk_sid"), "what data do you have?")
    m = re.search(r"It also has channels Pitwall does not read yet: (.*)\.$", got.text)
    assert m, got.text
    named = re.split(r", | and ", m.group(1))
    assert "Battery Soc" in named and "Motor Temp L" in named, got.text  # a state of charge, a motor's heat
    assert set(named) <= set(heads), set(named) - set(heads)  # each by the file's own name
    assert "Battery Volt" not in named  # the battery voltage is read: in the list, not among the unread
    assert "battery voltage" in got.text.split(". It also")[0]
