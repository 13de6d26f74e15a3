"""What ``/sessions`` serves as a fleet publishes (services/paddock/lake_listing.py): a new version whose
newest sessions are the held ones with new sessions above them renders the new rows alone and keeps the
others' JSON; any other change renders the rows again. Each page is checked against the rows built here."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pytest

from services.paddock import lake_listing
from services.paddock.lake_listing import Listing

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SCHEMA = pa.schema(
    [("session_id", pa.string()), ("started_at", pa.timestamp("us", "UTC")), ("car_name", pa.string()),
     ("driver_id", pa.string()), ("meta_json", pa.string())]
)  # fmt: skip


def _row(i: int, car: str = "Miata") -> dict[str, Any]:
    return {"session_id": f"s{i:04d}", "started_at": T0 + timedelta(hours=i), "car_name": car,
            "driver_id": f"d{i % 3}", "meta_json": "{}"}  # fmt: skip


def _newest(rows: list[dict[str, Any]]) -> pa.Table:
    """The rows as the follower hands them over: newest first."""
    return pa.Table.from_pylist(sorted(rows, key=lambda r: r["started_at"], reverse=True), schema=SCHEMA)


def _shown(page: bytes) -> list[tuple[str, str, str]]:
    return [(r["session_id"], r["car_name"], r["date_at"]) for r in json.loads(page)]


def _want(ids: list[int], cars: dict[int, str] | None = None) -> list[tuple[str, str, str]]:
    """What the tablet must see: these sessions newest first, each with its car and its start to the minute."""
    cars = cars or {}
    return [
        (f"s{i:04d}", cars.get(i, "Miata"), (T0 + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M"))
        for i in sorted(ids, reverse=True)
    ]


@pytest.fixture()
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The session ids whose JSON is rendered."""
    seen: list[str] = []
    real = lake_listing.to_json

    def counting(row: Any) -> bytes:
        seen.append(row["session_id"])
        return real(row)

    monkeypatch.setattr(lake_listing, "to_json", counting)
    return seen


def test_new_sessions_above_the_held_ones_render_alone(renders: list[str]) -> None:
    held = Listing(_newest([_row(i) for i in range(10)]), [], 6)
    assert _shown(held.page(100)) == _want(list(range(4, 10)))
    renders.clear()
    got = Listing(_newest([_row(i) for i in range(12)]), [], 6, held)  # two cars published
    assert renders == ["s0011", "s0010"]
    assert _shown(got.page(100)) == _want(list(range(6, 12)))
    assert _shown(got.page(3)) == _want([9, 10, 11])


def test_a_changed_row_among_the_held_ones_renders_all_again(renders: list[str]) -> None:
    held = Listing(_newest([_row(i) for i in range(5)]), [], 10)
    renders.clear()
    rows = [_row(i, "Civic" if i == 2 else "Miata") for i in range(6)]  # session 2 republished
    got = Listing(_newest(rows), [], 10, held)
    assert sorted(renders) == [f"s{i:04d}" for i in range(6)]
    assert _shown(got.page(100)) == _want(list(range(6)), {2: "Civic"})


def test_an_older_session_below_the_held_ones_is_rendered_in_its_place(renders: list[str]) -> None:
    held = Listing(_newest([_row(i) for i in (3, 5, 7)]), [], 10)
    renders.clear()
    got = Listing(_newest([_row(i) for i in (1, 3, 5, 7, 8)]), [], 10, held)
    assert renders == ["s0008", "s0001"]
    assert _shown(got.page(100)) == _want([1, 3, 5, 7, 8])


def test_a_held_listing_with_damaged_sessions_is_rendered_again(renders: list[str]) -> None:
    bad = [{"session_id": "s0004", "started_at": T0 + timedelta(hours=4), "status": "damaged"}]
    held = Listing(_newest([_row(i) for i in range(4)]), bad, 10)
    assert [r["session_id"] for r in json.loads(held.page(100))] == [
        "s0004",
        "s0003",
        "s0002",
        "s0001",
        "s0000",
    ]
    renders.clear()
    got = Listing(_newest([_row(i) for i in range(6) if i != 4]), [], 10, held)  # repaired: 4 is gone
    assert sorted(renders) == ["s0000", "s0001", "s0002", "s0003", "s0005"]
    assert _shown(got.page(100)) == _want([0, 1, 2, 3, 5])


def test_rows_converted_a_few_at_a_time_are_each_listed_once() -> None:
    n = 3 * lake_listing.CONVERT_ROWS + 5  # rows in four conversion steps
    got = Listing(_newest([_row(i) for i in range(n)]), [], n)
    assert _shown(got.page(n + 10)) == _want(list(range(n)))
    more = Listing(_newest([_row(i) for i in range(n + 2)]), [], n, got)
    assert _shown(more.page(n + 10)) == _want(list(range(2, n + 2)))
