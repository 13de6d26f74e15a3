"""S3 times are whole seconds: a catalog fragment rewritten with the same size in the second it was
listed looks unchanged, so the paddock reads the catalog again until a read began after that second
(and the clock slack) had passed; then an unchanged listing costs no read."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa

from services.paddock.lake import Lake
from shared.settings import settings_for
from shared.store.lake_catalog import CLOCK_SLACK_S, catalog_settled


def test_settled_only_after_the_whole_second_and_the_slack() -> None:
    assert not catalog_settled(100.0, 100.0)
    assert not catalog_settled(100.0, 100.0 + 1.0 + CLOCK_SLACK_S - 0.01)
    assert catalog_settled(100.0, 100.0 + 1.0 + CLOCK_SLACK_S)
    assert catalog_settled(0.0, 0.0 + 3.0)


class _View:
    """The catalog view's part the lake's status reads: a lake already in the current layout."""

    read_at = 0.0

    def old_layout(self) -> None:
        return None


class _Bucket:
    """The bucket's catalog as the lake sees it: one listing signature, reads counted."""

    def __init__(self, newest: float) -> None:
        self.newest, self.reads, self.view = newest, 0, _View()

    def signature(self) -> tuple[int, float]:
        return (7, self.newest)  # the same names, sizes and whole-second times every listing

    def fetch(self) -> None:
        self.reads += 1

    def build(self, damaged: Any) -> None:
        pass

    def register_newest(self, cur: Any) -> None:
        cur.register(
            "sessions",
            pa.table(
                {"session_id": pa.array([], pa.string()), "started_at": pa.array([], pa.timestamp("us"))}
            ),
        )

    def catalog_rows(self, session_ids: list[str]) -> dict[str, dict[str, Any]]:
        return {}


def test_an_unchanged_listing_is_read_again_only_while_unsettled(tmp_path: Path, monkeypatch: Any) -> None:
    lake = Lake(settings_for(tmp_path / "data"), refresh_ttl_s=0.0)
    now = [1000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    bucket = _Bucket(newest=1000.0)  # written in this very second
    lake.s3 = bucket  # type: ignore[assignment]
    lake.refresh(force=True)
    assert bucket.reads == 1
    now[0] = 1000.5  # same listing, same second: a same-size rewrite could be hiding
    lake.refresh()
    assert bucket.reads == 2
    now[0] = 1000.0 + 1.0 + CLOCK_SLACK_S  # this read begins once the second and the slack are over
    lake.refresh()
    assert bucket.reads == 3
    for _ in range(3):  # settled: an unchanged listing costs no read
        now[0] += 5.0
        lake.refresh()
    assert bucket.reads == 3
