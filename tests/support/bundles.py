"""Hostile ``.pitwall`` bundles, crafted with zipfile from a real exported one: a session id that is a
path, damaged archives, and zip bombs whose header sizes are patched in the bytes."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import warnings
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

GIB = 1 << 30


def members(bundle: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(bundle) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def pack(out: Path, files: dict[str, bytes], manifest: dict | None = None) -> Path:
    """A bundle of ``files`` with ``manifest`` (default: the one in ``files``) listing every member's
    real size and SHA-256, as the exporter writes it."""
    man = dict(manifest or json.loads(files["manifest.json"]))
    man["members"] = {
        n: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
        for n, b in files.items()
        if n != "manifest.json"
    }
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(man))
        for n, b in files.items():
            if n != "manifest.json":
                zf.writestr(n, b)
    return out


def with_session_id(bundle: Path, out: Path, sid: str) -> Path:
    """The bundle with its session id replaced everywhere (manifest and every table), consistently, so
    the id is the only thing wrong with it."""
    files = members(bundle)
    for n, b in list(files.items()):
        if n.startswith("lake/") and n.endswith(".parquet"):
            t = pq.read_table(io.BytesIO(b))
            if "session_id" in t.column_names:
                i = t.column_names.index("session_id")
                t = t.set_column(i, "session_id", pa.array([sid] * t.num_rows, pa.string()))
                buf = io.BytesIO()
                pq.write_table(t, buf)
                files[n] = buf.getvalue()
    man = json.loads(files["manifest.json"])
    man["session_id"] = sid
    return pack(out, files, man)


def with_session_column(bundle: Path, out: Path, **values: object) -> Path:
    """The bundle with ``values`` set in its session row (driver_id, track_id, ...)."""
    files = members(bundle)
    t = pq.read_table(io.BytesIO(files["lake/session.parquet"]))
    for col, v in values.items():
        i = t.column_names.index(col)
        t = t.set_column(i, col, pa.array([v], t.schema.field(col).type))
    buf = io.BytesIO()
    pq.write_table(t, buf)
    files["lake/session.parquet"] = buf.getvalue()
    return pack(out, files)


def _headers(raw: bytes, name: bytes) -> tuple[int, int]:
    """Offsets of ``name``'s local file header and central directory entry."""
    local = raw.index(b"PK\x03\x04")
    while raw[local + 30 : local + 30 + len(name)] != name:
        local = raw.index(b"PK\x03\x04", local + 4)
    central = raw.index(b"PK\x01\x02")
    while raw[central + 46 : central + 46 + len(name)] != name:
        central = raw.index(b"PK\x01\x02", central + 4)
    return local, central


def bomb(bundle: Path, out: Path, claim: int | None, inflated: int = GIB) -> Path:
    """``lake/truth.json`` as ``inflated`` zero bytes deflated (about 1 MB for 1 GiB). ``claim``: the
    uncompressed size written into both headers and the manifest instead of the real one (None: the
    real size everywhere)."""
    files = members(bundle)
    man = json.loads(files["manifest.json"])
    man["members"] = {
        n: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
        for n, b in files.items()
        if n != "manifest.json"
    }
    zeros = hashlib.sha256()
    block = bytes(1 << 20)
    for _ in range(inflated >> 20):
        zeros.update(block)
    size = inflated if claim is None else claim
    man["members"]["lake/truth.json"] = {"bytes": size, "sha256": zeros.hexdigest()}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(man))
        for n, b in files.items():
            if n != "manifest.json":
                zf.writestr(n, b)
        with zf.open("lake/truth.json", "w") as fh:
            for _ in range(inflated >> 20):
                fh.write(block)
    if claim is not None:  # lie about the inflated size in the local header and the central directory
        raw = bytearray(out.read_bytes())
        local, central = _headers(bytes(raw), b"lake/truth.json")
        struct.pack_into("<I", raw, local + 22, claim)
        struct.pack_into("<I", raw, central + 24, claim)
        out.write_bytes(bytes(raw))
    return out


def corrupt_deflate(bundle: Path, out: Path) -> Path:
    """``report.html`` (deflated) with its compressed bytes overwritten in the middle."""
    raw = bytearray(bundle.read_bytes())
    local, _ = _headers(bytes(raw), b"report.html")
    (csize,) = struct.unpack_from("<I", raw, local + 18)
    nlen, xlen = struct.unpack_from("<HH", raw, local + 26)
    start = local + 30 + nlen + xlen
    raw[start + csize // 3 : start + csize // 3 + 64] = b"\xff" * 64
    out.write_bytes(bytes(raw))
    return out


def bad_crc(bundle: Path, out: Path) -> Path:
    """``lake/laps.parquet`` (stored) with its CRC changed in both headers."""
    raw = bytearray(bundle.read_bytes())
    local, central = _headers(bytes(raw), b"lake/laps.parquet")
    (crc,) = struct.unpack_from("<I", raw, local + 14)
    struct.pack_into("<I", raw, local + 14, crc ^ 0xFFFF)
    struct.pack_into("<I", raw, central + 16, crc ^ 0xFFFF)
    out.write_bytes(bytes(raw))
    return out


def duplicate(bundle: Path, out: Path) -> Path:
    """``lake/session.parquet`` twice: the second copy is another session's row."""
    files = members(bundle)
    with zipfile.ZipFile(out, "w") as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name: that is the point
        for n, b in files.items():
            zf.writestr(n, b)
        zf.writestr("lake/session.parquet", files["lake/laps.parquet"])
    return out


def understated(bundle: Path, out: Path) -> Path:
    """``report.html`` whole and with its true SHA-256, but the manifest says it has 10 bytes."""
    files = members(bundle)
    man = json.loads(files["manifest.json"])
    man["members"]["report.html"]["bytes"] = 10
    files["manifest.json"] = json.dumps(man).encode()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for n, b in files.items():
            zf.writestr(n, b)
    return out


def with_member(bundle: Path, out: Path, name: str, data: bytes) -> Path:
    """One more member, listed in the manifest with its true size and SHA-256."""
    return pack(out, {**members(bundle), name: data})


def with_table_session(bundle: Path, out: Path, member: str, sid: str) -> Path:
    """``member``'s rows moved to another session id (the session row keeps its own)."""
    files = members(bundle)
    t = pq.read_table(io.BytesIO(files[member]))
    i = t.column_names.index("session_id")
    t = t.set_column(i, "session_id", pa.array([sid] * t.num_rows, pa.string()))
    buf = io.BytesIO()
    pq.write_table(t, buf)
    files[member] = buf.getvalue()
    return pack(out, files)


def with_bad_laps(bundle: Path, out: Path) -> Path:
    """``lake/laps.parquet`` with its lap numbers as text: a table the store cannot take."""
    files = members(bundle)
    t = pq.read_table(io.BytesIO(files["lake/laps.parquet"]))
    i = t.column_names.index("lap")
    t = t.set_column(i, "lap", pa.array(["x"] * t.num_rows, pa.string()))
    buf = io.BytesIO()
    pq.write_table(t, buf)
    files["lake/laps.parquet"] = buf.getvalue()
    return pack(out, files)
