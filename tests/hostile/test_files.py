"""Hostile logger files through the real ``pitwall import`` process: every case ends in one clear error
naming the file (and, over a limit, the limit and its setting), with no traceback, no raw control bytes
on the terminal, bounded peak RSS and nothing in the store or the lake.

The files are generated here (a small simulated session as the healthy base); limits are lowered through
``PITWALL_IMPORT_*`` so the runaway cases stop quickly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from shared.simulator import simulate, write_aim_csv, write_candump
from tests.support.procs import REPO

RSS_CAP_KB = 700_000  # python + numpy + duckdb + pyarrow is ~250 MB; the 1e9 s jump once reached 7.4 GB

LIMIT_ENV = {
    "PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES": str(8 * 2**20),
    "PITWALL_IMPORT_TIME_BUDGET_S": "4",
}


# ``python -m shared.cli`` that reports its own peak RSS (VmHWM of its address space after exec) on exit;
# the rusage of a forked child would include the size of this test process at fork time
_DRIVER = (
    "import atexit, os, runpy, sys\n"
    "def _hwm():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            open(os.environ['PW_RSS_OUT'], 'w').write(line.split()[1])\n"
    "atexit.register(_hwm)\n"
    "sys.argv = ['pitwall', *sys.argv[1:]]\n"
    "runpy.run_module('shared.cli', run_name='__main__')\n"
)


def run_import(path: Path, data: Path, env: dict[str, str] | None = None) -> tuple[int, str, int]:
    """(exit code, stdout+stderr, peak RSS in kB) of ``pitwall import PATH`` in its own process."""
    rss_out = data.parent / f"rss-{path.name}.txt"
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, "import", str(path), "--data-dir", str(data)],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "400", **LIMIT_ENV, **(env or {}), "PW_RSS_OUT": str(rss_out)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=180,
    )
    rss = int(rss_out.read_text()) if rss_out.exists() else 0
    return proc.returncode, proc.stdout.decode("utf-8", errors="replace"), rss


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("base")
    sim = simulate(laps=3, seed=5, rate_hz=20)
    csv, can = d / "sim.csv", d / "sim.log"
    write_aim_csv(sim, csv)
    write_candump(sim, can, "bmw_e46_m3_aim_mxp")
    return {"csv": csv, "can": can}


def _csv_lines(base: dict[str, Path]) -> list[str]:
    return base["csv"].read_text().splitlines()


def _data_start(lines: list[str]) -> int:
    for i, line in enumerate(lines):
        cell = line.split(",")[0].strip('"')
        try:
            float(cell)
            return i
        except ValueError:
            continue
    raise AssertionError("no data rows")


def csv_time_jump(base: dict[str, Path], out: Path) -> Path:
    lines = _csv_lines(base)
    i = _data_start(lines) + 50
    for k in range(i, len(lines)):
        cells = lines[k].split(",")
        t = float(cells[0].strip('"')) + 1e9
        cells[0] = f'"{t:.3f}"' if cells[0].startswith('"') else f"{t:.3f}"
        lines[k] = ",".join(cells)
    out.write_text("\n".join(lines) + "\n")
    return out


def candump_time_jump(base: dict[str, Path], out: Path) -> Path:
    lines = base["can"].read_text().splitlines()
    half = len(lines) // 2
    shifted = []
    for line in lines[half:]:
        ts, rest = line.split(")", 1)
        shifted.append(f"({float(ts[1:]) + 1e9:.6f}){rest}")
    out.write_text("\n".join(lines[:half] + shifted) + "\n")
    return out


def csv_cut(base: dict[str, Path], out: Path) -> Path:
    lines = _csv_lines(base)
    cut = _data_start(lines) + 123
    lines[cut] = lines[cut][: len(lines[cut]) // 3]
    out.write_text("\n".join(lines[: cut + 1]) + "\n")
    return out


def csv_text_in_row(base: dict[str, Path], out: Path) -> Path:
    lines = _csv_lines(base)
    k = _data_start(lines) + 77
    cells = lines[k].split(",")
    cells[2] = '"\x00\x1b[31mboom"'
    lines[k] = ",".join(cells)
    out.write_text("\n".join(lines) + "\n")
    return out


def xrz_bomb(_: dict[str, Path], out: Path) -> Path:
    out.write_bytes(zlib.compress(b"<hCNF" + b"\0" * (64 * 2**20), 9))  # ~64 KB expanding to 64 MB
    return out


def xrz_slow_junk(_: dict[str, Path], out: Path) -> Path:
    out.write_bytes(
        zlib.compress(b"<hCNF" + b"\0" * (8 * 2**20 - 64), 9)
    )  # within the size cap, slow to parse
    return out


def xrz_of_zeros(_: dict[str, Path], out: Path) -> Path:
    """A valid zlib stream whose content is no XRK: refused at its header, not after minutes of libxrk."""
    out.write_bytes(zlib.compress(b"\0" * (8 * 2**20 - 64), 9))
    return out


def xrz_truncated(_: dict[str, Path], out: Path) -> Path:
    out.write_bytes(zlib.compress(b"<hCNF" + os.urandom(4096))[:1500])
    return out


def binary_junk(_: dict[str, Path], out: Path) -> Path:
    out.write_bytes(b"\x00\x1b[2J" + os.urandom(5000))
    return out


def empty(_: dict[str, Path], out: Path) -> Path:
    out.write_bytes(b"")
    return out


def directory(_: dict[str, Path], out: Path) -> Path:
    out.mkdir()
    return out


def fifo(_: dict[str, Path], out: Path) -> Path:
    os.mkfifo(out)
    return out


def symlink_loop(_: dict[str, Path], out: Path) -> Path:
    other = out.with_name(out.name + "_b")
    os.symlink(other, out)
    os.symlink(out, other)
    return out


def dev_zero(_: dict[str, Path], out: Path) -> Path:
    os.symlink("/dev/zero", out)
    return out


# case -> (builder, words the one error line must contain)
CASES: dict[str, tuple[Callable[[dict[str, Path], Path], Path], tuple[str, ...]]] = {
    "csv_time_jump": (csv_time_jump, ("PITWALL_IMPORT_MAX_SPAN_S", "spans")),
    "candump_time_jump": (candump_time_jump, ("PITWALL_IMPORT_MAX_SPAN_S",)),
    "csv_cut": (csv_cut, ("line",)),
    "csv_text_in_row": (csv_text_in_row, ("line",)),
    "xrz_bomb": (xrz_bomb, ("PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES",)),
    "xrz_slow_junk": (xrz_slow_junk, ("PITWALL_IMPORT_TIME_BUDGET_S",)),
    "xrz_truncated": (xrz_truncated, ("truncated",)),
    "xrz_of_zeros": (xrz_of_zeros, ("XRK header", "inflated")),
    "binary_junk": (binary_junk, ("unrecognised",)),
    "empty": (empty, ("empty",)),
    "directory": (directory, ("a directory",)),
    "fifo": (fifo, ("FIFO",)),
    "symlink_loop": (symlink_loop, ("symlink loop",)),
    "dev_zero": (dev_zero, ("device",)),
}


# libxrk needs ~1-2 us per junk byte: ~8-16 s for this case, so a 1 s budget always runs out first
CASE_ENV = {"xrz_slow_junk": {"PITWALL_IMPORT_TIME_BUDGET_S": "1"}}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_file_is_one_clear_error_and_nothing_stored(
    case: str, base: dict[str, Path], tmp_path: Path
) -> None:
    build, words = CASES[case]
    path = build(base, tmp_path / f"{case}.dat")
    data = tmp_path / "data"
    code, out, rss_kb = run_import(path, data, CASE_ENV.get(case))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert "\x00" not in out and "\x1b[31m" not in out and "\x1b[2J" not in out, repr(out)
    line = " ".join(out.split())
    assert "error" in line and path.name in line, out
    for w in words:
        assert w in line, (w, out)
    assert 0 < rss_kb < RSS_CAP_KB, (case, rss_kb)
    assert not list((data / "lake").glob("sessions/*")), "nothing may reach the lake"
    sessions = subprocess.run(
        [sys.executable, "-m", "shared.cli", "sessions", "--json", "--data-dir", str(data)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sessions.returncode == 0 and sessions.stdout.strip() == "[]", sessions.stdout + sessions.stderr


def test_csv_cut_names_the_exact_line(base: dict[str, Path], tmp_path: Path) -> None:
    path = csv_cut(base, tmp_path / "cut.csv")
    lines = path.read_text().splitlines()
    code, out, _ = run_import(path, tmp_path / "data")
    assert code == 1
    assert f"line {len(lines)}" in " ".join(out.split()), out
