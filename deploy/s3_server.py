"""Entry point of the `lake-s3` compose service: SeaweedFS's S3 API on port 8333 with one identity.

s3_server.py            write the S3 identity (from the environment) and exec `weed mini`
s3_server.py --health   exit 0 when the S3 port answers HTTP (any status)
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

PORT = 8333


def health() -> int:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{PORT}/", timeout=3)
    except urllib.error.HTTPError:
        return 0  # 403 without credentials: the server is up
    except OSError:
        return 1
    return 0


def main() -> None:
    if "--health" in sys.argv:
        raise SystemExit(health())
    key, secret = os.environ.get("PITWALL_S3_ACCESS_KEY"), os.environ.get("PITWALL_S3_SECRET_KEY")
    if not key or not secret:
        raise SystemExit("set PITWALL_S3_ACCESS_KEY and PITWALL_S3_SECRET_KEY for the lake-s3 profile")
    bucket = os.environ.get("PITWALL_S3_BUCKET", "pitwall-lake")
    ident = {"name": "pitwall", "credentials": [{"accessKey": key, "secretKey": secret}]}
    ident["actions"] = ["Admin", "Read", "Write", "List", "Tagging"]
    cfg = Path("/tmp/s3.json")
    cfg.write_text(json.dumps({"identities": [ident]}))
    cfg.chmod(0o600)
    weed = str(Path(sys.executable).parent / "weed")
    args = [
        weed, "mini", "-dir=/data", f"-bucket={bucket}", f"-s3.config={cfg}", f"-s3.port={PORT}",
        "-admin.ui=false", "-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
    ]  # fmt: skip
    os.execv(weed, args)


if __name__ == "__main__":
    main()
