"""The paddock's DuckDB: in memory and sandboxed. File access only inside the lake, no network, no
temporary directory (DuckDB lets a connection read its temp directory, ``.tmp/`` in the working directory
by default, even with external access off), a memory limit (``PITWALL_DUCKDB_MEMORY_LIMIT_MB``), settings
locked."""

from __future__ import annotations

from pathlib import Path

import duckdb


def sandboxed_connection(lake_dir: Path | None, memory_limit_mb: int) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that may read files under ``lake_dir`` and nothing else, within a memory limit
    (``None``: no file at all; an S3 lake is read through the Arrow datasets registered on each cursor)."""
    con = duckdb.connect(config={"threads": "2"})
    lake = str(lake_dir.resolve()).rstrip("/") + "/" if lake_dir is not None else ""
    if "'" in lake:
        raise ValueError(f"the lake path {lake!r} contains a quote; choose another PITWALL_DATA_DIR")
    con.execute("SET temp_directory=''")  # no spilling, and no readable temp directory
    con.execute(f"SET memory_limit='{int(memory_limit_mb)}MB'")
    con.execute("SET enable_progress_bar=false")  # a long query must not draw on the service's terminal
    con.execute(f"SET allowed_directories=['{lake}']" if lake else "SET allowed_directories=[]")
    con.execute("SET enable_external_access=false")
    con.execute("SET lock_configuration=true")
    return con
