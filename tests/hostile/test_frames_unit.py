"""Crafted values at the validation layer: numbers beyond any float, and the strict JSON reader."""

from __future__ import annotations

import pytest

from services.hotpath.validation import Counters, FrameRejected, batch_matrix, clean_frame
from shared.asgi_guard import BadJSON, short_errors, strict_json_loads


def test_integers_beyond_a_float_are_counted_not_raised() -> None:
    c = Counters()
    with pytest.raises(FrameRejected) as ei:
        clean_frame({"t_s": 10**400}, None, c)
    assert ei.value.reason == "non_finite"
    out = clean_frame({"t_s": 1.0, "speed_kmh": 10**400, "rpm": 3000}, None, c)
    assert out == {"t_s": 1.0, "rpm": 3000.0} and c.rejected["non_finite"] == 1
    frames = [{"t_s": float(i), "speed_kmh": 10**400} for i in range(10)]
    assert batch_matrix(frames, None) is None  # the slow path names it


@pytest.mark.parametrize(
    "text,words",
    [
        ("[NaN]", "NaN"),
        ('{"a": Infinity}', "Infinity"),
        ('{"a": -Infinity}', "Infinity"),
        ("1" * 301, "too large"),
        ("-" + "9" * 400, "too large"),
        ("[" * 200_000 + "]" * 200_000, "nested"),
        (b"\xff\xfe[]", "UTF-8"),
        ("{nope", "Expecting"),
    ],
)
def test_strict_json_names_the_problem(text: str | bytes, words: str) -> None:
    with pytest.raises(BadJSON, match=words):
        strict_json_loads(text)


def test_strict_json_accepts_ordinary_json_and_nan_when_asked() -> None:
    assert strict_json_loads('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert strict_json_loads("9" * 300) == int("9" * 300)
    v = strict_json_loads('{"a": NaN}', allow_nan=True)["a"]
    assert v != v


def test_short_errors_echo_little() -> None:
    errs = [
        {"type": "t", "loc": ("body", "x"), "msg": "m" * 1000, "input": "y" * 10_000},
        {"type": "t", "loc": ("body",), "msg": "m", "input": float("nan")},
        {"type": "t", "loc": ("body",), "msg": "m", "input": 10**30},
        {"type": "t", "loc": ("body",), "msg": "m", "input": 7},
    ] + [{"type": "t", "loc": (), "msg": "m"}] * 50
    out = short_errors(errs)
    assert len(out) == 20
    assert len(out[0]["input"]) < 200 and len(out[0]["msg"]) == 300
    assert out[1]["input"] == "nan" and isinstance(out[2]["input"], str) and out[3]["input"] == 7


def test_msgpack_batch_size_is_read_from_the_headers() -> None:
    import msgpack

    from services.hotpath.ingest_decode import msgpack_shape

    assert msgpack_shape(msgpack.packb([{"t_s": 1.0}] * 5)) == (5, None)
    assert msgpack_shape(msgpack.packb([{"t_s": 1.0}] * 70_000)) == (70_000, None)
    assert msgpack_shape(msgpack.packb({"session_id": "s", "frames": [{"t_s": 1.0}] * 3})) == (3, None)
    assert msgpack_shape(msgpack.packb({"frames": [{"t_s": 1.0}] * 4, "session_id": "s"})) == (4, None)
    assert msgpack_shape(msgpack.packb({"t_s": 1.0, "rpm": 2.0})) == (None, None)
    assert msgpack_shape(b"\xc1") == (None, None) and msgpack_shape(b"") == (None, None)
    # a column batch: its frames (the first column's length, a list or float64 bytes) and its channels
    cols = {"t_s": [0.0, 0.1, 0.2], "rpm": [1.0, 2.0, 3.0], "gear": [3.0, 3.0, 3.0]}
    assert msgpack_shape(msgpack.packb({"session_id": "s", "columns": cols})) == (3, 3)
    packed = {k: bytes(8 * 7) for k in ("t_s", "rpm")}
    assert msgpack_shape(msgpack.packb({"columns": packed})) == (7, 2)
    assert msgpack_shape(msgpack.packb({"columns": {}})) == (None, 0)
    assert msgpack_shape(msgpack.packb({1: "x", "frames": [{"t_s": 1.0}] * 2})) == (2, None)
