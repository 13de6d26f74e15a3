"""Three real processes: the hot path, the paddock and the scripted LLM server, over HTTP."""

from __future__ import annotations

import asyncio
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pyarrow.parquet as pq
import pytest
from httpx_sse import connect_sse

from services.hotpath.replay import replay_ws
from shared.bundle import import_bundle
from shared.lake_url import s3_target
from shared.settings import settings_for
from shared.simulator import simulate
from shared.store.gold import save_gold_lap
from shared.store.lake_catalog import read_catalog
from tests.support.procs import ScriptedLLMProcess, start_hotpath, start_paddock
from tests.support.seaweed import seaweed_or_skip
from tests.support.truth import gate_crossings

SECRET = "sk-local-7f3a9c1e-do-not-log"


@pytest.fixture(scope="module", params=["local", "s3"])
def stack(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The same run on both lakes: the local directory, and S3 (a real SeaweedFS server; the hot path
    uploads through its spool, the paddock has a data directory of its own and reads only the bucket)."""
    d = tmp_path_factory.mktemp(f"stack-{request.param}")
    data = d / "data"
    weed = seaweed_or_skip(d / "weed") if request.param == "s3" else None
    lake_env = weed.env() if weed is not None else {}
    llm = ScriptedLLMProcess(d, token_delay_s=0.01)
    hot = start_hotpath(data, d, env=lake_env)
    pad = start_paddock(
        data if weed is None else d / "paddock-data",
        d,
        llm.url,
        {
            "PITWALL_LLM_QUEUE_SIZE": "1",
            "PITWALL_ADK_OPENAI_API_KEY": SECRET,
            "LITELLM_LOG": "DEBUG",
            **lake_env,
        },
    )
    # every test needs a replayed session in the lake, so each passes when run alone
    sid = _replayed_session(hot, pad)
    yield {
        "llm": llm, "hot": hot, "pad": pad, "data": data, "sid": sid, "weed": weed, "lake_env": lake_env,
        "pad_data": data if weed is None else d / "paddock-data",
    }  # fmt: skip
    pad.stop()
    hot.stop()
    llm.stop()
    if weed is not None:
        weed.stop()


def _replayed_session(hot, pad, laps: int = 5, seed: int = 3, driver: str = "ana") -> str:
    sim = simulate(laps=laps, seed=seed, rate_hz=20)
    res = asyncio.run(
        replay_ws(
            sim.wide,
            f"ws://127.0.0.1:{hot.port}/ingest/ws",
            speed=0,
            start={"driver_id": driver, "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"},
        )
    )
    sid = str(res["session_id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r = httpx.get(f"{pad.url}/sessions/{sid}/laps")
        up = httpx.get(f"{hot.url}/health").json().get("lake_upload") or {"waiting_files": 0}
        row = httpx.get(f"{pad.url}/sessions/{sid}")
        ended = row.status_code == 200 and row.json().get("ended_at") is not None  # session end published
        if (
            r.status_code == 200
            and sum(1 for lp in r.json() if lp["kind"] == "full") >= laps
            and ended
            and up["waiting_files"] == 0
        ):
            break
        time.sleep(0.5)
    return sid


def test_replay_then_debrief_over_sse_matches_the_stored_conversation(stack) -> None:
    sid = stack["sid"]
    pad = stack["pad"].url
    events = []
    with (
        httpx.Client(timeout=60) as c,
        connect_sse(
            c,
            "POST",
            f"{pad}/coach/debrief",
            json={"session_id": sid, "driver_id": "ana"},
            headers={"Accept": "text/event-stream"},
        ) as es,
    ):
        assert es.response.headers["x-accel-buffering"] == "no"
        for sse in es.iter_sse():
            events.append((sse.event, sse.id, json.loads(sse.data)))
    kinds = [e[0] for e in events]
    assert kinds[0] == "phase" and kinds[-1] == "done" and "token" in kinds
    assert max(i for i, k in enumerate(kinds) if k == "data") < kinds.index("token")
    assert all(e[1] for e in events)  # every event has an id
    done = events[-1][2]
    assert done["narrator"] == "llm" and done["llm_calls"] == 1
    conv = httpx.get(f"{pad}/conversations/{sid}").json()
    assert any(t["text"] == done["text"] and t["conversation_id"] == done["conversation_id"] for t in conv)
    trace = httpx.get(
        f"{pad}/sessions/{sid}/laps/2/trace", params={"channels": "speed_kmh,brake_bar", "step_m": 20}
    ).json()
    assert len(trace["dist_m"]) > 100 and len(trace["speed_kmh"]) == len(trace["dist_m"])
    assert httpx.get(f"{pad}/sessions/{sid}/notes").status_code == 200
    assert httpx.get(f"{pad}/coach/agents").json()["count"] == 23
    tr = httpx.get(f"{pad}/coach/traces", params={"limit": 5}).json()
    assert tr["available"] and tr["count"] <= 5
    assert len(httpx.get(f"{pad}/api/tools").json()) == 32


def test_the_sql_tool_reads_the_lake_and_nothing_else(stack) -> None:
    """The SQL sandbox over HTTP: the lake's tables answer; another bucket prefix, the hot path's own files
    and the machine's files do not."""
    pad, sid = stack["pad"].url, stack["sid"]

    def sql(q: str) -> dict:
        return httpx.post(f"{pad}/api/tools/query_pitwall_db", json={"sql": q}, timeout=30).json()

    got = sql(f"SELECT count(*) AS n FROM laps WHERE session_id = '{sid}' AND kind = 'full'")
    assert got["rows"][0]["n"] == 5
    outside = [
        "SELECT * FROM read_csv('/etc/passwd')",
        f"SELECT * FROM read_parquet('{stack['data'] / 'hot' / 'pitwall_hot.duckdb'}')",
    ]
    if stack["weed"] is not None:
        w = stack["weed"]
        laps = next((stack["data"] / "lake" / "sessions" / sid).glob("laps.parquet"))
        # the bucket's other prefix holds a real file
        pq.write_table(pq.read_table(laps), f"{w.bucket}/other/laps.parquet", filesystem=w.filesystem())
        outside += [
            f"SELECT * FROM read_parquet('s3://{w.bucket}/other/laps.parquet')",
            f"SELECT * FROM read_parquet('{laps}')",  # the car's local lake: not the paddock's lake
        ]
    for q in outside:
        assert "error" in sql(q), q


def test_full_model_queue_answers_429_with_retry_after(stack) -> None:
    pad = stack["pad"].url
    sid = stack["sid"]

    def call(_: int) -> httpx.Response:
        return httpx.post(f"{pad}/coach/debrief", json={"session_id": sid, "driver_id": f"d{_}"}, timeout=60)

    with ThreadPoolExecutor(4) as ex:
        codes = list(ex.map(call, range(4)))
    statuses = [r.status_code for r in codes]
    assert 429 in statuses and 200 in statuses
    busy = next(r for r in codes if r.status_code == 429)
    assert int(busy.headers["retry-after"]) > 0 and busy.json()["error"]["code"] == "model_busy"


def test_bad_requests_get_clear_errors(stack) -> None:
    pad = stack["pad"].url
    r = httpx.post(f"{pad}/coach/debrief", json={"session_id": "../../etc", "driver_id": "a"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert httpx.get(f"{pad}/sessions/nope").status_code == 404
    r = httpx.get(f"{pad}/sessions/nope/laps/1/trace", params={"channels": "warp"})
    assert r.status_code == 422
    r = httpx.post(f"{pad}/coach/ask", content=b"x" * 2_000_000, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert httpx.get(f"{pad}/coach/traces", params={"limit": 5000}).status_code == 422


def test_client_disconnect_cancels_the_run_and_its_upstream_request(stack) -> None:
    """Hang up after the first narrative token: the paddock cancels the ADK run, LiteLLM drops the upstream
    stream (the scripted server sees it cut short), and the conversation keeps the partial text, incomplete."""
    pad, llm = stack["pad"].url, stack["llm"].url.removesuffix("/v1")
    sid = stack["sid"]
    # a constrained reply (fact picks with notes), streamed slowly: 4 picks x ~45 words x 30 ms, about 6 s
    note = " ".join(["keep it smooth and patient on the throttle"] * 5)
    picks = ", ".join(json.dumps({"fact": f"f{i}", "note": note}) for i in range(1, 5))
    long = f'{{"emotion": "neutral", "answer": [{picks}]}}'
    httpx.post(f"{llm}/_scripted/script", json=[{"text": long, "word_delay_s": 0.03}])
    before = httpx.get(f"{llm}/_scripted/stats").json()
    got = []
    with (
        httpx.Client(timeout=60) as c,
        connect_sse(
            c,
            "POST",
            f"{pad}/coach/debrief",
            json={"session_id": sid, "driver_id": "cleo"},
            headers={"Accept": "text/event-stream"},
        ) as es,
    ):
        for sse in es.iter_sse():
            got.append(sse.event)
            if got.count("token") >= 1:
                break  # the first checked sentence is out; leaving the with-block hangs up mid-stream
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        stats = httpx.get(f"{llm}/_scripted/stats").json()
        if stats["streams_cancelled"] > before["streams_cancelled"]:
            break
        time.sleep(0.2)
    assert stats["streams_cancelled"] == before["streams_cancelled"] + 1
    assert stats["streams_completed"] == before["streams_completed"]
    turns = httpx.get(f"{pad}/conversations/driver/cleo").json()
    answer = [t for t in turns if t["role"] == "assistant"]
    assert len(answer) == 1 and answer[0]["complete"] is False and answer[0]["text"]
    assert answer[0]["text"].count("Keep it smooth") < 4  # cut short: not every pick was read
    assert "cancelled" in answer[0]["meta_json"]


def test_the_model_token_never_reaches_logs_traces_or_records(stack) -> None:
    """With LiteLLM logging at DEBUG, after debriefs and questions, the LocalLLM token appears nowhere the
    paddock writes: its log, /health, agent traces, LLM call records or conversations."""
    pad = stack["pad"]
    sid = stack["sid"]
    httpx.post(f"{pad.url}/coach/debrief", json={"session_id": sid, "driver_id": "dee"}, timeout=60)
    httpx.post(
        f"{pad.url}/coach/ask",
        json={"driver_id": "dee", "question": "why was lap 3 slower than lap 2?"},
        timeout=60,
    )
    assert SECRET not in httpx.get(f"{pad.url}/health").text
    traces = httpx.get(f"{pad.url}/coach/traces", params={"limit": 1000}).text
    assert traces and SECRET not in traces
    assert SECRET not in httpx.get(f"{pad.url}/conversations/driver/dee").text
    assert SECRET not in pad.log.read_text()


def test_health_reports_the_model_and_the_start_up_warm_up(stack) -> None:
    pad = stack["pad"].url
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        h = httpx.get(f"{pad}/health").json()
        if h["warm_up"]["status"] == "ready":
            break
        time.sleep(0.3)
    assert h["warm_up"]["status"] == "ready" and h["warm_up"]["model_reachable"] is True
    assert h["model"]["reachable"] is True and h["model"]["model"] == "openai/gemma3n-e2b"
    stats = httpx.get(stack["llm"].url.removesuffix("/v1") + "/_scripted/stats").json()
    if h["warm_up"]["model_warmed"] is True:
        assert stats["warmups"] >= 2  # the warm tier's ping and LiteLLM's
    else:  # another test's request held the model at start-up: never a warm-up beside a driver's call
        assert str(h["warm_up"]["model_warmed"]).startswith("skipped") and stats["requests"] >= 1


def _best_lap_from_raw() -> float:
    """Our own best lap of the replayed session: the simulator's frames, our own line crossings."""
    wide = simulate(laps=5, seed=3, rate_hz=20).wide
    t = np.asarray(wide["t_s"], float)
    cross = [c for c, _ in gate_crossings(t, np.asarray(wide["lat"], float), np.asarray(wide["lon"], float))]
    return float(min(np.diff(cross)))


def _lake_settings(stack, data_dir):
    """Settings on the stack's lake (S3: the bucket only; ``data_dir`` holds no lake of its own)."""
    env = stack["lake_env"]
    if not env:
        return settings_for(data_dir, lake_url=str(stack["data"] / "lake"))
    return settings_for(
        data_dir, lake_url=env["PITWALL_LAKE_URL"], s3_endpoint=env["PITWALL_S3_ENDPOINT"],
        s3_access_key=env["PITWALL_S3_ACCESS_KEY"], s3_secret_key=env["PITWALL_S3_SECRET_KEY"],
    )  # fmt: skip


def test_report_export_and_gold_lap_read_this_lake(stack, tmp_path) -> None:
    """The report, the export bundle and the gold-lap save read the lake the paddock reads (on S3: the
    bucket; the paddock has no local lake). The best lap in the report is our own from the raw frames;
    the bundle imports into a fresh local lake with the same lap times."""
    pad, sid = stack["pad"].url, stack["sid"]
    ours = _best_lap_from_raw()
    page = httpx.get(f"{pad}/sessions/{sid}/report", timeout=60)
    assert page.status_code == 200, page.text[:300]
    m = re.search(r"best lap (\d+):(\d+\.\d{3})", page.text)
    assert m is not None and abs(int(m[1]) * 60 + float(m[2]) - ours) < 0.05, (m and m[0], ours)
    assert "Traces, lap" in page.text and "<polyline" in page.text  # the best lap's telemetry was read
    got = httpx.get(f"{pad}/sessions/{sid}/export", timeout=60)
    assert got.status_code == 200 and got.content[:2] == b"PK"
    bundle = tmp_path / f"{sid}.pitwall"
    bundle.write_bytes(got.content)
    fresh = settings_for(tmp_path / "fresh")
    fresh.ensure_dirs()
    assert import_bundle(bundle, fresh).session_id == sid
    fresh_laps = pq.read_table(fresh.lake_dir / "sessions" / sid / "laps.parquet").to_pylist()
    served = httpx.get(f"{pad}/sessions/{sid}/laps").json()
    assert sorted((lp["lap"], lp["time_s"]) for lp in fresh_laps) == sorted(
        (lp["lap"], lp["time_s"]) for lp in served
    )
    full = [lp["time_s"] for lp in fresh_laps if lp["kind"] == "full"]
    assert len(full) == 5 and abs(min(full) - ours) < 0.05
    tel = pq.read_table(fresh.lake_dir / "sessions" / sid / "telemetry").num_rows
    assert tel > 0  # every lap's telemetry came along (on S3: split from the compacted object)
    best = min((lp for lp in served if lp["kind"] == "full" and lp["valid"]), key=lambda lp: lp["time_s"])
    gold = save_gold_lap(_lake_settings(stack, tmp_path / "gold-data"), None, "ana", sid, best["lap"])
    assert gold.saved["track_id"] == "sonoma" and abs(gold.saved["time_s"] - ours) < 0.05
    trace = pq.read_table(gold.path)
    assert trace.num_rows > 100 and abs(float(trace.column("time_s")[-1].as_py()) - ours) < 0.5


def test_a_damaged_session_is_listed_damaged_and_the_others_keep_working(stack) -> None:
    """One object of another session is overwritten with garbage (on S3: in the bucket): its report,
    export and corners answer 409 naming the file, /sessions lists it as damaged with the reason, and the
    first session's report still reads."""
    pad, hot, sid = stack["pad"].url, stack["hot"], stack["sid"]
    bad = _replayed_session(hot, stack["pad"], laps=2, seed=8, driver="zed")
    garbage = b"this is not parquet" * 10
    if stack["weed"] is not None:
        w = stack["weed"]
        st = _lake_settings(stack, stack["pad_data"])
        keys = {
            r["session_id"]: r["object_keys"] for r in read_catalog(w.filesystem(), s3_target(st)).to_pylist()
        }
        key = next(k for k in keys[bad] if k.endswith("/corners.parquet"))
        with w.filesystem().open_output_stream(s3_target(st).path(key)) as f:
            f.write(garbage)
    else:
        (stack["data"] / "lake" / "sessions" / bad / "corners.parquet").write_bytes(garbage)
    for what in ("report", "export", "corners"):
        r = httpx.get(f"{pad}/sessions/{bad}/{what}", timeout=60)
        assert r.status_code == 409, (what, r.status_code, r.text[:300])
        assert "corners.parquet" in r.text and "damaged" in r.text, r.text[:300]
    listed = {x["session_id"]: x for x in httpx.get(f"{pad}/sessions").json()}
    assert listed[bad]["status"] == "damaged" and "corners.parquet" in listed[bad]["damage"]["file"]
    assert listed[bad]["damage"]["reason"] and listed[bad]["driver_id"] == "zed"
    assert listed[sid].get("status") != "damaged"
    assert httpx.get(f"{pad}/sessions/{sid}/report", timeout=60).status_code == 200
    assert httpx.get(f"{pad}/sessions/{sid}/corners").status_code == 200
