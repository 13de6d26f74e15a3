"""Writing an import into the store: how the hot store is reached (this process opens it, or a running hot
path runs the work on its store writer's thread), the one transaction plus its lake publish (undone together
on failure), and a stored session's channel mapping, which a re-import compares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from shared.settings import Settings
from shared.store.deletion import delete_session
from shared.store.hot import HotStore, SessionBundle
from shared.store.lake_mirror import mirror_for
from shared.store.publisher import LakePublisher

T = TypeVar("T")


# runs a function with the hot store: by default it opens the DuckDB file itself; a running hot path
# (which holds the file) passes one that runs it on its store writer's thread (POST /imports)
StoreRun = Callable[[Callable[[HotStore], T]], T]


def own_store(settings: Settings) -> StoreRun[Any]:
    def run(fn: Callable[[HotStore], T]) -> T:
        store = HotStore(settings)
        try:
            return fn(store)
        finally:
            store.close()

    return run


def store_and_publish(
    settings: Settings,
    bundle: SessionBundle,
    truth_json: str | None = None,
    run: StoreRun[Any] | None = None,
    replace: bool = False,
) -> None:
    """Store and publish a session; ``replace``: the stored session of this id goes first (a re-import)."""
    sid = bundle.session["session_id"]

    def write(store: HotStore) -> None:
        if replace:
            delete_session(store, settings.lake_dir, sid, mirror_for(settings))
        store.write_bundle(bundle)
        pub = LakePublisher(store.con, settings.lake_dir, mirror_for(settings))
        try:
            pub.publish_session(sid, truth_json)
        except BaseException:
            pub.remove_session(sid)
            store.delete_session(sid)
            raise

    (run or own_store(settings))(write)


def stored_mapping(store: HotStore, session_id: str) -> list[tuple[Any, ...]]:
    """How a stored session's channels were mapped: (channel, signal, why) for each."""
    rows = store.con.execute(
        "SELECT name, canonical, mapped_by FROM signal_registry WHERE session_id = ?", [session_id]
    ).fetchall()
    return sorted(tuple(r) for r in rows)


def mapping_of(registry: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((r["name"], r.get("canonical"), r.get("mapped_by")) for r in registry)
