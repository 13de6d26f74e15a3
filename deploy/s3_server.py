"""Entry point of the `lake-s3` compose service: SeaweedFS's S3 API on port 8333 with one identity.

s3_server.py            write the S3 identity (from the environment) and exec `weed mini`
s3_server.py --health   exit 0 when the S3 port answers HTTP and the lake's bucket exists (the filer
                        lists /buckets/<bucket>); else exit 1 with one line saying which is missing

The credentials come only from the environment (PITWALL_S3_ACCESS_KEY / PITWALL_S3_SECRET_KEY, the same
settings the hot path and the paddock read); the identity file lives on the /tmp tmpfs, never in the
image or the data volume. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

PORT = 8333  # S3 API
FILER_PORT = 8888  # weed mini's filer (inside the container; not published)
DATA = "/data"


def bucket_name() -> str:
    """The bucket of PITWALL_LAKE_URL (s3://bucket/prefix, the setting Pitwall reads), else pitwall-lake."""
    url = urllib.parse.urlparse(os.environ.get("PITWALL_LAKE_URL") or "")
    return url.netloc if url.scheme == "s3" and url.netloc else "pitwall-lake"


def health() -> int:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{PORT}/", timeout=3)
    except urllib.error.HTTPError:
        pass  # 403 without credentials: the S3 API is up
    except OSError as exc:
        sys.stderr.write(f"unhealthy: the S3 API on port {PORT} does not answer: {exc}\n")
        return 1
    bucket = urllib.parse.quote(bucket_name())
    req = urllib.request.Request(
        f"http://127.0.0.1:{FILER_PORT}/buckets/{bucket}/?limit=1", headers={"Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=3) as r:
            json.load(r)
    except (OSError, ValueError) as exc:  # 404 until `weed mini` has created the bucket
        sys.stderr.write(f"unhealthy: bucket {bucket_name()!r} not there yet: {exc}\n")
        return 1
    return 0


def weed_args(weed: str, config: Path, bucket: str, data_dir: str = DATA) -> list[str]:
    """`weed mini`: master, volume, filer and the S3 API in one process; the bucket created at start.
    No telemetry, no admin UI, no WebDAV, no Iceberg or Lance endpoints: only what the lake needs."""
    return [
        weed, "mini", f"-dir={data_dir}", f"-bucket={bucket}", f"-s3.config={config}", f"-s3.port={PORT}",
        f"-filer.port={FILER_PORT}", "-master.telemetry=false", "-admin.ui=false", "-webdav=false",
        "-s3.port.iceberg=0", "-s3.port.lance=0",
    ]  # fmt: skip


def main() -> None:
    if "--health" in sys.argv:
        raise SystemExit(health())
    key = os.environ.get("PITWALL_S3_ACCESS_KEY", "").strip()
    secret = os.environ.get("PITWALL_S3_SECRET_KEY", "").strip()
    if not key or not secret:
        raise SystemExit("set PITWALL_S3_ACCESS_KEY and PITWALL_S3_SECRET_KEY for the lake-s3 profile")
    ident = {"name": "pitwall", "credentials": [{"accessKey": key, "secretKey": secret}]}
    ident["actions"] = ["Admin", "Read", "Write", "List", "Tagging"]
    cfg = Path(os.environ.get("PITWALL_S3_CONFIG", "/tmp/s3.json"))
    fd = os.open(cfg, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # never readable by others
    with os.fdopen(fd, "w") as f:
        json.dump({"identities": [ident]}, f)
    weed = str(Path(sys.executable).parent / "weed")
    os.execv(weed, weed_args(weed, cfg, bucket_name()))


if __name__ == "__main__":
    main()
