"""The outside answer eval's one split into a tuning half and a held-out half (``tests/eval/README.md``).

Each item's place is fixed by a hash of the committed ``SEED``, its session and its words (a follow-up's
earlier turns too): sort a batch's items by it and the first half (rounded up) is the tuning half. Each
batch (a gathering of phrasings, ``batch`` in its files) is split on its own, so a later batch leaves the
earlier ones where they were. ``check`` recomputes it from the two committed halves, so an item moved from
one half to the other after the split is caught. ``write`` split each batch once, from its gathered
phrasings (one YAML file per source), and is kept to show how.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import yaml

from tests.support.qeval_items import EVAL_DIR, Item, load

SEED = 20261127  # the day of the split; never changed
HALVES = ("tuning", "heldout")


def _key(it: Item) -> str:
    words = " / ".join((*it.before, it.text))
    return hashlib.sha256(f"{SEED}|{it.session}|{words}".encode()).hexdigest()


def _raw_key(raw: dict) -> str:
    """The key of an item as written in a pool file."""
    return _key(Item(raw["text"], raw["kind"], raw["session"], before=tuple(raw.get("before") or ())))


def split(items: list[Item]) -> tuple[list[Item], list[Item]]:
    """The tuning and held-out halves: each batch's items sorted by their key, the first half (rounded up)
    of each batch to tuning."""
    tuning: list[Item] = []
    heldout: list[Item] = []
    for batch in sorted({it.batch for it in items}):
        ranked = sorted((it for it in items if it.batch == batch), key=_key)
        cut = (len(ranked) + 1) // 2
        tuning += ranked[:cut]
        heldout += ranked[cut:]
    return tuning, heldout


def check(eval_dir: Path = EVAL_DIR) -> list[str]:
    """What disagrees with the seeded split of the union of both committed halves (empty when none); a
    held-out item is named by its place, never its words."""
    tuning, heldout = (load(eval_dir / h) for h in HALVES)
    want_t, _ = split(tuning + heldout)
    want = {_key(it) for it in want_t}
    return [
        f"{it.text!r} is in tuning, the seed puts it in heldout" for it in tuning if _key(it) not in want
    ] + [
        f"held-out item {i} is in heldout, the seed puts it in tuning"
        for i, it in enumerate(heldout)
        if _key(it) in want
    ]


def write(pool: Path, eval_dir: Path = EVAL_DIR) -> None:
    """Split the pool's files (each ``{source, items}``) into ``eval_dir/tuning`` and ``eval_dir/heldout``,
    one file per source in each half, the source's header kept."""
    tuning, _ = split(load(pool))
    chosen = {_key(it) for it in tuning}
    for path in sorted(pool.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
        doc = yaml.safe_load(text)
        for half in HALVES:
            keep = [raw for raw in doc["items"] if (_raw_key(raw) in chosen) == (half == "tuning")]
            if keep:
                out = eval_dir / half / path.name
                out.parent.mkdir(parents=True, exist_ok=True)
                head = {"batch": doc["batch"]} if "batch" in doc else {}
                doc_out = {**head, "source": doc["source"], "items": keep}
                body = yaml.safe_dump(doc_out, sort_keys=False, allow_unicode=True, width=120)
                out.write_text(header + body, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]))
