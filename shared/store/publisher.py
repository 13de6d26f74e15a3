"""Publishing the hot store to the immutable Parquet lake, and the views readers build over it."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from shared.analysis.model import to_table as analysis_table
from shared.analysis.stored import analyse_stored
from shared.faults import crash_point
from shared.ids import is_id
from shared.paths import inside
from shared.signals import WIDE_COLUMNS, registry_schema, signals_schema, telemetry_schema
from shared.store.hot import insert_arrow, mark_best_lap
from shared.store.lake_catalog import forget_local
from shared.store.lake_check import session_problem
from shared.store.lake_layout import glob_for, lap_path, session_dir, table_path, write_parquet_atomic
from shared.store.lake_read import LocalSession
from shared.store.lake_tables import LakeTables, publish
from shared.store.schema import ALL_DDL, LAKE_TABLES

if TYPE_CHECKING:
    from shared.store.lake_mirror import LakeMirror

log = logging.getLogger(__name__)


class LakePublisher:
    """Copies a session's rows from the hot DuckDB file into Parquet files (tmp name + os.replace)."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, lake_dir: Path, mirror: LakeMirror | None = None
    ) -> None:
        self.con = con
        self.lake_dir = lake_dir
        self.mirror = mirror  # the S3 copy (PITWALL_LAKE_URL=s3://...): files spooled for upload

    def _arrow(self, sql: str, params: list[object]) -> pa.Table:
        return self.con.sql(sql, params=params).to_arrow_table()

    def publish_lap(self, session_id: str, lap: int, small: bool = True) -> Path:
        """A live session's closed lap: its telemetry file, then (``small``) the session's small tables.
        ``small=False`` when a later lap's publication is already queued: that one writes them."""
        tbl = self._arrow(
            "SELECT * FROM telemetry WHERE session_id = ? AND lap = ? ORDER BY t_s", [session_id, lap]
        )
        path = write_parquet_atomic(tbl.cast(telemetry_schema()), lap_path(self.lake_dir, session_id, lap))
        if small:
            self.publish_small(session_id)
        if self.mirror is not None:
            self.mirror.lap_published(self.con, session_id, lap)
        return path

    def publish_small(self, session_id: str, lake_dir: Path | None = None) -> None:
        """The per-session tables that change as laps close (everything but telemetry and signals)."""
        mark_best_lap(self.con, session_id)
        for table, stem in LAKE_TABLES.items():
            if table in ("telemetry_signals", "signal_registry"):
                continue
            tbl = self._arrow(f"SELECT * FROM {table} WHERE session_id = ?", [session_id])
            write_parquet_atomic(tbl, table_path(lake_dir or self.lake_dir, session_id, stem))

    def begin(self, session_id: str) -> None:
        """Mark ``session_id`` as being published (before closing it in the store): a crash before the
        publication (and its S3 spooling) is done leaves the mark, and :meth:`repair` publishes it again."""
        mark = inside(self.lake_dir / PUBLISHING, session_id)
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()

    def publish_session(self, session_id: str, truth_json: str | None = None) -> Path:
        """Publish a whole session atomically: every file is written into a staging directory beside
        ``sessions/`` and the directory is renamed into place, so readers (and a ``kill -9``) see the
        session whole or not at all. A previous copy (the laps a live session published) is replaced.
        The mark of :meth:`begin` is removed only once the S3 mirror has spooled the session too."""
        target = session_dir(self.lake_dir, session_id)  # refuses an id that is not one, first
        self.begin(session_id)
        staging_root = self.lake_dir / STAGING
        staging = inside(staging_root, f"{session_id}.{os.getpid()}.{secrets.token_hex(3)}")
        staging.mkdir(parents=True, exist_ok=True)
        self.store_analysis(session_id)
        try:
            self._publish_into(session_id, staging, truth_json)  # staging/sessions/<id>/...
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():  # a live session's lap files: the new copy has them all
                os.replace(target, staging / "old")
            os.replace(session_dir(staging, session_id), target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            with contextlib.suppress(OSError):
                staging_root.rmdir()  # only when no other publish is under way
        self.publish_tables(session_id)
        crash_point("lake_published")
        if self.mirror is not None:
            self.mirror.session_published(self.con, session_id)
        inside(self.lake_dir / PUBLISHING, session_id).unlink(missing_ok=True)
        return session_dir(self.lake_dir, session_id)

    def publish_tables(self, session_id: str) -> None:
        """The finished session's publication in the local lake's Delta tables (the catalog row, laps,
        corners, events: :mod:`shared.store.lake_tables`), from the files just put in place."""
        row = self._arrow("SELECT * FROM sessions WHERE session_id = ?", [session_id])
        now = pa.array([datetime.now(UTC)] * row.num_rows, pa.timestamp("us", tz="UTC"))
        files = LocalSession(self.lake_dir, session_id)
        publish(
            LakeTables.local(self.lake_dir),
            row.append_column("published_at", now),
            lambda _r, stem: files.table(stem),
        )

    def store_analysis(self, session_id: str) -> None:
        """The session's corner analysis (``shared.analysis``), computed once here: an import and a live
        session's close both publish through ``publish_session``. A failure leaves the session without
        it (the paddock then computes it with the same function) and is logged, never fatal."""
        self.con.execute("DELETE FROM corner_analysis WHERE session_id = ?", [session_id])
        try:
            an = analyse_stored(self.con, session_id, self.lake_dir.parent)
        except Exception:  # the lake must be published whatever the analysis finds
            log.exception("session %s: the corner analysis failed; the paddock will compute it", session_id)
            return
        if an.rows:
            insert_arrow(self.con, "corner_analysis", analysis_table(session_id, an.rows))

    def _publish_into(self, session_id: str, lake_dir: Path, truth_json: str | None) -> None:
        laps = [
            r[0]
            for r in self.con.execute(
                "SELECT DISTINCT lap FROM telemetry WHERE session_id = ? ORDER BY lap", [session_id]
            ).fetchall()
        ]
        for lap in laps:
            tbl = self._arrow(
                "SELECT * FROM telemetry WHERE session_id = ? AND lap = ? ORDER BY t_s", [session_id, lap]
            )
            write_parquet_atomic(tbl.cast(telemetry_schema()), lap_path(lake_dir, session_id, lap))
        sig = self._arrow("SELECT * FROM telemetry_signals WHERE session_id = ?", [session_id])
        write_parquet_atomic(sig.cast(signals_schema()), table_path(lake_dir, session_id, "signals"))
        reg = self._arrow("SELECT * FROM signal_registry WHERE session_id = ?", [session_id])
        write_parquet_atomic(reg.cast(registry_schema()), table_path(lake_dir, session_id, "registry"))
        if truth_json is not None:
            (session_dir(lake_dir, session_id) / "truth.json").write_text(truth_json, encoding="utf-8")
        self.publish_small(
            session_id, lake_dir
        )  # session.parquet last: readers treat it as "session complete"

    def remove_session(self, session_id: str) -> None:
        shutil.rmtree(session_dir(self.lake_dir, session_id), ignore_errors=True)
        forget_local(self.lake_dir, session_id)
        if self.mirror is not None:
            self.mirror.forget(session_id)

    def repair(self) -> list[str]:
        """After a crash or damage: drop staging leftovers and republish every finished session the store
        has but the lake lacks, has without its ``session.parquet``, has with a damaged or missing file
        (:func:`shared.store.lake_check.session_problem`), or whose publication a crash interrupted (its
        mark from :meth:`begin`: closed in the store, published locally or not, spooled for S3 or not).
        Returns the repaired session ids."""
        shutil.rmtree(self.lake_dir / STAGING, ignore_errors=True)
        repaired = []
        marks = self.lake_dir / PUBLISHING
        begun = {p.name for p in marks.iterdir()} if marks.is_dir() else set()
        rows = self.con.execute("SELECT session_id, status FROM sessions").fetchall()
        for sid in begun - {sid for sid, _ in rows}:  # deleted meanwhile: nothing to publish
            (marks / sid).unlink(missing_ok=True)
        for sid, status in rows:
            if status == "live":  # closed as aborted and published by the hot path's start-up
                continue
            if not is_id(sid):  # stored before ids were checked: never a path, never published
                log.warning("session %s has an id that is not one: not published", ascii(sid))
                continue
            if sid in begun:
                log.warning("the publication of session %s was interrupted: publishing it again", sid)
            elif not table_path(self.lake_dir, sid, "session").exists():
                log.warning("session %s was stored but not (wholly) published: publishing it again", sid)
            elif (problem := session_problem(self.lake_dir, sid)) is not None:
                log.warning(
                    "session %s is damaged in the lake (%s: %s): publishing it again",
                    sid,
                    problem["file"],
                    problem["reason"],
                )
            else:
                continue
            try:
                self.publish_session(sid)
            except Exception:  # the disk, the data: the others still get repaired; tried again next time
                log.exception("could not publish session %s again", sid)
                continue
            repaired.append(sid)
        return repaired


STAGING = ".staging"  # beside lake/sessions/, never matched by the readers' sessions/* globs
PUBLISHING = "publishing"  # beside lake/sessions/: <id> while a publication is under way


def lake_reader_views(
    con: duckdb.DuckDBPyConnection, lake_dir: Path, skip_sessions: frozenset[str] = frozenset()
) -> dict[str, int]:
    """Create (or replace) views over the lake on ``con``; empty typed views where no files exist yet.
    The files of ``skip_sessions`` (damaged ones) are left out.

    Returns the number of files behind each view.
    """
    counts: dict[str, int] = {}
    empty = duckdb.connect()
    try:
        for ddl in ALL_DDL:
            empty.execute(ddl)
        views = {**LAKE_TABLES, "telemetry": "telemetry"}
        for table, stem in views.items():
            pattern = glob_for(lake_dir, stem)
            files = [
                f
                for f in sorted(Path(lake_dir).glob(str(Path(pattern).relative_to(lake_dir))))
                if _session_of(lake_dir, f) not in skip_sessions
            ]
            counts[table] = len(files)
            if files:
                con.execute(
                    f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet({json.dumps([str(f) for f in files])}, "
                    "union_by_name = true)"
                )
            else:
                cols = empty.execute(f"DESCRIBE {table}").fetchall()
                sel = ", ".join(f"CAST(NULL AS {c[1]}) AS {c[0]}" for c in cols)
                con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT {sel} WHERE false")
    finally:
        empty.close()
    return counts


def _session_of(lake_dir: Path, f: Path) -> str:
    return f.relative_to(lake_dir).parts[1]  # sessions/<id>/...


__all__ = ["WIDE_COLUMNS", "LakePublisher", "lake_reader_views"]
