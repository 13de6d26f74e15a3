"""What a live session's delta and RuleCoach compare with: the driver's gold lap, a stored lap of any
session, the achievable lap, the all-time best here, the last lap, or the session's own best."""

from __future__ import annotations

import logging
from typing import Any

from services.hotpath.frame_path import LiveSession
from shared.achievable_trace import achievable_reference
from shared.ids import is_id
from shared.profiles.track import TrackProfile
from shared.settings import Settings
from shared.store.gold import GOLD_CHANNELS, all_time_best, lap_reference, load_gold_lap
from shared.store.lake_layout import session_dir

log = logging.getLogger(__name__)


class BadArgument(ValueError):
    """A request names a car or track profile that cannot be used; ``argument`` is the field."""

    def __init__(self, argument: str, message: str) -> None:
        self.argument, self.message = argument, message
        super().__init__(f"{argument}: {message}")


def choose_reference(
    settings: Settings,
    sess: LiveSession,
    track: TrackProfile | None,
    driver_id: str,
    car_id: str,
    reference: tuple[str, int | str] | str | None,
) -> None:
    """``"alltime"`` / ``"achievable"``: the driver's fastest lap here in this car over every stored
    session, or that session's achievable lap (none stored yet: the session's own best); ``"last_lap"``;
    (session id, lap or ``"achievable"``): any stored lap at this track; None: the gold lap when saved."""
    if reference in ("alltime", "achievable") and track is not None:
        found = all_time_best(settings, driver_id, track.id, car_id)
        if found is not None:
            _use_stored(settings, sess, track, found[0], found[1] if reference == "alltime" else "achievable")
    elif reference == "last_lap":
        sess.last_lap_reference = True
    elif isinstance(reference, tuple):
        _use_stored(settings, sess, track, *reference)
    elif reference is None and track is not None:
        use_gold(settings, sess, track.id, driver_id, car_id)


def _use_stored(settings: Settings, sess: LiveSession, track: Any, ref_sid: str, ref_lap: int | str) -> None:
    try:
        if ref_lap == "achievable":  # the session's laps joined where they matched, timed from the line
            trace, meta = achievable_reference(settings, ref_sid, GOLD_CHANNELS)
        else:
            trace, meta = lap_reference(settings, ref_sid, int(ref_lap))
    except (FileNotFoundError, ValueError) as exc:
        raise BadArgument("reference", f"{ref_sid}:{ref_lap}: {exc}") from exc
    if track is None or meta.get("track_id") != track.id:
        raise BadArgument(
            "reference",
            f"reference {ref_sid}:{ref_lap} was driven at {meta.get('track_id')!r}, not this track",
        )
    sess.set_gold_reference(
        meta["lap"],
        float(meta["time_s"]),
        trace["dist_m"].tolist(),
        trace["time_s"].tolist(),
        "achievable" if ref_lap == "achievable" else "chosen",
    )
    sess.use_gold(trace, meta)


def use_gold(settings: Settings, sess: LiveSession, track_id: str, driver_id: str, car_id: str) -> None:
    """The driver's gold lap for this track and car, when one is saved, is RuleCoach's reference."""
    try:
        got = load_gold_lap(settings, track_id, driver_id)
    except (OSError, ValueError) as exc:  # an unreadable gold file: coach against the session best
        log.warning("gold lap for %s/%s not used: %s", track_id, driver_id, exc)
        return
    if got is None:
        return
    trace, meta = got
    sid = str(meta.get("session_id") or "")
    if sid and not _stored(settings, sid):
        log.info("gold lap for %s/%s not used: its session %s was deleted", track_id, driver_id, sid)
        return
    if meta.get("car_id") not in (None, car_id):
        log.info("gold lap for %s/%s is from car %s, not %s", track_id, driver_id, meta["car_id"], car_id)
        return
    if "dist_m" in trace and "time_s" in trace:  # the predictive delta runs against it too
        time_s = float(meta.get("time_s") or trace["time_s"][-1])
        sess.set_gold_reference(meta.get("lap"), time_s, trace["dist_m"].tolist(), trace["time_s"].tolist())
    if not sess.use_gold(trace, meta):
        log.warning("gold lap for %s/%s has no corner data: not used by RuleCoach", track_id, driver_id)


def _stored(settings: Settings, session_id: str) -> bool:
    """Is the session a gold lap was driven in still in the lake? (an id that is none, or a folder linking
    out of the lake, is not)"""
    try:
        return is_id(session_id) and session_dir(settings.lake_dir, session_id).is_dir()
    except ValueError:
        return False
