"""One live-ingest message, from bytes to a batch, with its sizes counted before anything is built.

A message is refused before it is decoded when its headers (msgpack) or a count of its bytes (JSON) show
more frames than ``PITWALL_INGEST_MAX_BATCH_FRAMES`` or more channels in one object than
``PITWALL_INGEST_MAX_CHANNELS``; the decoder itself is bounded the same way (msgpack's
``max_map_len``/``max_array_len``/``max_str_len``/``max_bin_len``, a JSON object hook that counts the
pairs), so no map, list or string over a limit is ever materialised. A big message is decoded in a
worker thread with a hook per object or number, which lets the event loop's thread take the interpreter
lock between them: ``/health`` and the cue stream keep answering while it decodes.
"""

from __future__ import annotations

from typing import Any

import msgpack

from services.hotpath.columns import BadColumns, ColumnBatch, column_batch
from shared.asgi_guard import BadJSON, strict_json_loads
from shared.settings import Settings

MAX_STR = 1024  # longest string in a message (channel names are at most 64 characters, ids 64)
MAX_ID = 64


class BadBatch(ValueError):
    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class _Over(Exception):  # from a JSON hook: not a ValueError, which strict_json_loads would rename
    def __init__(self, n: int) -> None:
        self.n = n


def too_many_channels(n: int, settings: Settings) -> BadBatch:
    cap = settings.ingest_max_channels
    return BadBatch(
        "too_many_channels",
        f"{n} channels in one object is over {cap} (PITWALL_INGEST_MAX_CHANNELS); send fewer channels",
    )


def too_many_frames(n: int, settings: Settings) -> BadBatch:
    cap = settings.ingest_max_batch_frames
    return BadBatch(
        "too_large",
        f"a batch of {n} frames is over {cap} (PITWALL_INGEST_MAX_BATCH_FRAMES); send smaller batches",
    )


def check_frames(settings: Settings, n_frames: int) -> None:
    if n_frames > settings.ingest_max_batch_frames:
        raise too_many_frames(n_frames, settings)


def precheck(settings: Settings, data: bytes | str) -> None:
    """Refuse a message over a limit from what can be counted without decoding it."""
    if isinstance(data, bytes):
        frames, channels = msgpack_shape(data)
        check_frames(settings, frames or 0)
        if channels is not None and channels > settings.ingest_max_channels:
            raise too_many_channels(channels, settings)
        return
    objects = max(0, data.count("{"))  # every frame is an object: more braces than the cap is over it
    check_frames(settings, objects - 1)
    keys = data.count(":")  # every key is followed by one
    if keys > settings.ingest_max_channels * max(1, objects):
        cap = settings.ingest_max_channels
        raise BadBatch(
            "too_many_channels",
            f"{keys} keys in {objects} objects: more than {cap} channels in one object "
            "(PITWALL_INGEST_MAX_CHANNELS); send fewer channels",
        )


def msgpack_shape(data: bytes) -> tuple[int | None, int | None]:
    """(frames, channels of a column batch) a msgpack batch declares, read from its headers without
    decoding the frames; None where the headers do not say (the full decode names any problem)."""
    up = msgpack.Unpacker(raw=False)
    up.feed(data)
    try:
        if data[:1] and (data[0] & 0xF0 == 0x90 or data[0] in (0xDC, 0xDD)):
            return int(up.read_array_header()), None
        for _ in range(min(int(up.read_map_header()), 16)):
            key = None
            if data[up.tell()] & 0xE0 == 0xA0:  # a short string key: read; anything else: skipped
                key = up.unpack()
            else:
                up.skip()
            if key == "frames":
                return int(up.read_array_header()), None
            if key == "columns":  # the length of the first column
                channels = int(up.read_map_header())
                if not channels:
                    return None, 0
                up.skip()
                kind = data[up.tell()]
                if kind & 0xF0 == 0x90 or kind in (0xDC, 0xDD):
                    return int(up.read_array_header()), channels
                if kind in (0xC4, 0xC5, 0xC6):  # a bin of float64s
                    first = up.unpack()
                    return len(first) // 8, channels
                return None, channels
            up.skip()
    except Exception:  # malformed headers: the full decode names the problem
        return None, None
    return None, None


def decode(settings: Settings, data: bytes | str, in_thread: bool = False) -> Any:
    """One WebSocket message: msgpack (bytes) or JSON (text). Raises BadBatch naming the problem.
    ``in_thread``: a big message decoded in a worker thread, with a hook per map (msgpack) or per object
    and number (JSON) so the event loop's thread can take the interpreter lock between them."""
    frames, channels = settings.ingest_max_batch_frames, settings.ingest_max_channels
    if isinstance(data, bytes):
        try:
            return msgpack.unpackb(
                data, raw=False, strict_map_key=True, object_hook=_same if in_thread else None,
                max_map_len=channels, max_array_len=frames, max_bin_len=frames * 8, max_str_len=MAX_STR,
                max_ext_len=0,
            )  # fmt: skip
        except ValueError as exc:
            raise _over_limit(str(exc), settings) or BadBatch(
                "malformed", f"not msgpack: {type(exc).__name__}: {exc}"
            ) from None
        except (TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
            raise BadBatch("malformed", f"not msgpack: {type(exc).__name__}: {exc}") from None
        except RecursionError:
            raise BadBatch("malformed", "msgpack nested too deeply") from None

    def capped(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if len(pairs) > channels:
            raise _Over(len(pairs))
        return dict(pairs)

    hooks: dict[str, Any] = {"object_pairs_hook": capped}
    if in_thread:
        hooks["parse_float"] = _float
    try:
        return strict_json_loads(data, allow_nan=True, **hooks)
    except _Over as exc:
        raise too_many_channels(exc.n, settings) from None
    except BadJSON as exc:
        raise BadBatch("malformed", f"not JSON: {exc}") from None


def _over_limit(message: str, settings: Settings) -> BadBatch | None:
    """msgpack's own refusal of a map, list or string over its limit ("470001 exceeds max_map_len(512)"),
    as the limit and its setting."""
    n = message.split(" ", 1)[0]
    count = int(n) if n.isdigit() else 0
    if "max_map_len" in message:
        return too_many_channels(count, settings)
    if "max_array_len" in message:
        return too_many_frames(count, settings)
    if "max_bin_len" in message:
        return too_many_frames(count // 8, settings)
    if "max_str_len" in message:
        return BadBatch("malformed", f"a string of {count} bytes is over {MAX_STR}")
    return None


def _same(obj: dict[str, Any]) -> dict[str, Any]:
    return obj


def _float(s: str) -> float:
    return float(s)


def read_message(
    settings: Settings, data: bytes | str, in_thread: bool = False
) -> tuple[str | None, list[Any] | ColumnBatch]:
    """(session id, frames) of one message: decoded and read as a batch (in a worker thread when big)."""
    return batch_of(settings, decode(settings, data, in_thread))


def batch_of(settings: Settings, msg: Any) -> tuple[str | None, list[Any] | ColumnBatch]:
    """(session id, frames) of a decoded message; raises BadBatch naming the problem."""
    frames: list[Any] | ColumnBatch
    if isinstance(msg, list):
        sid, frames = None, msg
    elif isinstance(msg, dict) and isinstance(msg.get("frames"), list):
        sid, frames = msg.get("session_id"), msg["frames"]
    elif isinstance(msg, dict) and "columns" in msg and "frames" not in msg:
        try:
            sid, frames = msg.get("session_id"), column_batch(msg["columns"])
        except BadColumns as exc:
            raise BadBatch("malformed", str(exc)) from None
    elif isinstance(msg, dict) and "t_s" in msg and "frames" not in msg:
        sid, frames = msg.get("session_id"), [msg]
    else:
        raise BadBatch(
            "malformed",
            "expected {session_id?, frames: [...]}, {session_id?, columns: {t_s: [...], ...}}, "
            "a list of frames, or one frame",
        )
    if sid is not None and (not isinstance(sid, str) or len(sid) > MAX_ID):
        raise BadBatch("malformed", f"session_id must be a string of at most {MAX_ID} characters")
    check_frames(settings, len(frames))
    return sid, frames
