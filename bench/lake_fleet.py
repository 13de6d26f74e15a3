"""A synthetic fleet against SeaweedFS: the paddock's reads while many cars publish, old code vs new.

    mkdir /tmp/ls-base && git archive <base commit> | tar -x -C /tmp/ls-base   (the code to compare with)
    python bench/lake_fleet.py --base /tmp/ls-base --sessions 1000 10000 --writers 40 500

For each (sessions, writers) and each code tree: its own bucket prefix holding a Delta catalog
(``_delta/sessions``) of that many sessions, appended in commits of 1,000 rows and then compacted and
checkpointed as the writers' own maintenance leaves it (one real simulated session's objects copied behind one
driver's 25 sessions and the newest 1,000, every listed session; the others' keys named only; ``--damaged``:
rows without the newest sessions' objects, which the paddock then finds damaged), then a real paddock
process (``pitwall paddock`` run from that tree):

* start-up: until ``/health`` answers and ``/sessions`` lists the catalog, then again from its snapshot;
* while the writers publish: each car appends one catalog row (one Delta commit, ``LakeTables.append``, so
  every 50th commit compacts and checkpoints the table as a real writer does) once per lap, its session's
  objects written first (the newest session, listed first), a lap every
  ``--lap-s`` seconds, so 500 cars commit 4.6 times a second. The cars are simulated by ``--publishers``
  processes sharing that rate (a commit takes tens of ms; conflicting commits retry, as between cars).
  Measured: ``/health`` back to back, p50 / p99 / max, ``/sessions`` (the newest 100) once a second, and the
  commits the publishers achieved;
* the follower's longest GIL hold while the fleet publishes again (:mod:`bench.lake_follow_gil`);
* the SQL tool on one session (``POST /api/tools/query_pitwall_db``), and the paddock's peak RSS.

Figures vary about 2x between runs on the shared 2-core machine; the ratios are from one run, side by side.
``--profile DIR`` samples each measured paddock with py-spy (``PY_SPY``: its path), every thread and the
thread holding the GIL, as raw collapsed stacks: what a request's time is spent on, whatever the load.
``--probe DIR`` runs each measured paddock under :mod:`bench.paddock_probe` (its timings kept in DIR) and
splits the slowest ``/health`` requests: the wait until the paddock read the request, the loop's queue, the
handler (its CPU, its wait for a core, the rest: the GIL) and the way back, with the loop's slow callbacks.
``--nice N`` gives the paddocks ``PITWALL_PADDOCK_NICE`` (their event loop's priority; ignored by a tree
without the setting). ``--new-only`` measures this tree alone. The client's own CPU and wait for a core per
``/health`` (``/proc/thread-self/schedstat``) are always recorded; ``--pin`` runs the measured paddock on CPU 0
(``taskset``) and the measuring client's thread on CPU 1 while it measures (the publishers, SeaweedFS and
anyone else's processes stay free), to split a slow request into the client's share and the paddock's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from bench.lake_fleet_build import DRIVER, build_fleet, publish, template  # noqa: E402
from bench.lake_follow_gil import follower_gil  # noqa: E402
from tests.support.procs import free_port  # noqa: E402
from tests.support.seaweed import SeaweedS3  # noqa: E402

LAKE_START = """
import inspect, json, resource, sys, time
from services.paddock.lake import Lake
from shared.settings import settings_for
kw = {"follow": True} if "follow" in inspect.signature(Lake).parameters else {}
t0 = time.perf_counter()
lake = Lake(settings_for(sys.argv[1]), **kw)
q = "SELECT count(*) FROM sessions"
n = lake.cursor(None, q).execute(q).fetchone()[0]
took = time.perf_counter() - t0
print(json.dumps({"s": took, "n": n, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
getattr(lake, "close", lambda: None)()
"""


def lake_start(tree: Path, data: Path, env: dict[str, str]) -> dict[str, Any]:
    e = {**os.environ, **env, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", LAKE_START, str(data)], cwd=tree, env=e, capture_output=True,
                         text=True, timeout=900, check=True)  # fmt: skip
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _rss_peak_mb(pid: int) -> float:
    try:
        return _status_kb(pid, "VmHWM") / 1024
    except KeyError:
        return float("nan")


SQL_CALLS = {  # the SQL tool's calls measured at the end: one session's data, one driver's, the whole catalog
    "sql_session": "SELECT count(*) AS n, min(time_s) AS best FROM laps WHERE session_id = 's000007'",
    "sql_driver": "SELECT s.session_id, l.best, t.samples FROM sessions s "
    "JOIN (SELECT session_id, min(time_s) AS best FROM laps GROUP BY 1) l USING (session_id) "
    "JOIN (SELECT session_id, count(*) AS samples FROM telemetry GROUP BY 1) t USING (session_id) "
    f"WHERE s.driver_id = '{DRIVER}'",
    "sql_catalog": "SELECT driver_id, count(*) AS n FROM sessions GROUP BY 1 ORDER BY n DESC",
    "sql_driver_sessions": f"SELECT count(*) AS n, count(DISTINCT session_id) AS distinct_ids FROM sessions WHERE driver_id = '{DRIVER}'",
}


def _status_kb(pid: int, key: str) -> int:
    for ln in Path(f"/proc/{pid}/status").read_text().splitlines():
        if ln.startswith(key + ":"):
            return int(ln.split()[1])
    raise KeyError(key)


def _sql_call(url: str, pid: int, sql: str) -> dict[str, float]:
    """One SQL tool call: its time, its rows, and the paddock's memory it took: the peak RSS is reset
    (``clear_refs`` 5) just before, so the peak after, less the RSS before, is this call's growth."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    before = _status_kb(pid, "VmRSS")
    t0 = time.perf_counter()
    got = httpx.post(f"{url}/api/tools/query_pitwall_db", json={"sql": sql}, timeout=600).json()
    took = time.perf_counter() - t0
    rows = got.get("rows") or []
    grown = round((_status_kb(pid, "VmHWM") - before) / 1024, 1)
    return {
        "s": round(took, 3),
        "rows": len(rows),
        "peak_growth_mb": grown,
        "error": str(got.get("error") or "")[:200],
        "first": rows[0] if rows else None,
    }


def run_paddock(
    tree: Path, data: Path, env: dict[str, str], n: int, log: Path, probe: Path | None = None, cpus: str = ""
) -> tuple[subprocess.Popen[bytes], str, float]:
    """``probe``: run it under :mod:`bench.paddock_probe`, its timings written there when it ends; ``cpus``:
    the CPUs it may run on (``taskset -c``), every thread of it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    e = {**os.environ, **env, "PYTHONPATH": str(tree), "PITWALL_DATA_DIR": str(data),
         "PITWALL_ADK_OPENAI_URL": f"http://127.0.0.1:{free_port()}/v1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
    t0 = time.perf_counter()
    cli = ["-m", "shared.cli"] if probe is None else [str(REPO / "bench" / "paddock_probe.py"), str(probe)]
    pin = ["taskset", "-c", cpus] if cpus else []
    proc = subprocess.Popen([*pin, sys.executable, *cli, "paddock", "--port", str(port), "--data-dir", str(data)],
                            cwd=tree, env=e, stdout=log.open("w"), stderr=subprocess.STDOUT)  # fmt: skip
    while True:
        if proc.poll() is not None:
            raise RuntimeError(log.read_text()[-2000:])
        try:
            if len(httpx.get(f"{url}/sessions?limit=1000", timeout=120).json()) >= min(n, 1000):
                break
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.1)
    return proc, url, time.perf_counter() - t0


def _thread_sched() -> tuple[float, float]:
    """The calling thread's CPU time and its time waiting for a core so far, in seconds."""
    cpu, wait, _ = Path("/proc/thread-self/schedstat").read_text().split()
    return int(cpu) / 1e9, int(wait) / 1e9


def _spy(out: Path, pid: int, name: str, seconds: float) -> list[subprocess.Popen[bytes]]:
    """py-spy sampling the paddock while it is measured (``--profile``): every thread, idle ones too
    (``name-threads.txt``), and only the thread holding the GIL (``name-gil.txt``); raw collapsed stacks."""
    out.mkdir(parents=True, exist_ok=True)
    spy = [os.environ.get("PY_SPY", "py-spy"), "record", "--pid", str(pid), "--duration", str(int(seconds)),
           "--rate", "200", "--nonblocking", "--format", "raw"]  # fmt: skip
    return [subprocess.Popen([*spy, *extra, "-o", str(out / f"{name}-{kind}.txt")], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for kind, extra in (("threads", ["--threads", "--idle"]),
                                                                             ("gil", ["--gil"]))]  # fmt: skip


def _publishers(prefix: str, n: int, writers: int, a: Any, files: bool, env: dict[str, str]) -> list[Any]:
    """The fleet's publisher processes, for ``a.seconds`` + 5 s."""
    rate = writers / a.lap_s / a.publishers
    return [subprocess.Popen([sys.executable, __file__, "--publish", prefix, "--sessions", str(n + k * 1_000_000),
                              "--rate", str(rate), "--seconds", str(a.seconds + 5), *([] if files else ["--missing"])],
                             env={**os.environ, **env}, stdout=subprocess.PIPE, text=True)
            for k in range(a.publishers)]  # fmt: skip


def _commits_per_s(pubs: list[Any]) -> float:
    made = [json.loads(p.communicate(timeout=120)[0].strip().splitlines()[-1]) for p in pubs]
    return float(sum(m["commits"] / m["seconds"] for m in made))


def measure(
    tree: Path,
    label: str,
    env: dict[str, str],
    d: Path,
    prefix: str,
    n: int,
    writers: int,
    a: Any,
    files: bool = True,
) -> dict[str, Any]:
    data = d / f"pad-{label}-{prefix}"
    lenv = {**env, "PITWALL_LAKE_URL": f"s3://{env['PITWALL_LAKE_URL'].split('/')[2]}/{prefix}"}
    if a.nice:  # the paddock's event loop priority (a tree without the setting ignores it)
        lenv["PITWALL_PADDOCK_NICE"] = str(a.nice)
    out: dict[str, Any] = {}
    cold = lake_start(tree, d / f"lake-{label}-{prefix}", lenv)
    warm = lake_start(tree, d / f"lake-{label}-{prefix}", lenv)  # the new code: from its snapshot
    out |= {"lake_start_s": cold["s"], "lake_restart_s": warm["s"], "lake_start_rss_mb": cold["rss_mb"]}
    proc, url, out["start_s"] = run_paddock(tree, data, lenv, n, d / f"{label}-{prefix}-1.log")
    proc.terminate()
    proc.wait(30)
    probe = a.probe / f"{label}-{prefix}.json" if a.probe else None
    if probe is not None:
        probe.parent.mkdir(parents=True, exist_ok=True)
    log2 = d / f"{label}-{prefix}-2.log"
    proc, url, out["restart_s"] = run_paddock(tree, data, lenv, n, log2, probe, "0" if a.pin else "")
    # each /health by the client: perf_counter at send and receive, the client thread's CPU and core wait
    sent: list[tuple[float, ...]] = []
    try:
        deadline = time.monotonic() + 600  # ADK and LiteLLM load in the background: measure after
        while httpx.get(f"{url}/health", timeout=120).json()["warm_up"].get("status") != "ready":
            assert time.monotonic() < deadline, "the paddock never finished warming up"
            time.sleep(0.5)
        pubs = _publishers(prefix, n, writers, a, files, lenv)
        time.sleep(2)
        spies = _spy(a.profile, proc.pid, f"{label}-{prefix}", a.seconds) if a.profile else []
        health: list[float] = []
        lists: list[float] = []
        end, last_list = time.monotonic() + a.seconds, 0.0
        every_cpu = os.sched_getaffinity(0)
        if a.pin:  # this thread (the client) on CPU 1 while it measures; the publishers started unpinned
            os.sched_setaffinity(0, {1})
        with httpx.Client(timeout=120) as client:  # one kept-alive connection, as the tablet's browser
            while time.monotonic() < end:
                cpu0, wait0 = _thread_sched()
                t0 = time.perf_counter()
                assert client.get(f"{url}/health").status_code == 200
                t1 = time.perf_counter()
                cpu1, wait1 = _thread_sched()
                health.append(t1 - t0)
                sent.append((t0, t1, cpu1 - cpu0, wait1 - wait0))
                if time.monotonic() - last_list > 1.0:
                    last_list = time.monotonic()
                    t0 = time.perf_counter()
                    assert client.get(f"{url}/sessions").status_code == 200
                    lists.append(time.perf_counter() - t0)
                time.sleep(0.05)
        os.sched_setaffinity(0, every_cpu)
        by_total = sorted(sent, key=lambda r: r[1] - r[0])
        worst = by_total[-max(3, len(by_total) // 100) :]
        out |= {"client_cpu_median_ms": round(1000 * statistics.median(r[2] for r in sent), 2),
                "client_core_wait_median_ms": round(1000 * statistics.median(r[3] for r in sent), 2),
                "worst_client_cpu_ms": round(1000 * statistics.median(r[2] for r in worst), 2),
                "worst_client_core_wait_ms": round(1000 * statistics.median(r[3] for r in worst), 2),
                "load_avg": os.getloadavg()[0]}  # fmt: skip
        out["commits_per_s"] = _commits_per_s(pubs)
        for spy in spies:
            spy.wait(120)
        pubs = _publishers(prefix, n, writers, a, files, lenv)  # again, for the follower's GIL probe
        out |= follower_gil(tree, d / f"probe-{label}-{prefix}", lenv, a.seconds)
        _commits_per_s(pubs)
        out["rss_peak_mb"] = _rss_peak_mb(proc.pid)
        for name, sql in SQL_CALLS.items():
            out |= {f"{name}_{k}": v for k, v in _sql_call(url, proc.pid, sql).items()}
        out["sql_s"], out["sql_ok"] = out["sql_session_s"], out["sql_session_rows"] > 0
        hs = sorted(health)
        out |= {"health_n": len(hs), "health_p50_ms": 1000 * statistics.median(hs),
                "health_p99_ms": 1000 * hs[min(len(hs) - 1, int(0.99 * len(hs)))], "health_max_ms": 1000 * hs[-1],
                "sessions_median_ms": 1000 * statistics.median(lists), "sessions_max_ms": 1000 * max(lists)}  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(30)
    if probe is not None:
        out |= split(json.loads(probe.read_text()), sent)
    return out


def split(seen: dict[str, Any], sent: list[tuple[float, ...]]) -> dict[str, Any]:
    """Where the slowest 1 % (at least 3) of ``/health`` requests spent their time, by the client's clock (``sent``)
    and the paddock's own (:mod:`bench.paddock_probe`): to the paddock's read of the request (the kernel,
    the paddock's loop getting a core and the GIL, callbacks ahead of the read), then until the app
    runs (the loop's queue), the handler (its CPU, its wait for a core, the rest: the GIL), and back; and
    the loop's slow callbacks (> 5 ms) overlapping those requests."""
    got = [r for r in seen["requests"] if r["path"] == "/health" and "end" in r]
    pairs = []
    for t0, t1, *_ in sent:  # the paddock's record of a request: the one called between its send and receive
        rec = next((r for r in got if t0 <= r["app"] <= t1), None)
        if rec is not None:
            pairs.append((t1 - t0, t0, t1, rec))
    pairs.sort(key=lambda p: p[0])
    worst = pairs[-max(3, len(pairs) // 100) :]

    def med(f: Any) -> float:
        return round(1000 * statistics.median(f(*p[1:]) for p in worst), 1)

    over = [
        c
        for c in seen["slow_callbacks"]
        if any(c["t"] < t1 and c["t"] + c["s"] > t0 for _, t0, t1, _ in worst)
    ]
    kinds: dict[str, list[float]] = {}
    for c in seen["slow_callbacks"]:
        kinds.setdefault(c["what"].split(" at ")[0][:120], []).append(c["s"])
    return {
        "probe_matched": len(pairs), "probe_worst_n": len(worst),
        "worst_total_ms": med(lambda t0, t1, r: t1 - t0),
        "worst_to_read_ms": med(lambda t0, t1, r: max(0.0, r["data"] - t0)),
        "worst_queue_ms": med(lambda t0, t1, r: r["app"] - max(t0, r["data"])),
        "worst_handler_ms": med(lambda t0, t1, r: r["end"] - r["app"]),
        "worst_handler_cpu_ms": med(lambda t0, t1, r: r["cpu_s"]),
        "worst_handler_core_wait_ms": med(lambda t0, t1, r: r["core_wait_s"]),
        "worst_back_ms": med(lambda t0, t1, r: t1 - r["end"]),
        "all_handler_cpu_median_ms": round(1000 * statistics.median(r["cpu_s"] for *_, r in pairs), 2),
        "all_handler_p99_ms": round(1000 * sorted(r["end"] - r["app"] for *_, r in pairs)[int(0.99 * len(pairs))], 1),
        "slow_callbacks": len(seen["slow_callbacks"]), "slow_callbacks_in_worst": len(over),
        "slow_callback_kinds": sorted(((k, len(v), round(1000 * max(v), 1)) for k, v in kinds.items()),
                                      key=lambda k: -k[1])[:8],
        "slow_in_worst": [(round(1000 * c["s"], 1), c["what"][:160]) for c in over][:10],
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=Path, default=Path("/tmp/ls-base"), help="the old code's worktree")
    ap.add_argument("--sessions", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--writers", type=int, nargs="+", default=[40, 500])
    ap.add_argument("--lap-s", type=float, default=108.0, help="seconds between one car's publishes")
    ap.add_argument("--seconds", type=float, default=20.0, help="how long the fleet publishes per run")
    ap.add_argument("--publishers", type=int, default=4, help="processes committing the fleet's rows")
    ap.add_argument("--publish", help=argparse.SUPPRESS)
    ap.add_argument("--rate", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--missing", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument(
        "--damaged",
        action="store_true",
        help="also rows whose sessions' objects are missing (the paddock finds them damaged)",
    )
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    ap.add_argument("--profile", type=Path, help="py-spy the paddocks while measured, stacks to this dir")
    ap.add_argument("--probe", type=Path, help="time requests inside the paddock (paddock_probe), JSON here")
    ap.add_argument("--nice", type=int, default=0, help="PITWALL_PADDOCK_NICE for the paddocks (e.g. -10)")
    ap.add_argument("--pin", action="store_true", help="the measured paddock on CPU 0, the client on CPU 1")
    ap.add_argument("--new-only", action="store_true", help="measure this tree only (no --base)")
    ap.add_argument("--lake-start-only", action="store_true", help="only the lake's start-up, both trees")
    a = ap.parse_args()
    if a.publish:
        env = dict(os.environ)
        return publish(env, a.publish, a.sessions[0], a.rate, a.seconds, not a.missing)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        w = SeaweedS3(d / "weed", volumes=300).start()  # each code's table holds 1,000 sessions' objects
        try:
            env = w.env()
            tpl = template(d, env)
            if not a.lake_start_only:
                empty = {**env, "PITWALL_LAKE_URL": env["PITWALL_LAKE_URL"] + "-empty"}
                proc, _, fixed = run_paddock(REPO, d / "pad-empty", empty, 0, d / "empty.log")
                proc.terminate()
                proc.wait(30)
                print(f"start-up with an empty lake (process, imports): {fixed:.1f} s", flush=True)
            for n in a.sessions:
                for writers in a.writers:
                    trees = (("old", a.base), ("new", REPO))[1 if a.new_only else 0 :]
                    cases = [(lb, tr, True) for lb, tr in trees]
                    cases += [(f"{lb}-damaged", tr, False) for lb, tr in trees] if a.damaged else []
                    for label, tree, files in cases:
                        prefix = f"fleet-{n}-{writers}-{label}"  # each tree its own table, as built
                        t0 = time.perf_counter()
                        build_fleet(env, d, prefix, n, writers, tpl, files)
                        print(f"{prefix}: built in {time.perf_counter() - t0:.0f} s", flush=True)
                        if a.lake_start_only:
                            lenv = {**env, "PITWALL_LAKE_URL": f"s3://{w.bucket}/{prefix}"}
                            cold = lake_start(tree, d / f"lake-{label}-{prefix}", lenv)
                            warm = lake_start(tree, d / f"lake-{label}-{prefix}", lenv)
                            print(json.dumps({"sessions": n, "writers": writers, "code": label, "cold": cold,
                                              "from_snapshot": warm}), flush=True)  # fmt: skip
                            continue
                        r = measure(tree, label, env, d, prefix, n, writers, a, files)
                        results.append({"sessions": n, "writers": writers, "code": label, **r})
                        print(json.dumps(results[-1]), flush=True)
        finally:
            w.stop()
    if a.out:
        a.out.write_text(json.dumps(results, indent=1))
    if a.lake_start_only or a.new_only:
        return None
    keys = ["lake_start_s", "lake_restart_s", "start_s", "restart_s", "health_p50_ms", "health_p99_ms", "health_max_ms", "sessions_median_ms",
            "sessions_max_ms", "gil_wait_max_ms", "gil_wait_p99_ms", "follower_cpu_s", "sql_s", "rss_peak_mb"]  # fmt: skip
    print("| sessions | writers | files | " + " | ".join(f"{k} old / new (ratio)" for k in keys) + " |")
    for i in range(0, len(results), 2):
        old, new = results[i], results[i + 1]
        cells = [f"{old[k]:.3g} / {new[k]:.3g} ({old[k] / new[k]:.1f}x)" if new[k] else "-" for k in keys]
        files = "missing" if old["code"].endswith("damaged") else "all listed"
        print(f"| {old['sessions']:,} | {old['writers']} | {files} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
