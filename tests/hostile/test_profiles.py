"""``/session/start`` takes a car profile by name only: shipped, or the driver's own in
``<data>/profiles/cars/``. A path is refused with a 422 naming the field, an invalid YAML profile is a 422
naming the file's problem, never a 500, and nothing outside the profiles folders is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.hotpath.app import create_app
from shared.profiles.car import CarProfileError, load_car, user_cars_dir
from shared.settings import settings_for

GENERIC = (Path(__file__).resolve().parents[2] / "shared/profiles/cars/generic.yaml").read_text()


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(settings_for(tmp_path / "d")))


def _outside_profile(tmp_path: Path) -> Path:
    """A valid profile outside every profiles folder: loading it through the API would be the bug."""
    p = tmp_path / "elsewhere" / "generic2.yaml"
    p.parent.mkdir(parents=True)
    p.write_text(GENERIC.replace("id: generic", "id: generic2"))
    return p


@pytest.mark.parametrize(
    "car",
    [
        "{outside}",
        "../elsewhere/generic2",
        "../../elsewhere/generic2.yaml",
        "/etc/passwd",
        "generic.yaml",
        "cars/generic",
        "gen eric",
        "",
    ],
)
def test_a_car_that_is_a_path_is_a_422_naming_the_field(client: TestClient, tmp_path: Path, car: str) -> None:
    car = car.format(outside=_outside_profile(tmp_path))
    with client:
        r = client.post("/session/start", json={"car": car})
    assert r.status_code == 422, r.text
    assert "car" in r.text


def test_the_data_dirs_own_profile_is_used_by_name(client: TestClient, tmp_path: Path) -> None:
    d = user_cars_dir(tmp_path / "d")
    d.mkdir(parents=True)
    (d / "my_kart.yaml").write_text(GENERIC.replace("id: generic", "id: my_kart"))
    with client:
        r = client.post("/session/start", json={"car": "my_kart"})
        assert r.status_code == 200, r.text
        view = client.get(f"/sessions/{r.json()['session_id']}/live").json()
    assert view.get("car_id", "my_kart") == "my_kart"


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("id: [unclosed\n", "not valid YAML"),
        ("- a list\n", "mapping"),
        ("id: bad\nname: y\nchannels:\n  - {canonical: speed_mph, sources: [S]}\n", r"channels.0.canonical"),
        (GENERIC.replace("id: generic", "id: someone_else"), "must be the file's name"),
        ("\udcff".encode("utf-8", "surrogateescape").decode("latin-1"), "bad"),
    ],
)
def test_an_invalid_profile_is_a_422_never_a_500(
    client: TestClient, tmp_path: Path, text: str, expect: str
) -> None:
    d = user_cars_dir(tmp_path / "d")
    d.mkdir(parents=True)
    (d / "bad.yaml").write_text(text, encoding="latin-1" if expect == "bad" else "utf-8")
    with client:
        r = client.post("/session/start", json={"car": "bad"})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert detail["argument"] == "car" and "bad.yaml" in detail["message"]
    assert expect in detail["message"] or expect == "bad"
    with pytest.raises(CarProfileError):
        load_car("bad", tmp_path / "d")


def test_load_car_refuses_paths_even_to_a_valid_file(tmp_path: Path) -> None:
    p = _outside_profile(tmp_path)
    for name in (str(p), str(p.with_suffix("")), "../generic"):
        with pytest.raises(KeyError, match="not a profile name"):
            load_car(name, tmp_path / "d")
    assert load_car("generic", tmp_path / "d").id == "generic"
