"""DuckDB schema of the hot store. The lake carries the same tables as Parquet (see ``lake_layout``).

Only the hot path process (or ``pitwall import`` when the hot path is not running) opens the hot
DuckDB file, read-write. The paddock never opens it: it reads the lake.
"""

from __future__ import annotations

from shared.analysis.model import ddl as analysis_ddl
from shared.signals import WIDE_COLUMNS

SESSIONS_DDL = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id     VARCHAR PRIMARY KEY,
    driver_id      VARCHAR NOT NULL,
    car_id         VARCHAR NOT NULL,
    track_id       VARCHAR,            -- NULL when the track is unknown
    track_name     VARCHAR,
    source_format  VARCHAR NOT NULL,   -- aim_xrk | aim_csv | vbox_csv | vbo | candump | live | simulator
    source_path    VARCHAR,
    source_sha256  VARCHAR,            -- re-import detection
    started_at     TIMESTAMP,          -- wall clock of t_s = 0 when known
    ended_at       TIMESTAMP,
    status         VARCHAR NOT NULL,   -- live | closed | imported | aborted
    driver_level   VARCHAR,            -- novice | intermediate | advanced | pro
    note           VARCHAR,
    n_laps         INTEGER,
    best_lap_s     DOUBLE,
    best_lap       INTEGER,
    rows           BIGINT,
    channels       INTEGER,
    sample_rate_hz DOUBLE,
    meta_json      VARCHAR,            -- raw header values from the source file
    driver_name    VARCHAR,            -- as the file names the driver (Racer / Driver), or --driver
    car_name       VARCHAR,            -- as the file names the vehicle, or the car profile's name
    created_at     TIMESTAMP DEFAULT current_timestamp
)"""

LAPS_DDL = """
CREATE TABLE IF NOT EXISTS laps (
    session_id     VARCHAR NOT NULL,
    lap            INTEGER NOT NULL,   -- 0 = before the first crossing (out-lap segment)
    t_start_s      DOUBLE NOT NULL,
    t_end_s        DOUBLE NOT NULL,
    time_s         DOUBLE NOT NULL,
    dist_m         DOUBLE,
    kind           VARCHAR NOT NULL,   -- out | full | in
    valid          BOOLEAN NOT NULL,
    invalid_reason VARCHAR,
    is_best        BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (session_id, lap)
)"""

TELEMETRY_DDL = (
    "CREATE TABLE IF NOT EXISTS telemetry (\n    session_id VARCHAR NOT NULL,\n    lap INTEGER NOT NULL,\n"
    + ",\n".join(f"    {c} DOUBLE" for c in WIDE_COLUMNS)
    + "\n)"
)

SIGNALS_DDL = """
CREATE TABLE IF NOT EXISTS telemetry_signals (
    session_id VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,
    t_s        DOUBLE NOT NULL,
    value      DOUBLE
)"""

REGISTRY_DDL = """
CREATE TABLE IF NOT EXISTS signal_registry (
    session_id VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,
    unit       VARCHAR,
    source     VARCHAR,
    rate_hz    DOUBLE,
    canonical  VARCHAR,           -- the canonical signal it feeds, or NULL (still in telemetry_signals)
    mapped_by  VARCHAR            -- why: user mapping, car profile or rule, unit conversion; or why not
)"""

CORNERS_DDL = """
CREATE TABLE IF NOT EXISTS corner_results (
    session_id       VARCHAR NOT NULL,
    lap              INTEGER NOT NULL,
    corner_id        VARCHAR NOT NULL,  -- stable id from the track profile (t1, t2, ...) or auto_N
    corner_name      VARCHAR NOT NULL,  -- display name (Turn 2, The Carousel, ...)
    seq              INTEGER NOT NULL,  -- order around the lap
    direction        VARCHAR,           -- left | right
    start_m          DOUBLE NOT NULL,
    apex_m           DOUBLE,
    end_m            DOUBLE NOT NULL,
    entry_kmh        DOUBLE,
    min_kmh          DOUBLE,
    exit_kmh         DOUBLE,
    brake_point_m    DOUBLE,            -- lap distance where braking started (NULL = no braking)
    brake_peak_bar   DOUBLE,
    throttle_pickup_m DOUBLE,           -- lap distance where throttle went back above 20 % after the apex
    time_s           DOUBLE,            -- time spent between start_m and end_m
    max_g_lat        DOUBLE
)"""

NOTES_DDL = """
CREATE TABLE IF NOT EXISTS coaching_notes (
    session_id VARCHAR NOT NULL,
    ts         TIMESTAMP NOT NULL,     -- wall clock of the decision
    t_s        DOUBLE,                 -- session time of the frame that triggered it
    lap        INTEGER,
    dist_m     DOUBLE,
    corner     VARCHAR,
    rule       VARCHAR NOT NULL,
    phrase_id  VARCHAR NOT NULL,
    text       VARCHAR NOT NULL,
    priority   INTEGER NOT NULL,       -- 3 = safety, 2 = important technique, 1 = technique
    status     VARCHAR NOT NULL,       -- spoken | dropped
    reason     VARCHAR,                -- why it was dropped (late, busy, cooldown, budget, expired, ...)
    latency_ms DOUBLE,
    source_lap INTEGER,                -- the lap whose driving the cue is about (technique cues)
    superseded_by VARCHAR              -- reason 'superseded': the hit that took its place (rule@corner/lapN)
)"""

EVENTS_DDL = """
CREATE TABLE IF NOT EXISTS driver_events (
    session_id VARCHAR NOT NULL,
    t_s        DOUBLE NOT NULL,
    lap        INTEGER,
    dist_m     DOUBLE,
    corner     VARCHAR,
    kind       VARCHAR NOT NULL,       -- lockup | wheelspin | abs | dsc | mil | tpms_alarm | oil_pressure | coolant | ...
    wheel      VARCHAR,
    severity   DOUBLE,
    detail     VARCHAR                 -- JSON
)"""

QUALITY_DDL = """
CREATE TABLE IF NOT EXISTS session_quality (
    session_id  VARCHAR NOT NULL,
    report_json VARCHAR NOT NULL       -- shared.quality.quality_report: channels, gaps, file end, laps, capabilities
)"""

# one row per corner and valid full lap: shared.analysis (computed when the session is published)
ANALYSIS_DDL = analysis_ddl()

ALL_DDL: tuple[str, ...] = (
    SESSIONS_DDL,
    LAPS_DDL,
    TELEMETRY_DDL,
    SIGNALS_DDL,
    REGISTRY_DDL,
    CORNERS_DDL,
    NOTES_DDL,
    EVENTS_DDL,
    QUALITY_DDL,
    ANALYSIS_DDL,
)

#: columns added to a table after it was first released: (table, column, type). A hot file written by an
#: older version gains them when it is opened; the lake reads old and new Parquet by column name.
ADDED_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("coaching_notes", "superseded_by", "VARCHAR"),
    ("telemetry", "brake_rear_bar", "DOUBLE"),
    ("signal_registry", "mapped_by", "VARCHAR"),
    ("sessions", "driver_name", "VARCHAR"),
    ("sessions", "car_name", "VARCHAR"),
    ("telemetry", "throttle_body_pct", "DOUBLE"),
    ("corner_analysis", "turn_in_bar", "DOUBLE"),
    ("corner_analysis", "release_m", "DOUBLE"),
)

#: table name -> file stem in the lake (one file per session, except telemetry: one per lap)
LAKE_TABLES: dict[str, str] = {
    "sessions": "session",
    "laps": "laps",
    "corner_results": "corners",
    "coaching_notes": "notes",
    "driver_events": "events",
    "telemetry_signals": "signals",
    "signal_registry": "registry",
    "session_quality": "quality",
    "corner_analysis": "analysis",
}
