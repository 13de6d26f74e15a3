"""The paddock's first model probe never stalls its event loop: the HTTP clients for the model server (the
warm tier's and LiteLLM's) are built in worker threads at start-up, not on the loop at the first probe.

Building a client loads the CA bundle into an SSL context (40-50 ms idle, 170-450 ms beside the agents'
import). A large bundle (``SSL_CERT_FILE``, which httpx honours, as a site's own CA bundle would be) makes
that load take seconds, so a build on the loop shows as seconds of loop lag across the first probe. The
probe is the warm-up's model discovery, right after the agent tree has loaded (no ``/health`` is asked
before: a ``/health`` would probe too); the lag's running maximum is read from ``/metrics`` (which never
probes) just before, and from ``/health`` once the warm-up is done.
"""

from __future__ import annotations

import time
from pathlib import Path

import certifi
import httpx

from tests.support.procs import Service, free_port

BUNDLE_COPIES = 40  # ~12 MB of certificates: ~2 s to load idle, far beyond the loop's own noise


def _lag_max_ms(svc: Service) -> float:
    """``/metrics``' running maximum of the loop's lag, in ms (``/metrics`` never probes the model)."""
    text = httpx.get(f"{svc.url}/metrics", timeout=30).text
    line = next(ln for ln in text.splitlines() if ln.startswith("pitwall_paddock_event_loop_lag_max_seconds"))
    return float(line.split()[1]) * 1000


def test_the_first_model_probe_leaves_the_event_loop_free(tmp_path: Path) -> None:
    bundle = tmp_path / "ca-bundle.pem"
    bundle.write_text(Path(certifi.where()).read_text() * BUNDLE_COPIES)
    data, port = tmp_path / "data", free_port()
    svc = Service(
        ["-v", "paddock", "--port", str(port), "--data-dir", str(data)],
        port,
        {
            "PITWALL_DATA_DIR": str(data),
            "PITWALL_ADK_OPENAI_URL": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens: no model calls
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "SSL_CERT_FILE": str(bundle),
        },
        tmp_path / "paddock.log",
    )
    try:
        before = None
        deadline = time.monotonic() + 240
        while True:  # the lag's maximum while the agents load, read until their load is logged
            assert time.monotonic() < deadline and svc.proc.poll() is None, svc.log.read_text()[-2000:]
            try:
                seen = _lag_max_ms(svc)
            except httpx.HTTPError:  # not listening yet
                seen = None
            if "paddock agents ready" in svc.log.read_text():  # read after the figure: it predates the probe
                break
            before = seen if seen is not None else before
            time.sleep(0.05)
        assert before is not None
        while (h := httpx.get(f"{svc.url}/health", timeout=30).json())["warm_up"]["status"] != "ready":
            assert time.monotonic() < deadline, h
            time.sleep(0.1)
        # the warm-up's discovery was the first probe: it found no server, and warmed nothing
        assert h["warm_up"]["model_reachable"] is False and h["model"]["reachable"] is False
        assert h["model"]["detail"].startswith("no model server at")
        grew = h["event_loop_lag"]["max_ms"] - before
        assert grew < 400, f"the loop stalled {grew:.0f} ms more across the first model probe"
    finally:
        svc.stop()
    assert "Traceback" not in svc.log.read_text()
