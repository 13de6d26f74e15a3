"""``POST /imports``: a logger file handed to the running hot path, which holds the hot DuckDB file.

``pitwall import`` and ``pitwall gold import`` use it when the store is locked by a live hot path. The
body is the file itself; the hot path runs the same import pipeline as the CLI in a worker thread, with
its store writes on the writer thread (one writer per DuckDB file), into its store and lake. Same answer
as ``pitwall import --json``; a file that cannot be imported is a 422 naming the file and the problem.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request

from services.hotpath.deps import State
from services.hotpath.state import HotpathState
from shared.ids import ID_PATTERN
from shared.importers import ImportFormatError
from shared.importers.errors import printable
from shared.ingest import import_file
from shared.store.hot import HotStore

router = APIRouter(tags=["imports"])
_SAFE = re.compile(r"[^A-Za-z0-9._ -]")


def _import(state: HotpathState, body: bytes, name: str, q: dict[str, Any]) -> dict[str, Any]:
    (state.settings.data_dir / "tmp").mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="import-", dir=state.settings.data_dir / "tmp"))
    try:
        path = tmp / (_SAFE.sub("_", Path(name).name).lstrip(".") or "upload")
        path.write_bytes(body)

        def run(fn: Any) -> Any:
            return state.writer.run(lambda con: fn(HotStore(state.settings, con=con)))

        try:
            res = import_file(
                path,
                state.settings,
                q["driver"],
                q["car"],
                q["track"],
                run=run,
                source_path=q["source"],
                mine=q["mine"],
            )
        except (ImportFormatError, KeyError, ValueError, OSError, MemoryError) as exc:
            msg = printable(str(exc).strip('"').replace(str(path), name), 600)
            raise HTTPException(422, detail={"code": "import_failed", "message": msg}) from None
        d = res.as_json()
        d["path"] = q["source"] or name
        return d
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@router.post("/imports")
async def import_upload(
    request: Request,
    state: State,
    name: str = Query(..., min_length=1, max_length=255, description="The file's name (format hint)"),
    driver: str | None = Query(None, max_length=64, description="Default: the name the file gives"),
    car: str | None = Query(None, max_length=64),
    track: str | None = Query(None, pattern=ID_PATTERN, description="A track id (default: detected)"),
    source: str | None = Query(None, max_length=4096, description="The file's path where it came from"),
    mine: bool = Query(False, description="A .pitwall bundle of your own: it counts as yours (as driver)"),
) -> dict[str, Any]:
    """Import the logger file in the body (AiM XRK/XRZ/CSV, VBOX, candump) into this hot path's store and
    lake. Up to ``PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES``; one import at a time."""
    body = await request.body()
    if not body:
        raise HTTPException(422, detail={"code": "import_failed", "message": f"{name}: empty file"})
    lock: asyncio.Lock = request.app.state.import_lock
    async with lock:
        q = {"driver": driver, "car": car, "track": track, "source": source, "mine": mine}
        return await asyncio.to_thread(_import, state, body, name, q)
