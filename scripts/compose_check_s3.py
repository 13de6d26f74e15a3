"""The ``lake-s3`` part of ``scripts/compose-check --lake-s3``: the lake on SeaweedFS (compose service ``s3``).

The stack runs with ``PITWALL_LAKE_URL=s3://pitwall-lake/lake`` and ``PITWALL_S3_ENDPOINT=http://s3:8333``
and credentials made up for the run (passed as settings, never in an image). The steps beyond the
default check:

* anonymous   the published S3 port refuses a request without credentials (403)
* publish     after the session ends, the bucket holds its catalog row and every object the row names,
              the lap files compacted into one ``telemetry.parquet``; the hot path's spool is empty.
              Read by plain pyarrow (no Pitwall code) from inside the stack
* tools       ``get_session_highlights`` over HTTP: its best lap agrees with a lap split computed here from
              the raw telemetry object (start of the next lap minus start of this one)
* sql         the SQL sandbox (``query_pitwall_db``) counts the session's telemetry rows as pyarrow counts
              them in the bucket, and a ``read_parquet`` of the mounted local lake is refused

Standard library only, like ``compose_check.py``.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from typing import Any

BUCKET = "pitwall-lake"
PREFIX = "lake"
# two samples at 50 Hz: the hot path times a lap at the interpolated line crossing, the split below at
# the first sample of each lap
LAP_TOLERANCE_S = 0.05


def s3_env(port: int) -> dict[str, str]:
    """The settings of the run: the bucket, the endpoint inside the stack, fresh credentials."""
    return {
        "PITWALL_LAKE_URL": f"s3://{BUCKET}/{PREFIX}",
        "PITWALL_S3_ENDPOINT": "http://s3:8333",
        "PITWALL_S3_ACCESS_KEY": "pitwall-" + secrets.token_hex(6),
        "PITWALL_S3_SECRET_KEY": secrets.token_hex(20),
        "PITWALL_S3_PORT": str(port),
    }


# Runs inside the hot path container (it has pyarrow and the S3 settings in its environment), with no
# Pitwall code: what is really in the bucket, for one session. argv[1] = session id.
BUCKET_PROBE = r"""
import json, os, sys, time
from urllib.parse import urlparse
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
t0 = time.monotonic()
sid = sys.argv[1]
ep, lake = urlparse(os.environ["PITWALL_S3_ENDPOINT"]), urlparse(os.environ["PITWALL_LAKE_URL"])
fs = pafs.S3FileSystem(access_key=os.environ["PITWALL_S3_ACCESS_KEY"],
                       secret_key=os.environ["PITWALL_S3_SECRET_KEY"], endpoint_override=ep.netloc,
                       scheme=ep.scheme, region="us-east-1", connect_timeout=5, request_timeout=10)
root = lake.netloc + "/" + lake.path.strip("/")
infos = fs.get_file_info(pafs.FileSelector(root, recursive=True, allow_not_found=True))
objs = {i.path[len(root) + 1:]: i.size for i in infos if i.type == pafs.FileType.File}
out = {"objects_in_bucket": len(objs), "session_keys": sorted(k for k in objs if f"session={sid}/" in k)}
out["session_bytes"] = sum(objs[k] for k in out["session_keys"])
# the catalog: the Delta table _delta/sessions, read with deltalake alone; a session's row is the one
# published last by any writer, and a deleted session's last row is marked deleted
from deltalake import DeltaTable
from deltalake.exceptions import TableNotFoundError
opts = {"AWS_ENDPOINT_URL": os.environ["PITWALL_S3_ENDPOINT"], "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": os.environ["PITWALL_S3_ACCESS_KEY"],
        "AWS_SECRET_ACCESS_KEY": os.environ["PITWALL_S3_SECRET_KEY"], "AWS_ALLOW_HTTP": "true"}
row, n_rows = None, 0
try:
    cat = DeltaTable(f"s3://{root}/_delta/sessions", storage_options=opts).to_pyarrow_table()
except TableNotFoundError:
    cat = None
if cat is not None:
    n_rows = cat.num_rows
    for r in cat.filter(pc.equal(cat["session_id"], sid)).to_pylist():
        if row is None or str(r.get("published_at") or "") > str(row.get("published_at") or ""):
            row = r
if row is not None and row.get("deleted"):
    row = None
out["catalog_sessions"] = None if row is None else n_rows
out["catalog_log"] = sum(1 for k in objs if k.startswith("_delta/sessions/_delta_log/"))
if row is not None:
    named = sorted(row["object_keys"] or [])
    out["named"] = named
    out["named_missing"] = [k for k in named if k not in objs]
    out["status"] = row.get("status")
    tele = [k for k in named if k.endswith("/telemetry.parquet")]
    out["compacted"] = bool(tele) and not any("/telemetry/lap_" in k for k in named)
    if tele:
        t = pq.read_table(fs.open_input_file(root + "/" + tele[0]), columns=["lap", "t_s"])
        out["telemetry_rows"] = t.num_rows
        starts = {}
        for lap, ts in zip(t["lap"].to_pylist(), t["t_s"].to_pylist()):
            if lap is not None and ts is not None and (lap not in starts or ts < starts[lap]):
                starts[lap] = ts
        laps = sorted(starts)
        out["lap_split_s"] = {str(a): round(starts[b] - starts[a], 3)
                              for a, b in zip(laps, laps[1:]) if b == a + 1}
out["probe_s"] = round(time.monotonic() - t0, 2)
print(json.dumps(out))
"""


def anonymous_refused(port: int) -> str:
    """The published S3 API answers, and refuses a request without credentials."""
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/{BUCKET}/", timeout=10)
    except urllib.error.HTTPError as exc:
        if exc.code == 403:
            return f"s3 on 127.0.0.1:{port} refuses anonymous listing (403)"
        raise RuntimeError(f"anonymous listing of the bucket answered {exc.code}, want 403") from exc
    raise RuntimeError("the published S3 API lists the bucket without credentials")


def published(probe: dict[str, Any], hot_health: dict[str, Any] | None) -> bool:
    """The session is in the bucket for good: its closed catalog row names only objects that are there,
    the telemetry compacted; the hot path's spool has nothing left to send."""
    up = (hot_health or {}).get("lake_upload") or {}
    return (
        probe.get("status") == "closed"
        and bool(probe.get("named"))
        and not probe.get("named_missing")
        and bool(probe.get("compacted"))
        and up.get("waiting_files") == 0
    )


def lap_times_agree(split: dict[str, float], laps: list[dict[str, Any]]) -> list[str]:
    """Problems (empty: none) between the paddock's lap times and the split from the raw telemetry."""
    problems = []
    for lap in laps:
        want = split.get(str(lap.get("lap")))
        got = lap.get("time_s")
        if want is None or got is None or lap.get("kind") not in (None, "full"):
            continue
        if abs(float(got) - want) > LAP_TOLERANCE_S:
            problems.append(f"lap {lap['lap']}: paddock {got} s, telemetry split {want} s")
    return problems


def sql_count(sid: str) -> str:
    return f"SELECT count(*) AS n FROM telemetry WHERE session_id = '{sid}'"


# a file of the local lake: the paddock mounts it read-only, and on an S3 lake its sandbox may read none
SQL_ESCAPE = "SELECT count(*) AS n FROM read_parquet('/data/lake/**/*.parquet')"


def wait_published(probe: Any, health: Any, timeout_s: float) -> tuple[dict[str, Any], float, int]:
    """Poll the bucket until :func:`published`; (last probe, seconds, polls)."""
    t0 = time.monotonic()
    polls = 0
    last: dict[str, Any] = {}
    h: dict[str, Any] | None = None
    while time.monotonic() - t0 < timeout_s:
        polls += 1
        last, h = probe(), health()
        if published(last, h):
            return last, time.monotonic() - t0, polls
        time.sleep(0.5)
    # what decides first (the long key lists last, cut)
    verdict = {k: last.get(k) for k in ("status", "compacted", "named_missing", "objects_in_bucket")}
    verdict["upload"] = (h or {}).get("lake_upload")
    verdict["session_keys"] = [k.rsplit("/", 2)[-2:] for k in last.get("session_keys", [])]
    raise TimeoutError(json.dumps(verdict)[:1500])
