"""The session analysis against the simulator's ground truth on 20 seeds never used while tuning it
(100-119; the tuning seeds were 0-19: ``python bench/analysis.py --seeds 0-19``). Every injected mistake:
its corner among the session's top corners, its cause named as injected, its size within 0.05 s of what
the simulator says it cost on that lap; the corner after it never named for it."""

from __future__ import annotations

from tests.support.sweep import sweep

HELD_OUT = range(100, 120)


def test_every_injected_mistake_right_corner_right_cause_right_size() -> None:
    got = sweep(HELD_OUT)
    assert got.mistakes >= 40  # the seeds did inject mistakes
    assert got.failures == []
    assert got.corner_ranked == got.cause_right == got.size_right == got.mistakes
    assert got.next_named == 0
