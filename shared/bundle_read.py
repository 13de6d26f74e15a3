"""Reading a ``.pitwall`` bundle as the untrusted zip it is, before anything touches the disk.

Every member is inflated in 64 KiB steps and counted as it comes out (the sizes in the zip's headers
and the manifest are claims, never trusted): over ``PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES`` in all, or
over the size the manifest lists for the member, reading stops with one error naming the bundle and the
limit. A damaged archive (not a zip, truncated, a corrupt deflate stream, a bad CRC, a member twice, an
encrypted or unknown compression) is one :class:`ImportFormatError` naming the bundle and the member.
Member names are the ones a bundle has (``manifest.json``, ``report.html``, ``track.json``,
``lake/<table>.parquet``, ``lake/telemetry/lap_NNNN.parquet``, ``lake/truth.json``): never a path.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import zipfile
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from shared.importers.errors import ImportFormatError
from shared.importers.limits import ImportLimitError
from shared.store.schema import LAKE_TABLES

FORMAT = "pitwall-session-bundle/1"
CHUNK = 1 << 16
_MEMBER = re.compile(
    r"manifest\.json|report\.html|track\.json|lake/truth\.json|lake/telemetry/lap_\d{4}\.parquet"
    rf"|lake/(?:{'|'.join(re.escape(s) for s in LAKE_TABLES.values())})\.parquet"
)
# what a damaged zip raises from the standard library: truncated, corrupt deflate, bad CRC, encrypted
_DAMAGE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    struct.error,
)
SETTING = "PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES"
# where a session came from: an imported bundle's session carries this key in its ``meta_json``; such a
# session is never the local driver's own (personal bests, goals, progress, the all-time reference)
# unless the user said it is (``pitwall import --mine``: ``"mine": true`` in it)
PROVENANCE = "imported_bundle"
OWN_SESSION_SQL = (
    f"(json_extract(meta_json, '$.{PROVENANCE}') IS NULL "
    f"OR json_extract_string(meta_json, '$.{PROVENANCE}.mine') = 'true')"
)


def foreign(meta_json: str | None) -> bool:
    """Whether a session (by its ``meta_json``) came from a bundle not declared the driver's own: a
    friend's, maybe under the same name."""
    try:
        meta = json.loads(meta_json or "{}")
    except ValueError:
        return False
    prov = meta.get(PROVENANCE) if isinstance(meta, dict) else None
    return isinstance(prov, dict) and prov.get("mine") is not True


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _why(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"a damaged zip ({text.splitlines()[0][:160]})"


class _Budget:
    """Bytes inflated so far against the one limit of the import."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path, self.max_bytes, self.used = path, max_bytes, 0

    def take(self, n: int) -> None:
        self.used += n
        if self.used > self.max_bytes:
            raise ImportLimitError(
                self.path,
                "more than that inflated (stopped reading)",
                f"{self.max_bytes} bytes unpacked",
                SETTING,
            )


def _member(zf: zipfile.ZipFile, path: Path, name: str, budget: _Budget, cap: int | None) -> bytes:
    """One member, inflated a chunk at a time, counted against ``budget`` and ``cap`` (its listed size)."""
    parts: list[bytes] = []
    got = 0
    try:
        with zf.open(name) as fh:
            while chunk := fh.read(CHUNK):
                got += len(chunk)
                if cap is not None and got > cap:
                    raise ImportFormatError(path, name, f"the {cap} bytes the manifest lists", "more")
                budget.take(len(chunk))
                parts.append(chunk)
    except ImportFormatError:
        raise
    except _DAMAGE as exc:
        raise ImportFormatError(path, name, "an intact zip member", _why(exc)) from None
    return b"".join(parts)


def read_bundle(path: Path, max_bytes: int) -> tuple[dict[str, Any], dict[str, bytes]]:
    """(the manifest, every member it lists by name) of the bundle at ``path``, each member checked
    against the manifest's SHA-256; :class:`ImportFormatError` (or :class:`ImportLimitError`) else."""
    try:
        zf = zipfile.ZipFile(path)
    except _DAMAGE as exc:
        raise ImportFormatError(path, "", "a Pitwall session bundle (zip)", _why(exc)) from None
    with zf:
        try:
            names = [i.filename for i in zf.infolist()]
        except _DAMAGE as exc:
            raise ImportFormatError(path, "", "a Pitwall session bundle (zip)", _why(exc)) from None
        twice = sorted(n for n, k in Counter(names).items() if k > 1)
        if twice:
            raise ImportFormatError(path, twice[0], "each member once", "it more than once")
        if "manifest.json" not in names:
            raise ImportFormatError(path, "", "a Pitwall session bundle (manifest.json)", "a zip without one")
        budget = _Budget(path, max_bytes)
        try:
            manifest = json.loads(_member(zf, path, "manifest.json", budget, None))
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, ImportFormatError):
                raise
            raise ImportFormatError(path, "manifest.json", "a JSON manifest", str(exc)[:160]) from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
            raise ImportFormatError(path, "manifest.json", f"format {FORMAT!r}", str(found))
        listed = manifest.get("members")
        if not isinstance(listed, dict) or "lake/session.parquet" not in listed:
            raise ImportFormatError(path, "manifest.json", "members with lake/session.parquet", "")
        data: dict[str, bytes] = {}
        for name, want in listed.items():
            if not _MEMBER.fullmatch(name):
                raise ImportFormatError(path, "manifest.json", "member names a bundle has", ascii(name))
            if name not in names or not isinstance(want, dict):
                raise ImportFormatError(path, name, "a member listed in the manifest", "it is missing")
            cap = want.get("bytes")
            blob = _member(zf, path, name, budget, cap if isinstance(cap, int) else None)
            if sha256(blob) != want.get("sha256"):
                raise ImportFormatError(path, name, "the SHA-256 the manifest lists", "a different one")
            data[name] = blob
    return manifest, data
