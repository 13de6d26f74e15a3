"""Schemathesis against the real paddock's /openapi.json: no generated input may produce a 500.

The paddock runs as a real uvicorn process over a lake with one simulated session, and talks to the
scripted model server, so the coaching endpoints really run their agents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.procs import ScriptedLLMProcess, start_paddock


@pytest.fixture(scope="module")
def paddock_schema(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d: Path = tmp_path_factory.mktemp("contract")
    data = d / "data"
    import_sim(cached_sim(laps=3, seed=5), settings_for(data), driver_id="ana")
    llm = ScriptedLLMProcess(d)
    # no hot path answers at PITWALL_HOTPATH_URL: a generated DELETE never reaches a real one
    pad = start_paddock(
        data, d, llm.url, {"PITWALL_ADK_TIMEOUT_S": "10", "PITWALL_HOTPATH_URL": "http://127.0.0.1:9"}
    )
    yield schemathesis.openapi.from_url(f"{pad.url}/openapi.json")
    pad.stop()
    llm.stop()


def test_no_generated_request_gets_a_500(paddock_schema: Any) -> None:
    """Every operation, up to 12 generated cases each. (Schemathesis's own pytest plugin does not load
    under pytest 9, so the operations are driven through their Hypothesis strategies directly.)"""
    failures: list[str] = []
    labels: list[str] = []
    calls: list[int] = []
    for result in paddock_schema.get_all_operations():
        op = result.ok()
        labels.append(op.label)

        @given(case=op.as_strategy())
        @settings(
            max_examples=12,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            response = case.call(timeout=60)
            calls.append(response.status_code)
            case.validate_response(response, checks=[not_a_server_error])

        try:
            run()
        except Exception as exc:  # collect every operation's failure, then report them together
            failures.append(f"{op.label}: {str(exc)[:600]}")
    assert len(labels) >= 18, labels
    assert len(calls) > 10 * len(labels) and 200 in calls and 422 in calls
    assert not failures, "\n\n".join(failures)
