"""The session catalog looked up by session: the rows the paddock's view holds, one version at a time.

The follower swaps :attr:`CatalogLookup.catalog` whole (one row per session); a lookup reads that one
reference, so it answers from one version whatever the follower does meanwhile. A lookup scans the ids
column (Arrow, without the GIL: ~2 ms at 10^5 sessions) until ``INDEX_AFTER`` lookups of one version pay
for an id -> row dict (~60 ms of the GIL at 10^5): a version that serves a few lookups never builds it.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from shared.store.lake_catalog import KEYS_COLUMN, SIZES_COLUMN

INDEX_AFTER = 16  # lookups of one catalog version by scanning before the id -> row dict is built


class CatalogLookup:
    def __init__(self) -> None:
        self.catalog: pa.Table | None = None
        # (the catalog, lookups by scan so far, session id -> its row once built)
        self._index: tuple[pa.Table | None, int, dict[str, int] | None] = (None, 0, None)

    def _find(self, session_id: str) -> tuple[pa.Table | None, int | None]:
        """The catalog and the session's row in it (None when it does not name it); one pair, as the
        follower may swap the catalog meanwhile."""
        cat = self.catalog
        held, scans, index = self._index
        if cat is None:
            return None, None
        ids = cat.column("session_id")
        if held is not cat:
            scans, index = 0, None
        if index is None and scans < INDEX_AFTER:
            self._index = (cat, scans + 1, None)
            i = pc.index(ids, session_id).as_py()
            return cat, None if i < 0 else i
        if index is None:
            sids = ids.to_pylist()
            index = dict(zip(sids, range(len(sids)), strict=True))
            self._index = (cat, scans, index)
        return cat, index.get(session_id)

    def count(self) -> int:
        cat = self.catalog
        return 0 if cat is None else cat.num_rows

    def has(self, session_id: str) -> bool:
        return self._find(session_id)[1] is not None

    def session_ids(self) -> frozenset[str]:
        cat = self.catalog
        return frozenset() if cat is None else frozenset(cat.column("session_id").to_pylist())

    def keys(self, session_id: str) -> list[str] | None:
        """The session's object keys, None when the catalog does not name it."""
        cat, i = self._find(session_id)
        if i is None or cat is None:
            return None
        return list(cat.column(KEYS_COLUMN)[i].as_py() or [])

    def sizes(self, session_id: str) -> dict[str, int]:
        """The session's objects' sizes as its row records them (key -> bytes; none for a row written
        before sizes were, or an old-layout one)."""
        cat, i = self._find(session_id)
        if i is None or cat is None or SIZES_COLUMN not in cat.column_names:
            return {}
        keys, sizes = cat.column(KEYS_COLUMN)[i].as_py() or [], cat.column(SIZES_COLUMN)[i].as_py()
        return dict(zip(keys, sizes, strict=True)) if sizes is not None and len(sizes) == len(keys) else {}

    def version(self, session_id: str) -> str | None:
        cat, i = self._find(session_id)
        if i is None or cat is None or "published_at" not in cat.column_names:
            return None
        return str(cat.column("published_at")[i].as_py())

    def rows(self, session_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The catalog rows of these sessions (one scan, whatever their number; absent ones left out)."""
        cat = self.catalog
        if cat is None or not session_ids:
            return {}
        got = cat.filter(pc.is_in(cat.column("session_id"), pa.array(session_ids, pa.string())))
        return {r["session_id"]: r for r in got.to_pylist()}
